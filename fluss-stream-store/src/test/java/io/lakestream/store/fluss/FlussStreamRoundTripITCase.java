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
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.paimon.bucket.DefaultBucketFunction;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes through the Fluss store and reads back: every row with its row kind, offset and bucket,
 * for append and primary-key tables, partitioned and not; and the end offsets that {@code flush}
 * reports under concurrent writers.
 */
@ExtendWith(SharedFlussCluster.class)
class FlussStreamRoundTripITCase {

    private static StreamStore store;

    @BeforeAll
    static void open() {
        store = SharedFlussCluster.newStore();
    }

    @AfterAll
    static void close() {
        store.close();
    }

    static BinaryRow partition(String value) {
        BinaryRow row = new BinaryRow(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeString(0, BinaryString.fromString(value));
        writer.complete();
        return row;
    }

    private static final RowType ALL_TYPES =
            RowType.of(
                    new org.apache.paimon.types.DataType[] {
                        DataTypes.INT().notNull(),
                        DataTypes.BOOLEAN(),
                        DataTypes.TINYINT(),
                        DataTypes.SMALLINT(),
                        DataTypes.BIGINT(),
                        DataTypes.FLOAT(),
                        DataTypes.DOUBLE(),
                        DataTypes.DECIMAL(10, 2),
                        DataTypes.DECIMAL(30, 5),
                        DataTypes.CHAR(3),
                        DataTypes.VARCHAR(20),
                        DataTypes.BINARY(2),
                        DataTypes.VARBINARY(10),
                        DataTypes.DATE(),
                        DataTypes.TIME(),
                        DataTypes.TIMESTAMP(3),
                        DataTypes.TIMESTAMP(9),
                        DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
                        DataTypes.STRING()
                    },
                    new String[] {
                        "id", "f_bool", "f_tiny", "f_small", "f_big", "f_float", "f_double",
                        "f_dec", "f_bigdec", "f_char", "f_varchar", "f_bin", "f_varbin", "f_date",
                        "f_time", "f_ts3", "f_ts9", "f_ltz", "dt"
                    });

    private static GenericRow allTypesRow(RowKind kind, int id, String dt) {
        GenericRow row =
                GenericRow.of(
                        id,
                        id % 2 == 0,
                        (byte) id,
                        (short) (id * 3),
                        id * 1_000_000_007L,
                        id / 3f,
                        id / 7d,
                        Decimal.fromBigDecimal(new BigDecimal(id + ".25"), 10, 2),
                        Decimal.fromBigDecimal(
                                new BigDecimal("1234567890123456789012345.0000" + (id % 10)),
                                30,
                                5),
                        // a CHAR(3) value longer than three bytes in UTF-8
                        BinaryString.fromString((id % 2 == 0 ? "äö" : "c") + (id % 10)),
                        BinaryString.fromString("name-" + id),
                        new byte[] {(byte) id, 7},
                        new byte[] {1, 2, (byte) id},
                        19_000 + id,
                        id * 1000,
                        Timestamp.fromEpochMillis(1_700_000_000_000L + id),
                        Timestamp.fromEpochMillis(1_700_000_000_000L + id, 123_456),
                        Timestamp.fromEpochMillis(1_700_000_000_000L + id, 999_000),
                        BinaryString.fromString(dt));
        row.setRowKind(kind);
        // a null in every nullable column for some rows
        if (id % 5 == 0) {
            for (int i = 1; i < ALL_TYPES.getFieldCount() - 1; i++) {
                row.setField(i, null);
            }
        }
        return row;
    }

    private static StreamTableSpec spec(String name, boolean partitioned, boolean primaryKey) {
        return new StreamTableSpec(
                Identifier.create("round_trip", name),
                partitioned
                        ? ALL_TYPES.copy(
                                ALL_TYPES.getFields().stream()
                                        .map(
                                                f ->
                                                        f.name().equals("dt")
                                                                ? f.newType(f.type().notNull())
                                                                : f)
                                        .collect(Collectors.toList()))
                        : ALL_TYPES,
                partitioned ? Collections.singletonList("dt") : Collections.emptyList(),
                Collections.singletonList("id"),
                primaryKey
                        ? (partitioned
                                ? Arrays.asList("id", "dt")
                                : Collections.singletonList("id"))
                        : Collections.emptyList(),
                4);
    }

    /**
     * Paimon's bucket of a row: the hash of its bucket key (the id column), as Paimon computes it.
     */
    static int paimonBucket(int id, int numBuckets) {
        BinaryRow key = new BinaryRow(1);
        BinaryRowWriter writer = new BinaryRowWriter(key);
        writer.writeInt(0, id);
        writer.complete();
        return new DefaultBucketFunction().bucket(key, numBuckets);
    }

    private static PartitionBucket pbOf(StreamTableSpec spec, InternalRow row) {
        BinaryRow partition =
                spec.isPartitioned()
                        ? partition(row.getString(ALL_TYPES.getFieldCount() - 1).toString())
                        : BinaryRow.EMPTY_ROW;
        return new PartitionBucket(partition, paimonBucket(row.getInt(0), spec.numBuckets()));
    }

    @Test
    void appendTableUnpartitioned() {
        roundTrip(spec("append_plain", false, false), false);
    }

    @Test
    void appendTablePartitioned() {
        roundTrip(spec("append_parted", true, false), false);
    }

    @Test
    void primaryKeyTableUnpartitioned() {
        roundTrip(spec("pk_plain", false, true), true);
    }

    @Test
    void primaryKeyTablePartitioned() {
        roundTrip(spec("pk_parted", true, true), true);
    }

    private void roundTrip(StreamTableSpec spec, boolean withChanges) {
        StreamTable table = store.provision(spec);
        List<GenericRow> written = new ArrayList<>();
        RowKind[] kinds =
                withChanges
                        ? new RowKind[] {
                            RowKind.INSERT,
                            RowKind.UPDATE_BEFORE,
                            RowKind.UPDATE_AFTER,
                            RowKind.DELETE
                        }
                        : new RowKind[] {RowKind.INSERT, RowKind.UPDATE_AFTER};
        for (int i = 0; i < 200; i++) {
            written.add(allTypesRow(kinds[i % kinds.length], i, i % 3 == 0 ? "p1" : "p2"));
        }
        Map<PartitionBucket, Long> expectedEnds = new HashMap<>();
        Map<PartitionBucket, Long> flushed;
        try (StreamWriter writer = store.createWriter(table)) {
            for (GenericRow row : written) {
                writer.write(pbOf(spec, row), row);
                expectedEnds.merge(pbOf(spec, row), 1L, Long::sum);
            }
            flushed = writer.flush();
            assertThat(writer.flush()).as("nothing written since the last flush").isEmpty();
        }
        assertThat(flushed).isEqualTo(expectedEnds);
        assertThat(store.listOffsets(table, expectedEnds.keySet(), OffsetPosition.LATEST))
                .isEqualTo(expectedEnds);

        List<StreamRecord> read = readAll(store, table, expectedEnds);
        assertThat(read).hasSize(written.size());
        Map<PartitionBucket, List<Long>> offsetsPerBucket = new HashMap<>();
        for (StreamRecord record : read) {
            InternalRow row = record.row();
            GenericRow original = written.get(row.getInt(0));
            // the record is in the partition-bucket Paimon assigned, with its row kind and values
            assertThat(record.partitionBucket()).isEqualTo(pbOf(spec, original));
            // an append table keeps +U as the insert that Paimon makes of it
            assertThat(record.rowKind())
                    .isEqualTo(withChanges ? original.getRowKind() : RowKind.INSERT);
            assertThat(render(row)).isEqualTo(render(original));
            assertThat(record.timestamp()).isGreaterThan(1_600_000_000_000L);
            offsetsPerBucket
                    .computeIfAbsent(record.partitionBucket(), k -> new ArrayList<>())
                    .add(record.offset());
        }
        offsetsPerBucket.forEach(
                (pb, offsets) -> {
                    List<Long> contiguous = new ArrayList<>();
                    for (long o = 0; o < expectedEnds.get(pb); o++) {
                        contiguous.add(o);
                    }
                    assertThat(offsets).as("offsets of %s", pb).isEqualTo(contiguous);
                });
    }

    /** Reads every partition-bucket from 0 to its end offset. */
    static List<StreamRecord> readAll(
            StreamStore store, StreamTable table, Map<PartitionBucket, Long> ends) {
        List<StreamRecord> records = new ArrayList<>();
        try (StreamReader reader = store.createReader(table)) {
            ends.forEach((pb, end) -> reader.subscribe(pb, 0, end));
            int finished = 0;
            long deadline = System.currentTimeMillis() + 60_000;
            while (finished < ends.size() && System.currentTimeMillis() < deadline) {
                records.addAll(reader.poll(Duration.ofMillis(200)));
                finished += reader.finished().size();
            }
            assertThat(finished).as("partition-buckets read to their end").isEqualTo(ends.size());
        }
        return records;
    }

    static String render(InternalRow row) {
        StringBuilder sb = new StringBuilder();
        InternalRow.FieldGetter[] getters = new InternalRow.FieldGetter[ALL_TYPES.getFieldCount()];
        for (int i = 0; i < getters.length; i++) {
            Object value =
                    InternalRow.createFieldGetter(ALL_TYPES.getTypeAt(i), i).getFieldOrNull(row);
            sb.append(value instanceof byte[] ? Arrays.toString((byte[]) value) : value)
                    .append('|');
        }
        return sb.toString();
    }

    /**
     * Timestamps finer than milliseconds before 1970, and nanosecond timestamps far from it, come
     * back as written. (Fluss's default Arrow log format fails to read the first and overflows the
     * second; the stream tables use the compacted format.)
     */
    @Test
    void timestampsBeforeNineteenSeventyAndFarFromItRoundTrip() {
        StreamTableSpec spec =
                new StreamTableSpec(
                        Identifier.create("round_trip", "old_timestamps"),
                        RowType.of(
                                new org.apache.paimon.types.DataType[] {
                                    DataTypes.INT().notNull(),
                                    DataTypes.TIMESTAMP(6),
                                    DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
                                    DataTypes.TIMESTAMP(9),
                                    DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(9)
                                },
                                new String[] {"id", "ts6", "ltz6", "ts9", "ltz9"}),
                        Collections.emptyList(),
                        Collections.singletonList("id"),
                        Collections.emptyList(),
                        1);
        List<Timestamp> micros =
                Arrays.asList(
                        Timestamp.fromEpochMillis(-1, 999_000),
                        Timestamp.fromMicros(-123_456_789_123L),
                        ts("1969-07-20T20:17:40.123456"),
                        ts("1500-01-01T00:00:00.000001"),
                        ts("0001-01-01T00:00:00.000001"),
                        ts("2300-01-01T12:00:00.5"),
                        ts("9999-12-31T23:59:59.999999"));
        List<Timestamp> nanos =
                Arrays.asList(
                        Timestamp.fromEpochMillis(-1, 999_999),
                        Timestamp.fromEpochMillis(-123_456_789_123L, 1),
                        ts("1969-07-20T20:17:40.123456789"),
                        ts("1500-01-01T00:00:00.000000001"),
                        ts("0001-01-01T00:00:00.000000001"),
                        ts("2300-01-01T12:00:00.5"),
                        ts("9999-12-31T23:59:59.999999999"));
        StreamTable table = store.provision(spec);
        PartitionBucket pb = PartitionBucket.ofUnpartitioned(0);
        List<String> written = new ArrayList<>();
        try (StreamWriter writer = store.createWriter(table)) {
            for (int i = 0; i < micros.size(); i++) {
                GenericRow row =
                        GenericRow.of(i, micros.get(i), micros.get(i), nanos.get(i), nanos.get(i));
                writer.write(pb, row);
                written.add(row.toString());
            }
            assertThat(writer.flush()).containsEntry(pb, (long) micros.size());
        }
        List<String> read = new ArrayList<>();
        for (StreamRecord record :
                readAll(store, table, Collections.singletonMap(pb, (long) micros.size()))) {
            InternalRow row = record.row();
            read.add(
                    GenericRow.of(
                                    row.getInt(0),
                                    row.getTimestamp(1, 6),
                                    row.getTimestamp(2, 6),
                                    row.getTimestamp(3, 9),
                                    row.getTimestamp(4, 9))
                            .toString());
        }
        assertThat(read).containsExactlyElementsOf(written);
    }

    private static Timestamp ts(String isoDateTime) {
        return Timestamp.fromLocalDateTime(java.time.LocalDateTime.parse(isoDateTime));
    }

    /**
     * A caller may hand the writer one partition row that it overwrites for every record, as
     * Paimon's key extractor does: the end offsets that flush reports still name every partition.
     */
    @Test
    void aPartitionRowThatTheCallerReusesIsNotKeptByTheWriter() {
        StreamTableSpec spec =
                new StreamTableSpec(
                        Identifier.create("round_trip", "reused_partition_row"),
                        RowType.of(
                                new org.apache.paimon.types.DataType[] {
                                    DataTypes.INT().notNull(), DataTypes.STRING().notNull()
                                },
                                new String[] {"id", "dt"}),
                        Collections.singletonList("dt"),
                        Collections.singletonList("id"),
                        Collections.emptyList(),
                        1);
        StreamTable table = store.provision(spec);
        BinaryRow reused = new BinaryRow(1);
        BinaryRowWriter partitionWriter = new BinaryRowWriter(reused);
        List<String> dts = Arrays.asList("a", "b", "c");
        try (StreamWriter writer = store.createWriter(table)) {
            for (int i = 0; i < 30; i++) {
                String dt = dts.get(i % dts.size());
                partitionWriter.reset();
                partitionWriter.writeString(0, BinaryString.fromString(dt));
                partitionWriter.complete();
                writer.write(
                        new PartitionBucket(reused, 0),
                        GenericRow.of(i, BinaryString.fromString(dt)));
            }
            assertThat(writer.flush())
                    .containsOnly(
                            Map.entry(new PartitionBucket(partition("a"), 0), 10L),
                            Map.entry(new PartitionBucket(partition("b"), 0), 10L),
                            Map.entry(new PartitionBucket(partition("c"), 0), 10L));
        }
    }

    /**
     * Several writers at once, each owning its own buckets (as the sink's subtasks do): every
     * writer's flush reports exactly the number of records it wrote to each of its buckets.
     */
    @Test
    void concurrentWritersEachGetTheirOwnBucketsEndOffsets() throws Exception {
        StreamTableSpec spec =
                new StreamTableSpec(
                        Identifier.create("round_trip", "concurrent"),
                        RowType.of(
                                new org.apache.paimon.types.DataType[] {
                                    DataTypes.INT().notNull(), DataTypes.STRING()
                                },
                                new String[] {"id", "payload"}),
                        Collections.emptyList(),
                        Collections.singletonList("id"),
                        Collections.emptyList(),
                        8);
        StreamTable table = store.provision(spec);
        int writers = 4;
        int rounds = 3;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<Map<PartitionBucket, Long>>> results = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int owner = w;
                results.add(
                        pool.submit(
                                () -> {
                                    Map<PartitionBucket, Long> last = new HashMap<>();
                                    Map<PartitionBucket, Long> written = new HashMap<>();
                                    try (StreamWriter writer = store.createWriter(table)) {
                                        for (int round = 0; round < rounds; round++) {
                                            for (int id = 0; id < 20_000; id++) {
                                                int bucket = paimonBucket(id, 8);
                                                if (bucket % writers != owner) {
                                                    continue;
                                                }
                                                PartitionBucket pb =
                                                        PartitionBucket.ofUnpartitioned(bucket);
                                                writer.write(
                                                        pb,
                                                        GenericRow.of(
                                                                id,
                                                                BinaryString.fromString(
                                                                        "r" + round)));
                                                written.merge(pb, 1L, Long::sum);
                                            }
                                            Map<PartitionBucket, Long> flushed = writer.flush();
                                            assertThat(flushed).isEqualTo(written);
                                            last.putAll(flushed);
                                        }
                                    }
                                    return last;
                                }));
            }
            Map<PartitionBucket, Long> all = new HashMap<>();
            for (Future<Map<PartitionBucket, Long>> result : results) {
                all.putAll(result.get());
            }
            assertThat(all).hasSize(8);
            Collection<Long> ends = all.values();
            assertThat(ends.stream().mapToLong(Long::longValue).sum()).isEqualTo(20_000L * rounds);
        } finally {
            pool.shutdownNow();
        }
    }
}
