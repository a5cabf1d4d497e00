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

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
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
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Measures the Fluss stream store on a local cluster in this JVM: one writer appending the records
 * of a primary-key table through Paimon's bucket assignment, with a flush (a checkpoint's seal)
 * every 100,000 records, then one reader reading them all back. It prints figures and asserts
 * nothing; run it with {@code -Dquickstart=io.lakestream.examples.StreamStoreBenchmark}, and set
 * {@code -Dbenchmark.records} and {@code -Dbenchmark.rounds} to change its size.
 */
public final class StreamStoreBenchmark {

    private static final int FLUSH_EVERY = 100_000;
    private static final Duration READ_TIMEOUT = Duration.ofMinutes(5);

    private StreamStoreBenchmark() {}

    public static void main(String[] args) throws Exception {
        int records = Integer.getInteger("benchmark.records", 1_000_000);
        int rounds = Integer.getInteger("benchmark.rounds", 3);
        System.out.printf(
                "Stream store benchmark: %,d records per round, %d rounds, one writer and one "
                        + "reader, a primary-key table (id INT, name STRING, amount DECIMAL(10, "
                        + "2), ts TIMESTAMP(3), dt STRING) with 2 partitions x 4 buckets%n",
                records, rounds);
        Path warehouse = Files.createTempDirectory("lake-stream-benchmark");
        try (LocalFlussCluster fluss = LocalFlussCluster.start();
                StreamStore store =
                        StreamStoreLoader.create(
                                fluss.lakeStreamOptions(),
                                StreamStoreBenchmark.class.getClassLoader());
                Catalog catalog =
                        CatalogFactory.createCatalog(
                                CatalogContext.create(
                                        new org.apache.paimon.fs.Path(
                                                warehouse.toUri().toString())))) {
            catalog.createDatabase("bench", false);
            List<Double> writeRates = new ArrayList<>();
            List<Double> readRates = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                Identifier identifier = Identifier.create("bench", "round_" + round);
                FileStoreTable table = createTable(catalog, identifier);
                StreamTable streamTable = store.provision(StreamTableSpec.of(identifier, table));
                long started = System.nanoTime();
                Map<PartitionBucket, Long> ends = write(store, streamTable, table, records);
                double writeSeconds = (System.nanoTime() - started) / 1e9;
                started = System.nanoTime();
                long read = read(store, streamTable, ends);
                double readSeconds = (System.nanoTime() - started) / 1e9;
                if (read != records) {
                    throw new IllegalStateException(
                            "Read " + read + " records back, but wrote " + records);
                }
                writeRates.add(records / writeSeconds);
                readRates.add(records / readSeconds);
                System.out.printf(
                        "round %d: wrote %,d records in %.2f s (%,.0f records/s), read them back "
                                + "in %.2f s (%,.0f records/s)%n",
                        round,
                        records,
                        writeSeconds,
                        records / writeSeconds,
                        readSeconds,
                        records / readSeconds);
            }
            System.out.printf(
                    "median: write %,.0f records/s, read %,.0f records/s%n",
                    median(writeRates), median(readRates));
        } finally {
            TemporaryDirectories.delete(warehouse);
        }
        // Fluss's non-daemon threads would keep the JVM alive
        System.exit(0);
    }

    private static FileStoreTable createTable(Catalog catalog, Identifier identifier)
            throws Exception {
        catalog.createTable(
                identifier,
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("name", DataTypes.STRING())
                        .column("amount", DataTypes.DECIMAL(10, 2))
                        .column("ts", DataTypes.TIMESTAMP(3))
                        .column("dt", DataTypes.STRING())
                        .primaryKey("dt", "id")
                        .partitionKeys("dt")
                        .option("bucket", "4")
                        .build(),
                false);
        return (FileStoreTable) catalog.getTable(identifier);
    }

    private static Map<PartitionBucket, Long> write(
            StreamStore store, StreamTable streamTable, FileStoreTable table, int records) {
        KeyAndBucketExtractor<org.apache.paimon.data.InternalRow> buckets =
                table.createRowKeyExtractor();
        BinaryString[] days = {
            BinaryString.fromString("2026-12-01"), BinaryString.fromString("2026-12-02")
        };
        long epochMillis = 1_796_000_000_000L;
        Set<PartitionBucket> written = new HashSet<>();
        try (StreamWriter writer = store.createWriter(streamTable)) {
            for (int i = 0; i < records; i++) {
                GenericRow row =
                        GenericRow.ofKind(
                                i % 10 == 9 ? RowKind.UPDATE_AFTER : RowKind.INSERT,
                                i,
                                BinaryString.fromString("customer-" + (i % 1000)),
                                Decimal.fromUnscaledLong(i % 100_000, 10, 2),
                                Timestamp.fromEpochMillis(epochMillis + i),
                                days[i & 1]);
                buckets.setRecord(row);
                PartitionBucket pb = new PartitionBucket(buckets.partition(), buckets.bucket());
                if (!written.contains(pb)) {
                    // a copy: the extractor reuses its partition row
                    written.add(new PartitionBucket(pb.partition().copy(), pb.bucket()));
                }
                writer.write(pb, row);
                if (i % FLUSH_EVERY == FLUSH_EVERY - 1) {
                    writer.flush();
                }
            }
            writer.flush();
        }
        return store.listOffsets(streamTable, written, OffsetPosition.LATEST);
    }

    private static long read(
            StreamStore store, StreamTable streamTable, Map<PartitionBucket, Long> ends) {
        long read = 0;
        try (StreamReader reader = store.createReader(streamTable)) {
            ends.forEach((pb, end) -> reader.subscribe(pb, 0, end));
            Set<PartitionBucket> reading = new HashSet<>(ends.keySet());
            long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
            while (!reading.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Timed out reading; still reading " + reading);
                }
                read += reader.poll(Duration.ofMillis(200)).size();
                reading.removeAll(reader.finished());
            }
        }
        return read;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
