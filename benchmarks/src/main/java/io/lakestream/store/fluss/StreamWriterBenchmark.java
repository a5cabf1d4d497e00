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

import io.lakestream.LakeStreamOptions;
import io.lakestream.examples.LocalFlussCluster;
import io.lakestream.offsets.PartitionBucket;
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
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import org.apache.fluss.client.write.WriteRecord;
import org.apache.fluss.metadata.PhysicalTablePath;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.row.indexed.IndexedRow;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The per-record path of the sink's write to the Fluss stream store, in nanoseconds per record, on
 * a 5-column row of an append table and of a primary-key table, 3 partitions x 4 buckets:
 *
 * <ul>
 *   <li>{@code assignPartitionBucket}: Paimon's partition and bucket of a row, which the sink's
 *       write operator has Paimon's writer compute before it hands the row to the store writer;
 *   <li>{@code encodeRecord}: what the store writer does per record before Fluss's client takes
 *       over, without a cluster: the row encoded into Fluss's indexed format, its bucket's key
 *       looked up and Fluss's write record created;
 *   <li>{@code write}: the store writer's whole {@code write} into a Fluss cluster in this JVM,
 *       with Fluss's record accumulator; its client sends batches while records are added and holds
 *       the writer back when its buffer is full, so this is the writer's throughput against a
 *       tablet server on the same cores, not the cost of the calling thread alone. Each iteration
 *       ends with a flush.
 *   <li>{@code writeMemory}: the same write into the {@code memory} store of this process, with a
 *       flush and a commit of what was flushed every 4,096 records (the records a commit covers
 *       become evictable, as a checkpoint makes them), so that the process's budget never runs out;
 *       its records are readable in this process when the call returns.
 * </ul>
 *
 * <p>Rows, their partition-buckets and row kinds are built in the trial's setup, so that {@code
 * -prof gc} counts only what the path itself allocates.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StreamWriterBenchmark {

    private static final int ROWS = 4096;
    private static final int PARTITIONS = 3;
    private static final int BUCKETS = 4;

    /** {@code append} (no row-kind column) or {@code primary-key} (one in ten rows an update). */
    @Param({"append", "primary-key"})
    public String table;

    private java.nio.file.Path warehouse;
    private Identifier identifier;
    private FileStoreTable paimonTable;
    private KeyAndBucketExtractor<InternalRow> extractor;
    private InternalRow[] rows;
    private RowKind[] kinds;
    private PartitionBucket[] partitionBuckets;
    private int next;

    // encodeRecord: the store writer's parts, on a table info built from the stream table's layout
    private TableInfo tableInfo;
    private PhysicalTablePath[] paths;
    private PaimonRowIndexedEncoder encoder;
    private PaimonBucketKeys bucketKeys;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        warehouse = Files.createTempDirectory("stream-writer-benchmark");
        try (Catalog catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(
                                new org.apache.paimon.fs.Path(warehouse.toUri().toString())))) {
            catalog.createDatabase("bench", true);
            identifier = Identifier.create("bench", "writer_" + table.replace('-', '_'));
            Schema.Builder schema =
                    Schema.newBuilder()
                            .column("id", DataTypes.INT().notNull())
                            .column("name", DataTypes.STRING())
                            .column("amount", DataTypes.DECIMAL(10, 2))
                            .column("ts", DataTypes.TIMESTAMP(3))
                            .column("dt", DataTypes.STRING().notNull())
                            .partitionKeys("dt")
                            .option("bucket", String.valueOf(BUCKETS));
            if (isPrimaryKey()) {
                schema.primaryKey("dt", "id");
            } else {
                schema.option("bucket-key", "id");
            }
            catalog.createTable(identifier, schema.build(), false);
            paimonTable = (FileStoreTable) catalog.getTable(identifier);
        }
        extractor = paimonTable.createRowKeyExtractor();
        buildRows();

        StreamTableSpec spec = StreamTableSpec.of(identifier, paimonTable);
        FlussStreamTableLayout layout = new FlussStreamTableLayout(spec, "lake_stream_");
        tableInfo =
                TableInfo.of(
                        layout.tablePath(),
                        1L,
                        1,
                        layout.descriptor(),
                        System.currentTimeMillis(),
                        System.currentTimeMillis());
        encoder =
                new PaimonRowIndexedEncoder(
                        new FlussColumnMapping(spec, tableInfo.getRowType()),
                        tableInfo.getRowType());
        bucketKeys = PaimonBucketKeys.of(tableInfo);
        paths = new PhysicalTablePath[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            paths[p] = PhysicalTablePath.of(layout.tablePath(), "2026-12-0" + (p + 1));
        }
    }

    private boolean isPrimaryKey() {
        return "primary-key".equals(table);
    }

    /**
     * Rows of the 3 partitions interleaved, as the sink's shuffle by bucket mixes them, with the
     * partition-bucket Paimon assigns each: one object per partition-bucket, as the sink's tracker
     * hands the store writer.
     */
    private void buildRows() {
        rows = new InternalRow[ROWS];
        kinds = new RowKind[ROWS];
        partitionBuckets = new PartitionBucket[ROWS];
        Map<PartitionBucket, PartitionBucket> canonical = new HashMap<>();
        long epochMillis = 1_796_000_000_000L;
        for (int i = 0; i < ROWS; i++) {
            RowKind kind = isPrimaryKey() && i % 10 == 9 ? RowKind.UPDATE_AFTER : RowKind.INSERT;
            rows[i] =
                    GenericRow.ofKind(
                            kind,
                            i,
                            BinaryString.fromString("customer-" + (i % 1000)),
                            Decimal.fromUnscaledLong(i % 100_000, 10, 2),
                            Timestamp.fromEpochMillis(epochMillis + i),
                            BinaryString.fromString("2026-12-0" + (i % PARTITIONS + 1)));
            kinds[i] = kind;
            extractor.setRecord(rows[i]);
            PartitionBucket pb =
                    new PartitionBucket(extractor.partition().copy(), extractor.bucket());
            partitionBuckets[i] = canonical.computeIfAbsent(pb, k -> k);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        deleteRecursively(warehouse);
    }

    private int nextIndex() {
        int i = next;
        next = (i + 1) & (ROWS - 1);
        return i;
    }

    @Benchmark
    public int assignPartitionBucket() {
        extractor.setRecord(rows[nextIndex()]);
        return extractor.bucket() + extractor.partition().getFieldCount();
    }

    @Benchmark
    public WriteRecord encodeRecord() {
        int i = nextIndex();
        IndexedRow encoded = encoder.encode(rows[i], kinds[i]);
        // the path of the row's partition, as the writer's partition targets keep it
        PhysicalTablePath path = paths[i % PARTITIONS];
        return WriteRecord.forIndexedAppend(
                tableInfo, path, encoded, bucketKeys.keyOf(partitionBuckets[i].bucket()));
    }

    @Benchmark
    public void write(ClusterWriter cluster) {
        int i = nextIndex();
        cluster.writer.write(partitionBuckets[i], kinds[i], rows[i]);
    }

    @Benchmark
    public void writeMemory(MemoryWriter memory) {
        int i = nextIndex();
        memory.writer.write(partitionBuckets[i], kinds[i], rows[i]);
        if (i == ROWS - 1) {
            memory.store.advanceCommittedOffsets(memory.table, memory.writer.flush());
        }
    }

    /** The {@code memory} store of this process with the benchmark's stream table and a writer. */
    @State(Scope.Benchmark)
    public static class MemoryWriter {

        private StreamStore store;
        private StreamTable table;
        private StreamWriter writer;

        @Setup(Level.Trial)
        public void start(StreamWriterBenchmark benchmark) {
            Map<String, String> options = new HashMap<>();
            options.put(LakeStreamOptions.STORE.key(), "memory");
            store = StreamStoreLoader.create(options, StreamWriterBenchmark.class.getClassLoader());
            table =
                    store.provision(
                            StreamTableSpec.of(benchmark.identifier, benchmark.paimonTable));
            writer = store.createWriter(table);
        }

        @TearDown(Level.Trial)
        public void stop() {
            writer.close();
            store.close();
        }
    }

    /**
     * A Fluss cluster in this JVM with the stream table of the benchmark's Paimon table, and a
     * store writer to it: started once per trial, only for {@code write}.
     */
    @State(Scope.Benchmark)
    public static class ClusterWriter {

        private LocalFlussCluster fluss;
        private StreamStore store;
        private StreamWriter writer;

        @Setup(Level.Trial)
        public void start(StreamWriterBenchmark benchmark) throws Exception {
            fluss = LocalFlussCluster.start();
            store =
                    StreamStoreLoader.create(
                            fluss.lakeStreamOptions(),
                            StreamWriterBenchmark.class.getClassLoader());
            StreamTable streamTable =
                    store.provision(
                            StreamTableSpec.of(benchmark.identifier, benchmark.paimonTable));
            writer = store.createWriter(streamTable);
            // every partition exists before the first measured record
            for (int i = 0; i < ROWS; i++) {
                writer.write(benchmark.partitionBuckets[i], benchmark.kinds[i], benchmark.rows[i]);
            }
            writer.flush();
        }

        /** Each iteration's records are durable before the next one starts. */
        @TearDown(Level.Iteration)
        public void flush() {
            writer.flush();
        }

        @TearDown(Level.Trial)
        public void stop() throws Exception {
            try {
                writer.close();
                store.close();
            } finally {
                fluss.close();
            }
        }
    }

    private static void deleteRecursively(java.nio.file.Path dir) throws IOException {
        try (Stream<java.nio.file.Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder())
                    .map(java.nio.file.Path::toFile)
                    .forEach(java.io.File::delete);
        }
    }
}
