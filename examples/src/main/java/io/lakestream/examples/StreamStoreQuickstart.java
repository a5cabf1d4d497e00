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

package io.lakestream.examples;

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A short tour of the stream-store SPI on a real Fluss cluster, started in this JVM: it creates a
 * partitioned primary-key Paimon table, provisions its stream table, writes changes bucketed
 * exactly as Paimon buckets them, reads them back with their offsets and row kinds, and shows how a
 * fence hides the records of a failed writer attempt from readers.
 *
 * <p>Run it from the repository root with {@code mvn -B -q install -DskipTests && mvn -B -q -pl
 * examples exec:exec -Dquickstart=io.lakestream.examples.StreamStoreQuickstart}. It needs nothing
 * but a JDK: the cluster and the Paimon warehouse live in temporary directories that are deleted at
 * the end.
 */
public final class StreamStoreQuickstart {

    private static final Identifier ORDERS = Identifier.create("shop", "orders");
    private static final String DAY_1 = "2025-06-01";
    private static final String DAY_2 = "2025-06-02";

    /** Generous, so that a slow machine does not fail the tour; a local read takes milliseconds. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private StreamStoreQuickstart() {}

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        System.out.println("Lake-stream quickstart: the stream-store SPI on a local Fluss cluster");
        Path warehouse = Files.createTempDirectory("lake-stream-quickstart");
        try (LocalFlussCluster fluss = LocalFlussCluster.start()) {
            step(
                    "Started a local Fluss cluster (ZooKeeper, a coordinator, a tablet server) at "
                            + fluss.bootstrapServers());
            run(fluss.lakeStreamOptions(), warehouse);
        } finally {
            TemporaryDirectories.delete(warehouse);
        }
        System.out.printf(
                "Stopped the cluster and deleted the temporary files. Done in %.1f s.%n",
                (System.nanoTime() - start) / 1e9);
    }

    private static void run(Map<String, String> options, Path warehouse) throws Exception {
        FileStoreTable table = createPaimonTable(warehouse);
        step(
                "Created Paimon table "
                        + ORDERS.getFullName()
                        + " (primary key "
                        + table.primaryKeys()
                        + ", partitioned by "
                        + table.partitionKeys()
                        + ", "
                        + table.coreOptions().bucket()
                        + " buckets) in a temporary warehouse");

        // the same options a lake-stream table carries; the store is found on the class path
        try (StreamStore store =
                StreamStoreLoader.create(options, StreamStoreQuickstart.class.getClassLoader())) {
            StreamTable streamTable = store.provision(StreamTableSpec.of(ORDERS, table));
            Rendering show = new Rendering(streamTable.spec());
            step(
                    "Provisioned its stream table "
                            + streamTable.storeTableName()
                            + " (Fluss table id "
                            + streamTable.storeTableId()
                            + ")");

            // Paimon's own bucket assignment, so that the store's buckets are Paimon's buckets
            KeyAndBucketExtractor<InternalRow> buckets = table.createRowKeyExtractor();
            Map<PartitionBucket, Long> checkpoint;
            Map<PartitionBucket, Long> ends = new HashMap<>();
            try (StreamWriter writer = store.createWriter(streamTable)) {
                write(
                        writer,
                        buckets,
                        order(RowKind.INSERT, 1, "alice", "12.50", DAY_1),
                        order(RowKind.INSERT, 2, "bob", "7.00", DAY_1),
                        order(RowKind.INSERT, 3, "carol", "30.00", DAY_2));
                checkpoint = writer.flush();
                ends.putAll(checkpoint);
                step("Wrote 3 inserts and flushed, as a checkpoint does. End offsets:");
                show.offsets(checkpoint);

                write(
                        writer,
                        buckets,
                        order(RowKind.UPDATE_BEFORE, 1, "alice", "12.50", DAY_1),
                        order(RowKind.UPDATE_AFTER, 1, "alice", "15.00", DAY_1),
                        order(RowKind.DELETE, 2, "bob", "7.00", DAY_1),
                        order(RowKind.INSERT, 4, "dave", "3.20", DAY_2));
                Map<PartitionBucket, Long> flushed = writer.flush();
                ends.putAll(flushed);
                step("Wrote an update (-U/+U), a delete and an insert and flushed. End offsets:");
                show.offsets(flushed);
            }

            List<StreamRecord> all;
            try (StreamReader reader = store.createReader(streamTable)) {
                all = readAll(reader, ends);
            }
            step("Read every partition-bucket from offset 0 with a raw reader:");
            show.records(all);

            // The fence a restored writer records: what it wrote after the checkpoint it restores.
            PartitionBucket failed =
                    partitionBucketOf(buckets, order(RowKind.INSERT, 1, "alice", "12.50", DAY_1));
            AbortedRange fence =
                    new AbortedRange(failed, checkpoint.getOrDefault(failed, 0L), ends.get(failed));
            try (FenceLog fenceLog = store.openFenceLog(streamTable)) {
                fenceLog.record(fence);
            }
            step(
                    "Suppose the writer of "
                            + show.partitionBucket(failed)
                            + " failed after the second flush and restarted from the checkpoint."
                            + "\n   It records the fence [start, end) = ["
                            + fence.startOffset()
                            + ", "
                            + fence.endOffset()
                            + ") in the fence log before it writes anything again.");

            List<StreamRecord> visible;
            long skipped;
            try (FencedStreamReader reader =
                    new FencedStreamReader(
                            store.createReader(streamTable), store.openFenceLog(streamTable))) {
                visible = readAll(reader, ends);
                skipped = reader.skippedRecords();
            }
            step("Read again through FencedStreamReader:");
            show.records(visible);
            System.out.printf(
                    "   %d of %d records skipped: offsets [%d, %d) of %s are fenced.%n",
                    skipped,
                    all.size(),
                    fence.startOffset(),
                    fence.endOffset(),
                    show.partitionBucket(failed));
        }
    }

    private static FileStoreTable createPaimonTable(Path warehouse) throws Exception {
        try (Catalog catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(
                                new org.apache.paimon.fs.Path(warehouse.toUri().toString())))) {
            catalog.createDatabase(ORDERS.getDatabaseName(), false);
            catalog.createTable(
                    ORDERS,
                    Schema.newBuilder()
                            .column("order_id", DataTypes.INT())
                            .column("customer", DataTypes.STRING())
                            .column("amount", DataTypes.DECIMAL(10, 2))
                            .column("dt", DataTypes.STRING())
                            .primaryKey("dt", "order_id")
                            .partitionKeys("dt")
                            .option("bucket", "4")
                            .build(),
                    false);
            return (FileStoreTable) catalog.getTable(ORDERS);
        }
    }

    private static GenericRow order(
            RowKind kind, int orderId, String customer, String amount, String dt) {
        return GenericRow.ofKind(
                kind,
                orderId,
                BinaryString.fromString(customer),
                Decimal.fromBigDecimal(new BigDecimal(amount), 10, 2),
                BinaryString.fromString(dt));
    }

    /** The partition-bucket Paimon's own writer would put the row in. */
    private static PartitionBucket partitionBucketOf(
            KeyAndBucketExtractor<InternalRow> buckets, InternalRow row) {
        buckets.setRecord(row);
        // the extractor reuses its partition row for the next record
        return new PartitionBucket(buckets.partition().copy(), buckets.bucket());
    }

    private static void write(
            StreamWriter writer, KeyAndBucketExtractor<InternalRow> buckets, InternalRow... rows) {
        for (InternalRow row : rows) {
            writer.write(partitionBucketOf(buckets, row), row);
        }
    }

    /** Reads every partition-bucket of {@code ends} from offset 0 up to its end offset. */
    private static List<StreamRecord> readAll(
            StreamReader reader, Map<PartitionBucket, Long> ends) {
        ends.forEach((pb, end) -> reader.subscribe(pb, 0, end));
        Set<PartitionBucket> reading = new HashSet<>(ends.keySet());
        List<StreamRecord> records = new ArrayList<>();
        long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
        while (!reading.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Timed out reading the stream table; still reading " + reading);
            }
            records.addAll(reader.poll(Duration.ofMillis(200)));
            reading.removeAll(reader.finished());
        }
        return records;
    }

    private static void step(String message) {
        System.out.println("-> " + message);
    }

    /** Prints partition-buckets, offsets and rows as column values rather than binary rows. */
    private static final class Rendering {

        private final RowType rowType;
        private final RowType partitionType;
        private final InternalRow.FieldGetter[] fields;
        private final InternalRow.FieldGetter[] partitionFields;

        Rendering(StreamTableSpec spec) {
            this.rowType = spec.rowType();
            this.partitionType = spec.partitionType();
            this.fields = getters(rowType);
            this.partitionFields = getters(partitionType);
        }

        private static InternalRow.FieldGetter[] getters(RowType type) {
            InternalRow.FieldGetter[] getters = new InternalRow.FieldGetter[type.getFieldCount()];
            for (int i = 0; i < getters.length; i++) {
                getters[i] = InternalRow.createFieldGetter(type.getTypeAt(i), i);
            }
            return getters;
        }

        String partitionBucket(PartitionBucket pb) {
            return values(partitionType, partitionFields, pb.partition())
                    + " bucket "
                    + pb.bucket();
        }

        String row(InternalRow row) {
            return "(" + values(rowType, fields, row) + ")";
        }

        private static String values(
                RowType type, InternalRow.FieldGetter[] getters, InternalRow row) {
            List<String> values = new ArrayList<>(getters.length);
            for (int i = 0; i < getters.length; i++) {
                values.add(type.getFieldNames().get(i) + "=" + getters[i].getFieldOrNull(row));
            }
            return String.join(", ", values);
        }

        void offsets(Map<PartitionBucket, Long> offsets) {
            List<String> lines = new ArrayList<>();
            offsets.forEach((pb, end) -> lines.add(partitionBucket(pb) + ": " + end));
            lines.sort(null);
            lines.forEach(line -> System.out.println("     " + line));
        }

        void records(List<StreamRecord> records) {
            List<StreamRecord> sorted = new ArrayList<>(records);
            sorted.sort(
                    Comparator.comparing((StreamRecord r) -> partitionBucket(r.partitionBucket()))
                            .thenComparingLong(StreamRecord::offset));
            for (StreamRecord record : sorted) {
                System.out.printf(
                        "     %s offset %d: %s %s%n",
                        partitionBucket(record.partitionBucket()),
                        record.offset(),
                        record.rowKind().shortString(),
                        row(record.row()));
            }
        }
    }
}
