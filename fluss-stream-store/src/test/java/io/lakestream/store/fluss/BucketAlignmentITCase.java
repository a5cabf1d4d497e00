/*
 * Licensed to the Apache Software Foundation (ASF) under one
 * or more contributor license agreements.  See the NOTICE file
 * distributed with this work for additional information
 * regarding copyright ownership.  The ASF licenses this file
 * to you under the Apache License, Version 2.0 (the
 * "License"); you may not use this file except in compliance
 * with the License.  You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.lakestream.store.fluss;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Bucket alignment, checked against Paimon itself: rows are written to a real Paimon table by
 * Paimon's writer and to the table's stream by the Fluss store, and every partition-bucket of the
 * store must hold exactly the rows that Paimon's files of the same partition-bucket hold. The Fluss
 * writer buckets rows on its own (by the bucket keys, with Paimon's encoding and hash), so this is
 * what proves that its bucketing is Paimon's for the key types used.
 */
@ExtendWith(SharedFlussCluster.class)
class BucketAlignmentITCase {

    private static final String DATABASE = "bucket_alignment";
    private static final int BUCKETS = 4;
    private static final int ROWS = 2_000;

    private static StreamStore store;

    @TempDir Path warehouse;

    @BeforeAll
    static void open() {
        store = SharedFlussCluster.newStore();
    }

    @AfterAll
    static void close() {
        store.close();
    }

    /** A partitioned primary-key table: the bucket key is the primary key without {@code dt}. */
    @Test
    void partitionedPrimaryKeyTable() throws Exception {
        Schema schema =
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("name", DataTypes.STRING())
                        .column("dt", DataTypes.STRING())
                        .column("amount", DataTypes.DOUBLE())
                        .column("note", DataTypes.STRING())
                        .partitionKeys("dt")
                        .primaryKey("id", "name", "dt")
                        .option("bucket", String.valueOf(BUCKETS))
                        .build();
        Random random = new Random(1);
        checkAlignment(
                "pk_partitioned",
                schema,
                i ->
                        GenericRow.of(
                                i / 5,
                                BinaryString.fromString("name-" + (i % 5) + "-" + random.nextInt()),
                                BinaryString.fromString("2024-01-0" + (1 + i % 5)),
                                random.nextDouble(),
                                BinaryString.fromString("row " + i)));
    }

    /**
     * The bucket-key columns of every type that Paimon allows in a bucket key and the store holds.
     * The wide DECIMAL and the sub-millisecond timestamps are NOT NULL: nullable, the store refuses
     * them (see {@link #aNullableBucketKeyThatFlussBucketsDifferentlyWhenNullIsRefused}).
     */
    private static Map<String, DataType> bucketKeyOfEveryType() {
        Map<String, DataType> keys = new LinkedHashMap<>();
        keys.put("k_boolean", DataTypes.BOOLEAN());
        keys.put("k_tinyint", DataTypes.TINYINT());
        keys.put("k_smallint", DataTypes.SMALLINT());
        keys.put("k_int", DataTypes.INT());
        keys.put("k_bigint", DataTypes.BIGINT());
        keys.put("k_float", DataTypes.FLOAT());
        keys.put("k_double", DataTypes.DOUBLE());
        keys.put("k_decimal", DataTypes.DECIMAL(10, 2));
        keys.put("k_big_decimal", DataTypes.DECIMAL(20, 4).notNull());
        keys.put("k_char", DataTypes.CHAR(4));
        keys.put("k_varchar", DataTypes.VARCHAR(20));
        keys.put("k_binary", DataTypes.BINARY(3));
        keys.put("k_varbinary", DataTypes.VARBINARY(8));
        keys.put("k_date", DataTypes.DATE());
        keys.put("k_time", DataTypes.TIME());
        keys.put("k_ts3", DataTypes.TIMESTAMP(3));
        keys.put("k_ts6", DataTypes.TIMESTAMP(6).notNull());
        keys.put("k_ts9", DataTypes.TIMESTAMP(9).notNull());
        keys.put("k_ltz3", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3));
        keys.put("k_ltz6", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6).notNull());
        return keys;
    }

    /**
     * A partitioned append table (two partition keys of other types than STRING) whose bucket key
     * is a column of every type, with nulls in the nullable ones and timestamps before 1970.
     */
    @Test
    void partitionedAppendTableWithABucketKeyOfEveryType() throws Exception {
        Map<String, DataType> keys = bucketKeyOfEveryType();
        Schema.Builder builder =
                Schema.newBuilder()
                        .column("id", DataTypes.BIGINT().notNull())
                        .column("day", DataTypes.DATE().notNull())
                        .column("hr", DataTypes.INT().notNull());
        keys.forEach(builder::column);
        Schema schema =
                builder.column("payload", DataTypes.STRING())
                        .partitionKeys("day", "hr")
                        .option("bucket", String.valueOf(BUCKETS))
                        .option("bucket-key", String.join(",", keys.keySet()))
                        .build();
        List<DataType> keyTypes = new ArrayList<>(keys.values());
        Random random = new Random(2);
        checkAlignment(
                "append_partitioned",
                schema,
                i -> {
                    GenericRow row = new GenericRow(3 + keyTypes.size() + 1);
                    row.setField(0, (long) i);
                    row.setField(1, 19_700 + i % 3);
                    row.setField(2, i % 2);
                    for (int k = 0; k < keyTypes.size(); k++) {
                        DataType type = keyTypes.get(k);
                        // every nullable key is null in about one row of eight
                        row.setField(
                                3 + k,
                                type.isNullable() && random.nextInt(8) == 0
                                        ? null
                                        : randomValue(type, random));
                    }
                    row.setField(3 + keyTypes.size(), BinaryString.fromString("payload " + i));
                    return row;
                });
    }

    /**
     * Nullable bucket keys that Paimon encodes with room for the value even when null, and Fluss
     * without: rows with a null there would be misaligned, so the store refuses such a table.
     */
    @Test
    void aNullableBucketKeyThatFlussBucketsDifferentlyWhenNullIsRefused() throws Exception {
        Map<String, DataType> refused = new LinkedHashMap<>();
        refused.put("k_big_decimal", DataTypes.DECIMAL(20, 4));
        refused.put("k_ts6", DataTypes.TIMESTAMP(6));
        refused.put("k_ltz9", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(9));
        int n = 0;
        for (Map.Entry<String, DataType> key : refused.entrySet()) {
            Identifier identifier = Identifier.create(DATABASE, "refused_key_" + n++);
            Schema schema =
                    Schema.newBuilder()
                            .column("id", DataTypes.BIGINT().notNull())
                            .column("k_int", DataTypes.INT())
                            .column(key.getKey(), key.getValue())
                            .option("bucket", String.valueOf(BUCKETS))
                            .option("bucket-key", "k_int," + key.getKey())
                            .build();
            StreamTableSpec spec =
                    StreamTableSpec.of(identifier, createPaimonTable(identifier, schema));
            assertThatThrownBy(() -> store.provision(spec))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("Bucket-key column '" + key.getKey() + "'")
                    .hasMessageContaining(identifier.getFullName())
                    .hasMessageContaining(key.getValue().toString())
                    .hasMessageContaining("NOT NULL");
        }
        // the same types as NOT NULL keys, and nullable compact ones, are held
        StreamTableSpec held =
                new StreamTableSpec(
                        Identifier.create(DATABASE, "held_keys"),
                        RowType.of(
                                DataTypes.DECIMAL(20, 4).notNull(),
                                DataTypes.TIMESTAMP(6).notNull(),
                                DataTypes.DECIMAL(18, 4),
                                DataTypes.TIMESTAMP(3)),
                        List.of(),
                        List.of("f0", "f1", "f2", "f3"),
                        List.of(),
                        BUCKETS);
        assertThat(store.provision(held).storeTableName()).isEqualTo(DATABASE + ".held_keys");
    }

    /** An unpartitioned primary-key table whose composite key mixes string, number and time. */
    @Test
    void unpartitionedPrimaryKeyTableWithACompositeKey() throws Exception {
        Schema schema =
                Schema.newBuilder()
                        .column("region", DataTypes.STRING())
                        .column("order_id", DataTypes.BIGINT())
                        .column("created", DataTypes.TIMESTAMP(9))
                        .column("seq", DataTypes.DECIMAL(24, 6))
                        .column("quantity", DataTypes.INT())
                        .primaryKey("region", "order_id", "created", "seq")
                        .option("bucket", String.valueOf(BUCKETS))
                        .build();
        Random random = new Random(3);
        String[] regions = {"emea", "apac", "amer", "région-ünicode"};
        checkAlignment(
                "pk_composite",
                schema,
                i ->
                        GenericRow.of(
                                BinaryString.fromString(regions[i % regions.length]),
                                random.nextLong(),
                                Timestamp.fromEpochMillis(
                                        1_700_000_000_000L + random.nextInt(), i % 1_000_000),
                                Decimal.fromBigDecimal(
                                        new BigDecimal(BigInteger.valueOf(random.nextLong()), 6),
                                        24,
                                        6),
                                i));
    }

    private static Object randomValue(DataType type, Random random) {
        long millis = random.nextLong() % 4_000_000_000_000L;
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return random.nextBoolean();
            case TINYINT:
                return (byte) random.nextInt();
            case SMALLINT:
                return (short) random.nextInt();
            case INTEGER:
                return random.nextInt();
            case BIGINT:
                return random.nextLong();
            case FLOAT:
                return random.nextInt(50) == 0 ? Float.NaN : (random.nextFloat() - 0.5f) * 1e6f;
            case DOUBLE:
                return random.nextInt(50) == 0 ? -0d : random.nextGaussian() * 1e12;
            case DECIMAL:
                org.apache.paimon.types.DecimalType decimal =
                        (org.apache.paimon.types.DecimalType) type;
                BigInteger unscaled =
                        BigInteger.valueOf(random.nextLong())
                                .mod(BigInteger.TEN.pow(decimal.getPrecision()));
                return Decimal.fromBigDecimal(
                        new BigDecimal(
                                random.nextBoolean() ? unscaled : unscaled.negate(),
                                decimal.getScale()),
                        decimal.getPrecision(),
                        decimal.getScale());
            case CHAR:
                return BinaryString.fromString(randomString(random, 1, 4));
            case VARCHAR:
                return BinaryString.fromString(randomString(random, 0, 20));
            case BINARY:
                return randomBytes(random, 3);
            case VARBINARY:
                return randomBytes(random, random.nextInt(9));
            case DATE:
                return random.nextInt(200_000) - 100_000;
            case TIME_WITHOUT_TIME_ZONE:
                return random.nextInt(86_400_000);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                int precision = org.apache.paimon.types.DataTypeChecks.getPrecision(type);
                // only the nanos the column keeps, so that the files hold the written value
                int nanosOfMilli =
                        precision <= 3
                                ? 0
                                : precision <= 6
                                        ? random.nextInt(1_000) * 1_000
                                        : random.nextInt(1_000_000);
                return Timestamp.fromEpochMillis(millis, nanosOfMilli);
            default:
                throw new IllegalArgumentException("No values for " + type);
        }
    }

    private static String randomString(Random random, int minLength, int maxLength) {
        String alphabet = "abcXYZ019-_ é漢";
        int length = minLength + random.nextInt(maxLength - minLength + 1);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    private static byte[] randomBytes(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        return bytes;
    }

    /**
     * Writes {@link #ROWS} rows to a new Paimon table and to its stream, then compares the rows of
     * every partition-bucket.
     */
    private void checkAlignment(String name, Schema schema, Function<Integer, GenericRow> rows)
            throws Exception {
        Identifier identifier = Identifier.create(DATABASE, name);
        FileStoreTable table = createPaimonTable(identifier, schema);
        RowType rowType = table.rowType();
        List<GenericRow> written = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            written.add(rows.apply(i));
        }

        // Paimon's writer buckets the rows itself; the files then say where each row went
        BatchWriteBuilder writeBuilder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = writeBuilder.newWrite();
                BatchTableCommit commit = writeBuilder.newCommit()) {
            for (GenericRow row : written) {
                write.write(row);
            }
            commit.commit(write.prepareCommit());
        }
        Map<PartitionBucket, Set<String>> paimonRows = readPaimonFiles(table, rowType);
        assertThat(paimonRows.values().stream().mapToInt(Set::size).sum())
                .as("rows in Paimon's files (one each, all keys are distinct)")
                .isEqualTo(ROWS);

        // the sink learns each row's partition-bucket from Paimon's key extractor
        RowKeyExtractor extractor = table.createRowKeyExtractor();
        Map<PartitionBucket, Long> writtenPerBucket = new HashMap<>();
        StreamTable streamTable = store.provision(StreamTableSpec.of(identifier, table));
        Map<PartitionBucket, Long> flushed;
        try (StreamWriter writer = store.createWriter(streamTable)) {
            for (GenericRow row : written) {
                extractor.setRecord(row);
                PartitionBucket pb =
                        new PartitionBucket(extractor.partition().copy(), extractor.bucket());
                assertThat(paimonRows.getOrDefault(pb, Set.of()))
                        .as("Paimon's files put %s into %s, as its key extractor says", row, pb)
                        .contains(render(rowType, row));
                writer.write(pb, row);
                writtenPerBucket.merge(pb, 1L, Long::sum);
            }
            flushed = writer.flush();
        }

        // every bucket of every partition, not only those Paimon used
        Set<BinaryRow> partitions = new HashSet<>();
        paimonRows.keySet().forEach(pb -> partitions.add(pb.partition()));
        assertThat(store.listPartitions(streamTable))
                .containsExactlyInAnyOrderElementsOf(partitions);
        List<PartitionBucket> all = new ArrayList<>();
        for (BinaryRow partition : partitions) {
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                all.add(new PartitionBucket(partition, bucket));
            }
        }
        Map<PartitionBucket, Long> ends =
                store.listOffsets(streamTable, all, OffsetPosition.LATEST);
        Map<PartitionBucket, Set<String>> storeRows = new HashMap<>();
        for (StreamRecord record : FlussStreamRoundTripITCase.readAll(store, streamTable, ends)) {
            storeRows
                    .computeIfAbsent(record.partitionBucket(), k -> new HashSet<>())
                    .add(render(rowType, record.row()));
        }

        Set<Integer> bucketsUsed = new TreeSet<>();
        for (PartitionBucket pb : all) {
            Set<String> inPaimon = paimonRows.getOrDefault(pb, Set.of());
            assertThat(storeRows.getOrDefault(pb, Set.of()))
                    .as("rows of %s of %s in the store and in Paimon", pb, identifier)
                    .containsExactlyInAnyOrderElementsOf(inPaimon);
            if (!inPaimon.isEmpty()) {
                bucketsUsed.add(pb.bucket());
            }
        }
        assertThat(bucketsUsed).as("buckets used").containsExactly(0, 1, 2, 3);
        assertThat(flushed).as("end offsets reported by flush").isEqualTo(writtenPerBucket);
        System.out.printf(
                "Bucket alignment of %s: %d rows, %d partitions, %d partition-buckets checked "
                        + "(%d non-empty), buckets used %s%n",
                identifier.getFullName(),
                ROWS,
                partitions.size(),
                all.size(),
                writtenPerBucket.size(),
                bucketsUsed);
    }

    private FileStoreTable createPaimonTable(Identifier identifier, Schema schema)
            throws Exception {
        Catalog catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri())));
        catalog.createDatabase(DATABASE, true);
        catalog.createTable(identifier, schema, false);
        return (FileStoreTable) catalog.getTable(identifier);
    }

    /** The rows of Paimon's files, by the partition-bucket the files belong to. */
    private static Map<PartitionBucket, Set<String>> readPaimonFiles(
            FileStoreTable table, RowType rowType) throws Exception {
        Map<PartitionBucket, Set<String>> rows = new HashMap<>();
        for (DataSplit split : table.newSnapshotReader().read().dataSplits()) {
            Set<String> rowsOfBucket =
                    rows.computeIfAbsent(
                            new PartitionBucket(split.partition().copy(), split.bucket()),
                            k -> new HashSet<>());
            try (RecordReader<InternalRow> reader = table.newRead().createReader(split)) {
                reader.forEachRemaining(row -> rowsOfBucket.add(render(rowType, row)));
            }
        }
        return rows;
    }

    /** A row's values as text: the rows of a table are told apart by it. */
    private static String render(RowType rowType, InternalRow row) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < rowType.getFieldCount(); i++) {
            Object value =
                    InternalRow.createFieldGetter(rowType.getTypeAt(i), i).getFieldOrNull(row);
            sb.append(value instanceof byte[] ? Arrays.toString((byte[]) value) : value)
                    .append('|');
        }
        return sb.toString();
    }
}
