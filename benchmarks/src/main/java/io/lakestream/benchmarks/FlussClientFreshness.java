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

package io.lakestream.benchmarks;

import io.lakestream.examples.LocalFlussCluster;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.writer.AppendWriter;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.metadata.DatabaseDescriptor;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.types.DataTypes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The floor of freshness that is Fluss's own: Fluss's client alone, no Flink and no lake-stream
 * code. One thread appends rows of (id, wall-clock time) at a steady rate into a log table of 4
 * buckets with Fluss's writer, another reads them with Fluss's log scanner, and the figure is the
 * time from append to poll. It runs once per fetch wait ({@code
 * client.scanner.log.fetch.wait-max-time}) and per replication factor, on an in-process cluster of
 * as many tablet servers, so that it says how much of a record's latency the tablet server's
 * holding of a fetch is.
 *
 * <p>Run with {@code mvn -B -q -pl benchmarks exec:exec
 * -Dbenchmark.main=io.lakestream.benchmarks.FlussClientFreshness}; {@code -Dbench.freshness.rate}
 * and {@code -Dbench.freshness.seconds} set the rate and the time of each run.
 */
public final class FlussClientFreshness {

    private static final long[] FETCH_WAITS_MS = {500, 100, 20};
    private static final int[] REPLICATION_FACTORS = {1, 3};
    private static final int WARM_UP_SECONDS = 3;

    private FlussClientFreshness() {}

    public static void main(String[] args) throws Exception {
        int rate = Integer.parseInt(positive("bench.freshness.rate", "2000"));
        int seconds = Integer.parseInt(positive("bench.freshness.seconds", "20"));
        System.out.printf(
                "Fluss's client alone: %,d rows/s for %d s per run, writer batch-timeout 10 ms%n",
                rate, seconds);
        List<String> lines = new ArrayList<>();
        for (int replicationFactor : REPLICATION_FACTORS) {
            try (LocalFlussCluster fluss = LocalFlussCluster.start(replicationFactor)) {
                for (long waitMs : FETCH_WAITS_MS) {
                    List<Long> latencies =
                            run(fluss.bootstrapServers(), replicationFactor, waitMs, rate, seconds);
                    String line =
                            String.format(
                                    "| %d | %d ms | %,d | %.0f | %.0f | %.0f |",
                                    replicationFactor,
                                    waitMs,
                                    latencies.size(),
                                    Stats.percentile(latencies, 50),
                                    Stats.percentile(latencies, 99),
                                    Stats.percentile(latencies, 100));
                    System.out.println(line);
                    lines.add(line);
                }
            }
        }
        System.out.println();
        System.out.println(
                "| replication factor (tablet servers) | fetch wait-max-time | rows | p50 (ms) |"
                        + " p99 (ms) | max (ms) |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        lines.forEach(System.out::println);
        // Fluss's non-daemon threads would keep the JVM alive
        System.exit(0);
    }

    private static String positive(String key, String defaultValue) {
        String value = System.getProperty(key);
        return value == null || value.isEmpty() || value.startsWith("${") ? defaultValue : value;
    }

    /** Append-to-poll latencies of the rows written after the warm-up, in milliseconds. */
    private static List<Long> run(
            String bootstrapServers, int replicationFactor, long waitMs, int rate, int seconds)
            throws Exception {
        Configuration conf = new Configuration();
        conf.setString(ConfigOptions.BOOTSTRAP_SERVERS.key(), bootstrapServers);
        conf.set(ConfigOptions.CLIENT_WRITER_BATCH_TIMEOUT, Duration.ofMillis(10));
        conf.set(ConfigOptions.CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME, Duration.ofMillis(waitMs));
        TablePath path = TablePath.of("bench", "fresh_rf" + replicationFactor + "_" + waitMs);
        try (Connection connection = ConnectionFactory.createConnection(conf);
                Admin admin = connection.getAdmin()) {
            admin.createDatabase("bench", DatabaseDescriptor.EMPTY, true).get();
            admin.createTable(
                            path,
                            TableDescriptor.builder()
                                    .schema(
                                            Schema.newBuilder()
                                                    .column("id", DataTypes.BIGINT())
                                                    .column("written_at", DataTypes.BIGINT())
                                                    .build())
                                    .distributedBy(4)
                                    .property(
                                            ConfigOptions.TABLE_REPLICATION_FACTOR.key(),
                                            String.valueOf(replicationFactor))
                                    .build(),
                            false)
                    .get();
            try (Table table = connection.getTable(path);
                    LogScanner scanner = table.newScan().createLogScanner()) {
                for (int bucket = 0; bucket < 4; bucket++) {
                    scanner.subscribeFromBeginning(bucket);
                }
                List<Long> latencies = new ArrayList<>();
                long total = (long) rate * seconds;
                long warmUp = (long) rate * WARM_UP_SECONDS;
                AtomicBoolean failed = new AtomicBoolean();
                Thread writing =
                        new Thread(
                                () -> write(table, rate, warmUp + total, failed),
                                "fluss-client-freshness-writer");
                writing.start();
                long read = 0;
                long deadline = System.nanoTime() + Duration.ofSeconds(seconds + 60).toNanos();
                while (read < warmUp + total && System.nanoTime() < deadline && !failed.get()) {
                    for (ScanRecord record : scanner.poll(Duration.ofMillis(100))) {
                        long now = System.currentTimeMillis();
                        if (record.getRow().getLong(0) >= warmUp) {
                            latencies.add(now - record.getRow().getLong(1));
                        }
                        read++;
                    }
                }
                writing.join();
                if (read < warmUp + total) {
                    throw new IllegalStateException(
                            String.format(
                                    "Read %,d of the %,d rows written to %s",
                                    read, warmUp + total, path));
                }
                return latencies;
            }
        }
    }

    /** Appends {@code rows} rows at {@code rate} rows/s, each with the time of its append. */
    private static void write(Table table, int rate, long rows, AtomicBoolean failed) {
        AppendWriter writer = table.newAppend().createWriter();
        long start = System.nanoTime();
        try {
            for (long id = 0; id < rows; id++) {
                long due = start + id * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                writer.append(GenericRow.of(id, System.currentTimeMillis()));
            }
            writer.flush();
        } catch (Exception e) {
            failed.set(true);
            throw new IllegalStateException("Writing to Fluss failed", e);
        }
    }
}
