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

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Lake-stream mode in Flink SQL, side by side with Paimon alone: create a Paimon table with
 * history, turn lake-stream mode on in place, run a streaming INSERT whose checkpoints (and so its
 * Paimon commits) are {@code quickstart.checkpoint-seconds} apart, and while it runs, read the
 * table three times, through lake-stream mode in Flink and in Spark (Structured Streaming through
 * the lake-stream Spark catalog, in this JVM) and through Paimon alone, printing every two seconds
 * how many of the new rows each read has seen and how long after its write each row was seen. It
 * ends with a verdict from the measured figures, the status procedure's rows, and stops everything
 * it started.
 *
 * <p>Run it from the repository root with {@code mvn -B -q install -DskipTests && mvn -B -q -pl
 * examples exec:exec}. It needs nothing but a JDK. Options ({@code -D} on the second command):
 * {@code quickstart.seconds} (how long the INSERT runs, default 70), {@code
 * quickstart.checkpoint-seconds} (default 30), {@code quickstart.rate} (rows per second, default
 * 10), {@code quickstart.store} ({@code fluss}, the default, or {@code memory}: the process-local
 * store, which needs no Fluss cluster), {@code quickstart.fluss} (host:port of an existing Fluss
 * cluster instead of a local one) and {@code quickstart.warehouse} (an existing warehouse URI
 * instead of a temporary one).
 */
public final class SqlQuickstart {

    /** The ids of the rows the streaming INSERT writes start here; the history's ids are below. */
    static final long FIRST_NEW_ID = 1_000;

    private static final List<String> LIVE_HEADER =
            Arrays.asList(
                    "elapsed",
                    "written",
                    "visible (lake-stream)",
                    "visible (Spark stream)",
                    "visible (Paimon alone)",
                    "p50/p99 lake-stream",
                    "p50/p99 Spark stream",
                    "p50/p99 Paimon alone");

    private SqlQuickstart() {}

    /** What the quickstart does: durations, rate, and where its cluster and warehouse are. */
    static final class Settings {
        int seconds = 70;
        int checkpointSeconds = 30;
        int rate = 10;

        /** The stream store: {@code fluss} or {@code memory}. */
        String store = "fluss";

        /** An existing Fluss cluster's bootstrap servers, or null to start a local one. */
        String fluss;

        /** An existing warehouse's URI, or null for a temporary one. */
        String warehouse;

        /** Where the temporary warehouse goes. */
        Path tempRoot = Paths.get(System.getProperty("java.io.tmpdir"));

        static Settings fromSystemProperties() {
            Settings settings = new Settings();
            settings.seconds = Integer.getInteger("quickstart.seconds", settings.seconds);
            settings.checkpointSeconds =
                    Integer.getInteger("quickstart.checkpoint-seconds", settings.checkpointSeconds);
            settings.rate = Integer.getInteger("quickstart.rate", settings.rate);
            settings.store = System.getProperty("quickstart.store", settings.store).trim();
            if (!settings.store.equals("fluss") && !settings.store.equals("memory")) {
                throw new IllegalArgumentException(
                        "quickstart.store is 'fluss' or 'memory', not '" + settings.store + "'.");
            }
            settings.fluss = blankToNull(System.getProperty("quickstart.fluss"));
            settings.warehouse = blankToNull(System.getProperty("quickstart.warehouse"));
            return settings;
        }

        private static String blankToNull(String value) {
            return value == null || value.isBlank() ? null : value.trim();
        }
    }

    /** The figures a run measured: rows written, and per read the latency of every new row. */
    static final class Figures {
        long written;
        List<Long> lakeStreamMillis = new ArrayList<>();
        List<Long> sparkMillis = new ArrayList<>();
        List<Long> paimonMillis = new ArrayList<>();
    }

    public static void main(String[] args) {
        Settings settings = Settings.fromSystemProperties();
        Cleanup cleanup = new Cleanup(System.out);
        // Ctrl-C: the JVM runs this hook, which stops the jobs and clusters and deletes the files
        Thread hook =
                new Thread(
                        () -> {
                            if (cleanup.pending()) {
                                System.out.println();
                                System.out.println("Interrupted: stopping what was started.");
                                cleanup.close();
                            }
                        },
                        "quickstart-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int status = 0;
        try {
            run(settings, System.out, cleanup);
        } catch (Throwable t) {
            if (!cleanup.closing()) {
                System.out.println("The quickstart failed: " + t);
                t.printStackTrace(System.err);
                status = 1;
            }
        } finally {
            cleanup.close();
        }
        // Flink's and Fluss's non-daemon threads would keep the JVM alive
        System.exit(status);
    }

    /**
     * Runs the quickstart, printing to {@code out}; what it starts is stopped by {@code cleanup}.
     */
    static Figures run(Settings settings, PrintStream out, Cleanup cleanup) throws Exception {
        long start = System.nanoTime();
        out.println("Lake-stream quickstart: Flink SQL, lake-stream mode beside Paimon alone");
        String storeOptions;
        Map<String, String> sparkStoreOptions = new LinkedHashMap<>();
        if (settings.store.equals("memory")) {
            sparkStoreOptions.put("lake-stream.store", "memory");
            out.println(
                    "-> The stream store: memory, in this JVM beside the jobs (no Fluss cluster)");
            storeOptions = "'lake-stream.store' = 'memory'";
        } else {
            String bootstrapServers = settings.fluss;
            if (bootstrapServers == null) {
                out.println(
                        "-> Starting a local Fluss cluster (ZooKeeper, a coordinator, a tablet"
                                + " server) in this JVM...");
                LocalFlussCluster fluss = LocalFlussCluster.start();
                cleanup.add("the local Fluss cluster", fluss::close);
                bootstrapServers = fluss.bootstrapServers();
                out.printf("   started at %s in %.1f s%n", bootstrapServers, seconds(start));
            } else {
                out.println("-> Using the Fluss cluster at " + bootstrapServers);
            }
            storeOptions = "'lake-stream.fluss.bootstrap.servers' = '" + bootstrapServers + "'";
            sparkStoreOptions.put("lake-stream.fluss.bootstrap.servers", bootstrapServers);
        }
        String warehouse = settings.warehouse;
        String database = "shop";
        Path scratch = Files.createTempDirectory(settings.tempRoot, "lake-stream-quickstart-spark");
        cleanup.add("the Spark read's checkpoint", () -> TemporaryDirectories.delete(scratch));
        if (warehouse == null) {
            Path dir = Files.createTempDirectory(settings.tempRoot, "lake-stream-quickstart");
            cleanup.add("the temporary warehouse", () -> TemporaryDirectories.delete(dir));
            warehouse = dir.toUri().toString();
        } else {
            // a fresh database, so that nothing of the user's warehouse is touched
            database = "lake_stream_quickstart_" + System.currentTimeMillis();
            out.println("-> Using the warehouse " + warehouse + ", database " + database);
        }
        String table = database + ".orders";

        Duration interval = Duration.ofSeconds(settings.checkpointSeconds);
        StreamTableEnvironment ddl = tableEnv(storeOptions, warehouse, null, true);
        sql(out, ddl, "CREATE DATABASE " + database);
        sql(
                out,
                ddl,
                "CREATE TABLE "
                        + table
                        + " (id BIGINT, amount DOUBLE, written_at TIMESTAMP_LTZ(3))"
                        + " WITH ('bucket' = '2', 'bucket-key' = 'id')");
        sql(
                out,
                ddl,
                "INSERT INTO "
                        + table
                        + " VALUES (1, 10.0, NOW()), (2, 20.0, NOW()), (3, 30.0, NOW())");
        out.println("-> A Paimon table with three committed rows of history.");
        sql(out, ddl, "ALTER TABLE " + table + " SET ('lake-stream.enabled' = 'true')");
        if (settings.store.equals("fluss") && settings.fluss != null) {
            // the stream table lives in the user's cluster: drop it at the end
            String warehouseUri = warehouse;
            String servers = storeOptions;
            cleanup.add(
                    "the stream table in Fluss",
                    () ->
                            tableEnv(servers, warehouseUri, null, true)
                                    .executeSql(
                                            "CALL lake.sys.disable_lake_stream(`table` => '"
                                                    + table
                                                    + "', drop_stream_table => true)")
                                    .await());
        }
        out.println("-> Lake-stream mode is on, in place: the history is kept.");

        out.println(
                "-> Starting two Flink streaming reads of the new rows (ids from "
                        + FIRST_NEW_ID
                        + "), each measuring now - written_at as it sees a row:");
        String lakeQuery = "SELECT id, written_at FROM " + table + " WHERE id >= " + FIRST_NEW_ID;
        out.println("  > " + lakeQuery);
        // Paimon alone: Paimon's own catalog on the same warehouse, streaming, looking for new
        // snapshots every second (its default is 10 s, which would measure the polling)
        String paimonQuery =
                "SELECT id, written_at FROM paimon."
                        + table
                        + " /*+ OPTIONS('continuous.discovery-interval' = '1 s') */ WHERE id >= "
                        + FIRST_NEW_ID;
        out.println("  > " + paimonQuery);
        Probe lakeStream =
                new Probe("lake-stream", tableEnv(storeOptions, warehouse, null, false), lakeQuery);
        cleanup.add("the lake-stream read", lakeStream::close);
        Probe paimon =
                new Probe(
                        "Paimon alone",
                        tableEnv(storeOptions, warehouse, null, false),
                        paimonQuery);
        cleanup.add("the Paimon-alone read", paimon::close);
        lakeStream.awaitRunning();
        paimon.awaitRunning();
        out.println(
                "-> Starting a Spark Structured Streaming read of the same rows through the"
                        + " lake-stream Spark catalog, in this JVM:");
        out.println(
                "  > spark.readStream().table(\"lake."
                        + table
                        + "\").where(\"id >= "
                        + FIRST_NEW_ID
                        + "\")");
        SparkProbe spark =
                new SparkProbe(warehouse, sparkStoreOptions, table, scratch.resolve("checkpoint"));
        cleanup.add("the Spark read", spark::close);
        spark.awaitRunning();

        StreamTableEnvironment writer = tableEnv(storeOptions, warehouse, interval, false);
        writer.executeSql(
                "CREATE TEMPORARY TABLE new_orders (id BIGINT, amount DOUBLE) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '"
                        + settings.rate
                        + "', 'fields.id.kind' = 'sequence', 'fields.id.start' = '"
                        + FIRST_NEW_ID
                        + "', 'fields.id.end' = '"
                        + (FIRST_NEW_ID + 100_000)
                        + "', 'fields.amount.min' = '1', 'fields.amount.max' = '99')");
        // NOW() is evaluated per row in streaming mode: the moment the row is written
        String insertSql = "INSERT INTO " + table + " SELECT id, amount, NOW() FROM new_orders";
        out.println("  > " + insertSql);
        JobClient insert = writer.executeSql(insertSql).getJobClient().orElseThrow();
        cleanup.add("the streaming INSERT", () -> insert.cancel().get());
        awaitRunning(insert);
        out.printf(
                "-> The INSERT writes %d rows/s and checkpoints every %d s: Paimon alone sees its"
                        + " rows at each checkpoint's commit, lake-stream within a second.%n",
                settings.rate, settings.checkpointSeconds);
        out.printf("   Watching for %d s:%n", settings.seconds);

        Figures figures = new Figures();
        long writing = System.nanoTime();
        int[] widths = LIVE_HEADER.stream().mapToInt(String::length).toArray();
        out.println(PlainTable.line(widths, LIVE_HEADER));
        out.println(PlainTable.rule(widths));
        long deadline = writing + Duration.ofSeconds(settings.seconds).toNanos();
        long next = writing;
        while (System.nanoTime() < deadline) {
            next += Duration.ofSeconds(2).toNanos();
            Thread.sleep(Math.max(0, (Math.min(next, deadline) - System.nanoTime()) / 1_000_000));
            lakeStream.check();
            paimon.check();
            spark.check();
            List<Long> lake = lakeStream.latencies();
            List<Long> sparkRead = spark.latencies();
            List<Long> alone = paimon.latencies();
            // the generator emits `rate` rows in each second it runs; the read can run ahead of
            // this estimate by the rows of the current second
            figures.written = Math.max(lake.size(), (long) (seconds(writing) * settings.rate));
            out.println(
                    PlainTable.line(
                            widths,
                            Arrays.asList(
                                    String.format("%.0f s", seconds(writing)),
                                    String.valueOf(figures.written),
                                    String.valueOf(lake.size()),
                                    String.valueOf(sparkRead.size()),
                                    String.valueOf(alone.size()),
                                    percentiles(lake),
                                    percentiles(sparkRead),
                                    percentiles(alone))));
        }
        figures.lakeStreamMillis = lakeStream.latencies();
        figures.sparkMillis = spark.latencies();
        figures.paimonMillis = paimon.latencies();

        out.println("-> The status procedure, one row per partition-bucket:");
        printTable(
                out,
                tableEnv(storeOptions, warehouse, null, true),
                "CALL lake.sys.lake_stream_status(`table` => '" + table + "')");
        out.println(verdict(figures, settings));
        out.println("-> Stopping the INSERT, the reads and the cluster, deleting the files...");
        cleanup.close();
        out.printf("Done in %.1f s.%n", seconds(start));
        return figures;
    }

    /** The one-line verdict, from the figures the run measured. */
    static String verdict(Figures figures, Settings settings) {
        List<Long> lake = figures.lakeStreamMillis;
        List<Long> alone = figures.paimonMillis;
        if (lake.isEmpty()) {
            return "Verdict: the lake-stream read saw none of the new rows; something is wrong.";
        }
        String lakePart =
                String.format(
                        "lake-stream made rows readable in p50 %s / p99 %s",
                        duration(percentile(lake, 50)), duration(percentile(lake, 99)));
        if (!figures.sparkMillis.isEmpty()) {
            lakePart +=
                    String.format(
                            " (Spark's stream: p50 %s / p99 %s)",
                            duration(percentile(figures.sparkMillis, 50)),
                            duration(percentile(figures.sparkMillis, 99)));
        }
        if (alone.isEmpty()) {
            return String.format(
                    "Verdict: %s; Paimon alone showed none of them in %d s (it commits at"
                            + " checkpoints, every %d s).",
                    lakePart, settings.seconds, settings.checkpointSeconds);
        }
        double ratio = (double) percentile(alone, 50) / Math.max(1, percentile(lake, 50));
        return String.format(
                "Verdict: %s; Paimon alone in p50 %s / p99 %s: %.0fx fresher at the median.",
                lakePart, duration(percentile(alone, 50)), duration(percentile(alone, 99)), ratio);
    }

    static long percentile(List<Long> values, int percentile) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }

    private static String percentiles(List<Long> millis) {
        if (millis.isEmpty()) {
            return "-";
        }
        return duration(percentile(millis, 50)) + " / " + duration(percentile(millis, 99));
    }

    private static String duration(long millis) {
        return millis < 10_000
                ? String.format("%.2f s", millis / 1000.0)
                : String.format("%.1f s", millis / 1000.0);
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }

    /** A local Flink environment; with checkpoints every {@code interval} when given. */
    /**
     * A local environment with the catalogs {@code lake} (lake-stream mode, with {@code
     * storeOptions}, the store's options as SQL option pairs) and {@code paimon}.
     */
    private static StreamTableEnvironment tableEnv(
            String storeOptions, String warehouse, Duration interval, boolean batch) {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, 4);
        conf.set(RestOptions.BIND_PORT, "0");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        if (interval != null) {
            env.enableCheckpointing(interval.toMillis());
            // Flink starts the first checkpoint at a random time up to the interval unless the
            // minimum pause is as long
            env.getCheckpointConfig().setMinPauseBetweenCheckpoints(interval.toMillis());
        }
        if (batch) {
            env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        }
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE CATALOG lake WITH ("
                        + "'type' = 'paimon-lakestream', "
                        + "'warehouse' = '"
                        + warehouse
                        + "', "
                        + storeOptions
                        + ")");
        tEnv.executeSql(
                "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse
                        + "')");
        tEnv.executeSql("USE CATALOG lake");
        return tEnv;
    }

    private static void sql(PrintStream out, StreamTableEnvironment tEnv, String statement)
            throws Exception {
        out.println("  > " + statement);
        tEnv.executeSql(statement).await();
    }

    /** Runs {@code query} and prints its rows under their column names. */
    private static void printTable(PrintStream out, StreamTableEnvironment tEnv, String query)
            throws Exception {
        out.println("  > " + query);
        TableResult result = tEnv.executeSql(query);
        List<List<String>> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                Row row = it.next();
                List<String> cells = new ArrayList<>();
                for (int i = 0; i < row.getArity(); i++) {
                    cells.add(Objects.toString(row.getField(i), "null"));
                }
                rows.add(cells);
            }
        }
        PlainTable.print(out, result.getResolvedSchema().getColumnNames(), rows);
    }

    private static void awaitRunning(JobClient job) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (job.getJobStatus().get() != JobStatus.RUNNING) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("A job did not start: " + job.getJobID());
            }
            Thread.sleep(100);
        }
    }

    /**
     * A streaming read that notes, for every row it sees, how long after its {@code written_at} it
     * arrived.
     */
    private static final class Probe implements AutoCloseable {

        private final String name;
        private final TableResult result;
        private final CloseableIterator<Row> rows;
        private final List<Long> latencies = new ArrayList<>();
        private final Thread thread;
        private volatile boolean closed;
        private volatile Throwable failure;

        Probe(String name, StreamTableEnvironment tEnv, String query) {
            this.name = name;
            this.result = tEnv.executeSql(query);
            this.rows = result.collect();
            this.thread = new Thread(this::read, "quickstart-read-" + name);
            thread.setDaemon(true);
            thread.start();
        }

        private void read() {
            try {
                while (rows.hasNext()) {
                    Row row = rows.next();
                    long millis =
                            System.currentTimeMillis()
                                    - ((Instant) row.getFieldAs(1)).toEpochMilli();
                    synchronized (latencies) {
                        latencies.add(millis);
                    }
                }
            } catch (Throwable t) {
                if (!closed) {
                    failure = t;
                }
            }
        }

        void awaitRunning() throws Exception {
            SqlQuickstart.awaitRunning(result.getJobClient().orElseThrow());
        }

        /** Fails when the read failed, so that a broken read is not shown as a slow one. */
        void check() {
            if (failure != null) {
                throw new IllegalStateException("The " + name + " read failed", failure);
            }
        }

        List<Long> latencies() {
            synchronized (latencies) {
                return new ArrayList<>(latencies);
            }
        }

        @Override
        public void close() throws Exception {
            closed = true;
            // closing the iterator cancels the reading job
            rows.close();
            thread.join(10_000);
        }
    }

    /**
     * What the quickstart started, stopped in reverse order exactly once: at its end, on a failure,
     * or from the shutdown hook on Ctrl-C.
     */
    static final class Cleanup {

        /** One thing to stop or delete. */
        interface Action {
            void run() throws Exception;
        }

        private final PrintStream out;
        private final Deque<String> names = new ArrayDeque<>();
        private final Deque<Action> actions = new ArrayDeque<>();
        private volatile boolean closing;

        Cleanup(PrintStream out) {
            this.out = out;
        }

        synchronized void add(String name, Action action) {
            if (closing) {
                // stopped meanwhile (Ctrl-C): stop what was just started too
                runQuietly(name, action);
                throw new IllegalStateException("Stopped");
            }
            names.push(name);
            actions.push(action);
        }

        synchronized boolean pending() {
            return !actions.isEmpty();
        }

        boolean closing() {
            return closing;
        }

        synchronized void close() {
            closing = true;
            while (!actions.isEmpty()) {
                runQuietly(names.pop(), actions.pop());
            }
        }

        private void runQuietly(String name, Action action) {
            try {
                action.run();
            } catch (Throwable t) {
                out.println("   could not stop " + name + ": " + t);
            }
        }
    }
}
