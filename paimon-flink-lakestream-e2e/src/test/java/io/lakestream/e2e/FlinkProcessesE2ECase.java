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

package io.lakestream.e2e;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lake-stream mode where users run it: a Flink session cluster of OS processes (a JobManager and
 * two TaskManagers on the jars of Flink's {@code lib/} plus those {@code docs/deploy.md} lists) and
 * a Fluss cluster of OS processes (ZooKeeper, a coordinator, three tablet servers, stream tables
 * replicated twice), statements submitted through Flink's SQL client with {@code -f}. Each test
 * writes a bounded datagen sequence into enabled tables that already hold history, reads them
 * through the SQL client while the job runs, kills a process with SIGKILL mid-stream, and checks
 * that every row is in the table exactly once: in Paimon's own read (the oracle) and in a union
 * read. The recovery times are printed.
 *
 * <p>The processes' configuration, data and logs are under {@code target/e2e/flink-processes-*}.
 */
@ExtendWith(NoProcessLeftBehind.class)
class FlinkProcessesE2ECase {

    private static final String DATABASE = "e2e";

    /** Rows of history each table holds before it is enabled: ids -1 to -HISTORY. */
    private static final int HISTORY = 6;

    /** The rate of the datagen sources: a job of ROWS rows runs for about a minute. */
    private static final int ROWS_PER_SECOND = 50;

    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(5);

    private static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(2);

    private static Path runDir;
    private static FlussProcessCluster fluss;
    private static FlinkProcessCluster flink;
    private static FlinkSqlClient sqlClient;

    @BeforeAll
    static void startClusters() throws Exception {
        Path e2eDir = Paths.get(System.getProperty("basedir", "."), "target", "e2e");
        Files.createDirectories(e2eDir);
        runDir = Files.createTempDirectory(e2eDir, "flink-processes-");
        long start = System.nanoTime();
        // three tablet servers and two replicas: a stream table outlives the loss of one server
        fluss = FlussProcessCluster.start(runDir.resolve("fluss"), 3, 2);
        log("Started %s in %d ms", fluss, millisSince(start));
        start = System.nanoTime();
        flink = FlinkProcessCluster.start(runDir.resolve("flink"), 2, Collections.emptyMap());
        log("Started %s in %d ms", flink, millisSince(start));
        sqlClient = FlinkSqlClient.of(flink, runDir.resolve("sql-client"));
    }

    @AfterAll
    static void stopClusters() throws Exception {
        long start = System.nanoTime();
        try {
            if (flink != null) {
                flink.close();
            }
        } finally {
            if (fluss != null) {
                fluss.close();
            }
        }
        log("Stopped the Flink and Fluss processes in %d ms", millisSince(start));
    }

    /**
     * An append table and a primary-key table, written by one job: the union read sees rows that no
     * snapshot holds yet; the TaskManager that runs the job is killed after a checkpoint, a new one
     * takes its place, the job restores and writes the rows after the checkpoint again; no read
     * returns a row twice.
     */
    @Test
    void taskManagerKilledMidStream() throws Exception {
        String events = "events_tm";
        String orders = "orders_tm";
        int rows = 3000;
        String jobId =
                startJob(
                        "tm-kill",
                        List.of(
                                appendTable(events, 2),
                                "CREATE TABLE "
                                        + DATABASE
                                        + "."
                                        + orders
                                        + " (id BIGINT, payload STRING, PRIMARY KEY (id) NOT"
                                        + " ENFORCED) WITH ('bucket' = '2')"),
                        rows);

        try (JobWatch watch = new JobWatch(flink, jobId)) {
            awaitFullyRunning(jobId);
            Thread.sleep(3000);
            // the checkpoint interval is long: nothing the job wrote is in a snapshot yet
            long checkpointsBefore = flink.completedCheckpoints(jobId);
            List<String> midStream = sqlClient.run("tm-kill-mid-stream", counts(events, orders));
            assertThat(checkpointsBefore + flink.completedCheckpoints(jobId)).isZero();
            for (String table : List.of(events, orders)) {
                long[] lake = FlinkSqlClient.row(midStream, "lake_" + table);
                long[] union = FlinkSqlClient.row(midStream, "union_" + table);
                log(
                        "Mid-stream %s: %d rows in Paimon, %d in the union read",
                        table, lake[0], union[0]);
                assertThat(lake[0]).as("rows of %s in Paimon", table).isEqualTo(HISTORY);
                assertThat(union[0])
                        .as("rows of %s in the union read", table)
                        .isGreaterThan(HISTORY);
                assertThat(union[1])
                        .as("distinct ids of %s in the union read", table)
                        .isEqualTo(union[0]);
            }

            // commit a part, write on past it, then crash the TaskManager that runs the job
            long checkpoint = flink.checkpoint(jobId, Duration.ofMinutes(1));
            Thread.sleep(2000);
            String victim = flink.taskManagerOf(jobId);
            long kill = System.nanoTime();
            flink.killTaskManager(victim);
            String replacement = flink.startTaskManager();
            flink.awaitTaskManagers(Set.of(replacement));
            Duration recovery = watch.awaitRecovered(kill, RECOVERY_TIMEOUT);
            assertThat(recovery)
                    .as(
                            "recovery of job %s after the kill; its exceptions: %s",
                            jobId, flink.jobExceptions(jobId))
                    .isNotNull();
            log(
                    "RECOVERY TaskManager %s killed after checkpoint %d: job %s ran again with "
                            + "all tasks after %d ms (replacement %s registered after %d ms)",
                    victim, checkpoint, jobId, recovery.toMillis(), replacement, millisSince(kill));

            // the restored writer fenced what the failed attempt wrote past the checkpoint
            List<String> afterRecovery =
                    sqlClient.run("tm-kill-after-recovery", counts(events, orders));
            for (String table : List.of(events, orders)) {
                long[] union = FlinkSqlClient.row(afterRecovery, "union_" + table);
                log("After the recovery %s: %d rows in the union read", table, union[0]);
                assertThat(union[1])
                        .as("distinct ids of %s in the union read", table)
                        .isEqualTo(union[0]);
            }

            flink.awaitFinished(jobId, JOB_TIMEOUT);
            log("Job %s finished after %d restarts", jobId, flink.jobRestarts(jobId));
        }
        assertEveryRowOnce(rows, events, orders);
    }

    /**
     * One of the three Fluss tablet servers is killed while the job writes and restarted on its
     * data: the stream table's replicas on the other servers take over its buckets.
     */
    @Test
    void flussTabletServerKilledMidStream() throws Exception {
        String events = "events_ts";
        int rows = 2000;
        // more buckets than tablet servers: the killed server leads some of them
        String jobId = startJob("ts-kill", List.of(appendTable(events, 4)), rows);

        try (JobWatch watch = new JobWatch(flink, jobId)) {
            awaitFullyRunning(jobId);
            Thread.sleep(2000);
            long checkpoint = flink.checkpoint(jobId, Duration.ofMinutes(1));
            Thread.sleep(2000);
            // the leader of a bucket the job writes; its in-sync follower takes over
            List<Integer> replicas = fluss.leaderAndIsr(DATABASE, events, 0);
            assertThat(replicas).as("leader and in-sync replicas of bucket 0").hasSize(2);
            int victim = replicas.get(0);
            long pid = fluss.tabletServer(victim).pid();
            long kill = System.nanoTime();
            fluss.killTabletServer(victim);
            fluss.awaitTabletServerUnregistered(victim);
            fluss.startTabletServer(victim);
            fluss.awaitTabletServers();
            long restarted = millisSince(kill);

            flink.awaitFinished(jobId, JOB_TIMEOUT);
            long restarts = flink.jobRestarts(jobId);
            Duration recovery = watch.recoveredAfter(kill);
            log(
                    "RECOVERY Fluss tablet server %d (pid %d), leader of bucket 0 (replicas %s), "
                            + "killed after checkpoint %d, registered again after %d ms; "
                            + "job %s: %s, %d restarts",
                    victim,
                    pid,
                    replicas,
                    checkpoint,
                    restarted,
                    jobId,
                    recovery == null
                            ? "kept running"
                            : "ran again with all tasks after " + recovery.toMillis() + " ms",
                    restarts);
        }
        assertEveryRowOnce(rows, events);
    }

    /**
     * Creates the tables with history (plain Paimon tables, a few INSERTs), enables lake-stream
     * mode on them, and starts a streaming INSERT of the ids 1 to {@code rows} into each of them
     * from one rate-limited datagen source; returns the job's id.
     */
    private static String startJob(String name, List<String> createTables, int rows)
            throws Exception {
        List<String> tables =
                createTables.stream()
                        .map(ddl -> ddl.split("\\s+")[2].substring(DATABASE.length() + 1))
                        .collect(Collectors.toList());
        StringBuilder script = new StringBuilder(catalog());
        script.append("CREATE DATABASE IF NOT EXISTS ").append(DATABASE).append(";\n");
        createTables.forEach(ddl -> script.append(ddl).append(";\n"));
        script.append("SET 'execution.runtime-mode' = 'batch';\n");
        script.append("SET 'table.dml-sync' = 'true';\n");
        for (String table : tables) {
            // history in two commits, before lake-stream mode
            for (int first = 1; first <= HISTORY; first += HISTORY / 2) {
                List<String> values = new ArrayList<>();
                for (int id = first; id < first + HISTORY / 2; id++) {
                    values.add("(" + -id + ", 'history-" + id + "')");
                }
                script.append(
                        String.format(
                                "INSERT INTO %s.%s VALUES %s;%n",
                                DATABASE, table, String.join(", ", values)));
            }
            script.append(
                    String.format(
                            "ALTER TABLE %s.%s SET ('lake-stream.enabled' = 'true');%n",
                            DATABASE, table));
        }
        String source = "default_catalog.default_database.ids_" + name.replace('-', '_');
        script.append("SET 'execution.runtime-mode' = 'streaming';\n");
        script.append("SET 'table.dml-sync' = 'false';\n");
        // long: union reads see what no snapshot holds; the tests trigger the checkpoints
        script.append("SET 'execution.checkpointing.interval' = '10 min';\n");
        script.append(
                String.format(
                        "CREATE TEMPORARY TABLE %s (id BIGINT) WITH ('connector' = 'datagen', "
                                + "'rows-per-second' = '%d', 'fields.id.kind' = 'sequence', "
                                + "'fields.id.start' = '1', 'fields.id.end' = '%d');%n",
                        source, ROWS_PER_SECOND, rows));
        script.append("EXECUTE STATEMENT SET BEGIN\n");
        for (String table : tables) {
            script.append(
                    String.format(
                            "INSERT INTO %s.%s SELECT id, CONCAT('%s-', CAST(id AS STRING)) "
                                    + "FROM %s;%n",
                            DATABASE, table, table, source));
        }
        script.append("END;\n");
        List<String> output = sqlClient.run(name + "-start", script.toString());
        List<String> jobIds = FlinkSqlClient.jobIds(output);
        assertThat(jobIds).as("job ids printed by the SQL client: %s", output).isNotEmpty();
        String jobId = jobIds.get(jobIds.size() - 1);
        log("Started job %s writing %d rows into %s", jobId, rows, tables);
        return jobId;
    }

    private static String appendTable(String name, int buckets) {
        return String.format(
                "CREATE TABLE %s.%s (id BIGINT, payload STRING) WITH ('bucket' = '%d', "
                        + "'bucket-key' = 'id')",
                DATABASE, name, buckets);
    }

    private static String catalog() {
        return String.format(
                "CREATE CATALOG lake WITH ('type' = 'paimon-lakestream', 'warehouse' = '%s', "
                        + "'lake-stream.fluss.bootstrap.servers' = '%s');%nUSE CATALOG lake;%n",
                warehouse().toUri(), fluss.bootstrapServers());
    }

    /**
     * A script that prints, per table, a row {@code union_<table>} of the union read and a row
     * {@code lake_<table>} of the lake part only: rows, distinct ids, smallest and largest id.
     */
    private static String counts(String... tables) {
        StringBuilder script = new StringBuilder(catalog());
        script.append("SET 'execution.runtime-mode' = 'batch';\n");
        for (String table : tables) {
            String select =
                    "SELECT '%s_%s', COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM %s.%s%s;%n";
            script.append(String.format(select, "union", table, DATABASE, table, ""));
            script.append(
                    String.format(
                            select,
                            "lake",
                            table,
                            DATABASE,
                            table,
                            " /*+ OPTIONS('lake-stream.read.lake-only' = 'true') */"));
        }
        return script.toString();
    }

    /**
     * Every id of the history and of the datagen sequence is in each table exactly once: in
     * Paimon's own read, and in the union and lake reads through the SQL client.
     */
    private static void assertEveryRowOnce(int rows, String... tables) throws Exception {
        List<Long> expected =
                LongStream.rangeClosed(-HISTORY, rows)
                        .filter(id -> id != 0)
                        .boxed()
                        .collect(Collectors.toList());
        List<String> output = sqlClient.run("final-" + tables[0], counts(tables));
        long[] expectedCounts = {expected.size(), expected.size(), -HISTORY, rows};
        for (String table : tables) {
            List<Long> paimon = paimonIds(table);
            log("%s: %d rows in Paimon's read, %d expected", table, paimon.size(), expected.size());
            Collections.sort(paimon);
            assertThat(paimon).as("ids in Paimon's read of %s", table).isEqualTo(expected);
            assertThat(FlinkSqlClient.row(output, "union_" + table))
                    .as("rows, distinct ids, min and max id of the union read of %s", table)
                    .containsExactly(expectedCounts);
            assertThat(FlinkSqlClient.row(output, "lake_" + table))
                    .as("rows, distinct ids, min and max id of the lake read of %s", table)
                    .containsExactly(expectedCounts);
        }
    }

    /** The ids of the table's rows as Paimon reads them, through its own Java API. */
    private static List<Long> paimonIds(String table) throws Exception {
        List<Long> ids = new ArrayList<>();
        try (Catalog catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(
                                new org.apache.paimon.fs.Path(warehouse().toUri().toString())))) {
            Table paimonTable = catalog.getTable(Identifier.create(DATABASE, table));
            ReadBuilder readBuilder = paimonTable.newReadBuilder();
            try (RecordReader<InternalRow> reader =
                    readBuilder.newRead().createReader(readBuilder.newScan().plan())) {
                reader.forEachRemaining(row -> ids.add(row.getLong(0)));
            }
        }
        return ids;
    }

    private static void awaitFullyRunning(String jobId) throws Exception {
        long deadline = System.nanoTime() + RECOVERY_TIMEOUT.toNanos();
        while (!flink.jobFullyRunning(jobId)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        String.format(
                                "Job %s is not running with all its tasks after %s (state %s); "
                                        + "its exceptions: %s",
                                jobId,
                                RECOVERY_TIMEOUT,
                                flink.jobState(jobId),
                                flink.jobExceptions(jobId)));
            }
            Thread.sleep(200);
        }
    }

    private static Path warehouse() {
        return runDir.resolve("warehouse");
    }

    private static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1_000_000;
    }

    private static void log(String format, Object... args) {
        System.out.printf(
                "[%s] %s%n",
                FlinkProcessesE2ECase.class.getSimpleName(), String.format(format, args));
    }
}
