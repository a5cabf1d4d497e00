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

import io.lakestream.local.cluster.FlinkProcessCluster;
import io.lakestream.local.cluster.FlinkSqlClient;
import io.lakestream.local.cluster.FlussProcessCluster;
import io.lakestream.local.cluster.ZooKeeperProcess;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clusters and the SQL of a scenario on clusters of OS processes: a Fluss cluster (ZooKeeper, a
 * coordinator, tablet servers), a Flink session cluster (a JobManager and TaskManagers on the jars
 * of Flink's {@code lib/} plus those {@code docs/deploy.md} lists), Flink's SQL client, and a
 * Paimon warehouse on the local file system. It writes the scripts a user would (catalog, tables
 * with history, enabling lake-stream mode, a streaming {@code INSERT} of a bounded datagen
 * sequence) and checks the end state: every written id in a table exactly once, in Paimon's own
 * read (the oracle) and in the union and lake reads through the SQL client.
 *
 * <p>A test class starts one scenario in {@code @BeforeAll} and closes it in {@code @AfterAll}; the
 * processes' configuration, data and logs are under {@code target/e2e/<name>-*}.
 */
final class LakeStreamScenario implements AutoCloseable {

    static final String DATABASE = "e2e";

    /** Rows of history each table holds before it is enabled: ids -1 to -HISTORY. */
    static final int HISTORY = 6;

    /**
     * The rate of the datagen sources: a job of 5,000 rows runs for about 50 s, long enough for the
     * steps a test takes before its fault (a run of the SQL client takes 10 to 25 s on two busy
     * cores), short enough for the suite's time.
     */
    static final int ROWS_PER_SECOND = 100;

    static final Duration JOB_TIMEOUT = Duration.ofMinutes(5);

    static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(2);

    private final String name;
    private final Path runDir;
    private FlussProcessCluster fluss;
    private ZooKeeperProcess flinkZooKeeper;
    private FlinkProcessCluster flink;
    private FlinkSqlClient sqlClient;

    private LakeStreamScenario(String name, Path runDir) {
        this.name = name;
        this.runDir = runDir;
    }

    /**
     * Starts a Fluss cluster of {@code tabletServers} tablet servers whose stream tables have
     * {@code replicationFactor} replicas, and a Flink session cluster of two TaskManagers with
     * {@code flinkConfig} added to its configuration.
     */
    static LakeStreamScenario start(
            String name, int tabletServers, int replicationFactor, Map<String, String> flinkConfig)
            throws Exception {
        return start(name, tabletServers, replicationFactor, flinkConfig, false);
    }

    /**
     * Starts the clusters as {@link #start(String, int, int, Map)} does; with {@code
     * flinkHighAvailability}, the Flink cluster runs with ZooKeeper high availability on a
     * ZooKeeper of its own (not the Fluss cluster's, so that a test may stop the whole Fluss
     * cluster), and its JobManager can be killed and restarted with its jobs restored ({@link
     * FlinkProcessCluster#restartJobManager}).
     */
    static LakeStreamScenario start(
            String name,
            int tabletServers,
            int replicationFactor,
            Map<String, String> flinkConfig,
            boolean flinkHighAvailability)
            throws Exception {
        Path e2eDir = Paths.get(System.getProperty("basedir", "."), "target", "e2e");
        Files.createDirectories(e2eDir);
        LakeStreamScenario scenario =
                new LakeStreamScenario(name, Files.createTempDirectory(e2eDir, name + "-"));
        try {
            long start = System.nanoTime();
            scenario.fluss =
                    FlussProcessCluster.start(
                            scenario.runDir.resolve("fluss"), tabletServers, replicationFactor);
            scenario.log("Started %s in %d ms", scenario.fluss, millisSince(start));
            start = System.nanoTime();
            Path flinkDir = scenario.runDir.resolve("flink");
            Map<String, String> config = new LinkedHashMap<>(flinkConfig);
            if (flinkHighAvailability) {
                scenario.flinkZooKeeper =
                        ZooKeeperProcess.start(
                                flinkDir.resolve("zookeeper"),
                                flinkDir.resolve("logs"),
                                "zookeeper");
                config.putAll(highAvailabilityConfig(scenario.flinkZooKeeper, name));
            }
            scenario.flink = FlinkProcessCluster.start(flinkDir, 2, config);
            scenario.log("Started %s in %d ms", scenario.flink, millisSince(start));
            scenario.sqlClient =
                    FlinkSqlClient.of(scenario.flink, scenario.runDir.resolve("sql-client"));
            return scenario;
        } catch (Throwable t) {
            try {
                scenario.close();
            } catch (Exception e) {
                t.addSuppressed(e);
            }
            throw t;
        }
    }

    /**
     * Flink's ZooKeeper high availability on {@code zooKeeper}; the HA storage directory is already
     * in the cluster's own configuration. The ZooKeeper session timeout is the longest that
     * ZooKeeper's tick allows (twenty ticks): a restarted JobManager becomes the leader only once
     * the killed one's session expired, and a shorter one would make a busy JobManager or
     * TaskManager lose its leader for a slow heartbeat.
     */
    private static Map<String, String> highAvailabilityConfig(
            ZooKeeperProcess zooKeeper, String clusterId) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("high-availability.type", "zookeeper");
        config.put("high-availability.zookeeper.quorum", zooKeeper.connectString());
        config.put("high-availability.zookeeper.path.root", "/flink");
        config.put("high-availability.cluster-id", "/" + clusterId);
        config.put(
                "high-availability.zookeeper.client.session-timeout",
                20 * ZooKeeperProcess.TICK_MILLIS + " ms");
        return config;
    }

    FlussProcessCluster fluss() {
        return fluss;
    }

    FlinkProcessCluster flink() {
        return flink;
    }

    FlinkSqlClient sqlClient() {
        return sqlClient;
    }

    Path runDir() {
        return runDir;
    }

    Path warehouse() {
        return runDir.resolve("warehouse");
    }

    /** Runs {@code script} after the statements that create and use the catalog {@code lake}. */
    List<String> sql(String name, String script) throws Exception {
        return sqlClient.run(name, catalog() + script);
    }

    /**
     * Creates the tables with history (plain Paimon tables, a few INSERTs), enables lake-stream
     * mode on them, and starts a streaming INSERT of the ids 1 to {@code rows} into each of them
     * from one rate-limited datagen source; returns the job's id.
     */
    String startJob(String jobName, List<String> createTables, int rows) throws Exception {
        return startJobs(jobName, createTables, rows, Collections.emptyList()).get(jobName);
    }

    /**
     * As {@link #startJob}, and first starts a reader job of {@link #startCopyJob} for each of
     * {@code copiedTables}, in the same run of the SQL client (each run costs a client JVM's
     * start); returns the job ids by name: the writing job's under {@code jobName}, each reader's
     * under its table's name.
     */
    Map<String, String> startJobs(
            String jobName, List<String> createTables, int rows, List<String> copiedTables)
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
        for (String table : copiedTables) {
            boolean primaryKey =
                    createTables.stream()
                            .anyMatch(
                                    ddl ->
                                            ddl.contains("." + table + " ")
                                                    && ddl.contains("PRIMARY KEY"));
            script.append(copyJob(table, primaryKey));
        }
        script.append(insertJob(jobName, tables, rows));
        List<String> output = sqlClient.run(jobName + "-start", script.toString());
        List<String> jobIds = FlinkSqlClient.jobIds(output);
        assertThat(jobIds)
                .as("job ids printed by the SQL client: %s", output)
                .hasSize(copiedTables.size() + 1);
        Map<String, String> jobs = new LinkedHashMap<>();
        for (int i = 0; i < copiedTables.size(); i++) {
            jobs.put(copiedTables.get(i), jobIds.get(i));
            log("Started reader job %s copying %s", jobIds.get(i), copiedTables.get(i));
        }
        String jobId = jobIds.get(jobIds.size() - 1);
        jobs.put(jobName, jobId);
        log("Started job %s writing %d rows into %s", jobId, rows, tables);
        return jobs;
    }

    /**
     * The statements of a streaming INSERT of the ids 1 to {@code rows} into each of {@code
     * tables}, from one rate-limited datagen source, with a checkpoint interval long enough that
     * the tests trigger the checkpoints they need.
     */
    static String insertJob(String jobName, List<String> tables, int rows) {
        return insertJob(jobName, tables, 1, rows);
    }

    /**
     * As {@link #insertJob(String, List, int)}, with the ids {@code firstId} to {@code lastId}: a
     * job that writes a table after earlier ones writes ids of its own, so that every row of the
     * table stays distinct.
     */
    static String insertJob(String jobName, List<String> tables, long firstId, long lastId) {
        StringBuilder script = new StringBuilder();
        String source = "default_catalog.default_database.ids_" + jobName.replace('-', '_');
        script.append("SET 'execution.runtime-mode' = 'streaming';\n");
        script.append("SET 'table.dml-sync' = 'false';\n");
        // long: union reads see what no snapshot holds; the tests trigger the checkpoints
        script.append("SET 'execution.checkpointing.interval' = '10 min';\n");
        // Flink takes a job's first periodic checkpoint at a random time within the interval, not
        // at its end, but no earlier than the minimum pause; checkpoints the tests trigger are not
        // held back by it
        script.append("SET 'execution.checkpointing.min-pause' = '9 min';\n");
        script.append(
                String.format(
                        "CREATE TEMPORARY TABLE %s (id BIGINT) WITH ('connector' = 'datagen', "
                                + "'rows-per-second' = '%d', 'fields.id.kind' = 'sequence', "
                                + "'fields.id.start' = '%d', 'fields.id.end' = '%d');%n",
                        source, ROWS_PER_SECOND, firstId, lastId));
        script.append("EXECUTE STATEMENT SET BEGIN\n");
        for (String table : tables) {
            script.append(
                    String.format(
                            "INSERT INTO %s.%s SELECT id, CONCAT('%s-', CAST(id AS STRING)) "
                                    + "FROM %s;%n",
                            DATABASE, table, table, source));
        }
        script.append("END;\n");
        return script.toString();
    }

    /** The id of the last job that a run of the SQL client submitted. */
    static String lastJobId(List<String> output) {
        List<String> jobIds = FlinkSqlClient.jobIds(output);
        assertThat(jobIds).as("job ids printed by the SQL client: %s", output).isNotEmpty();
        return jobIds.get(jobIds.size() - 1);
    }

    /** An append table of {@code (id, payload)} distributed by {@code id}. */
    static String appendTable(String table, int buckets) {
        return String.format(
                "CREATE TABLE %s.%s (id BIGINT, payload STRING) WITH ('bucket' = '%d', "
                        + "'bucket-key' = 'id')",
                DATABASE, table, buckets);
    }

    /** A primary-key table of {@code (id, payload)} keyed by {@code id}. */
    static String primaryKeyTable(String table, int buckets) {
        return String.format(
                "CREATE TABLE %s.%s (id BIGINT, payload STRING, PRIMARY KEY (id) NOT ENFORCED) "
                        + "WITH ('bucket' = '%d')",
                DATABASE, table, buckets);
    }

    /** The statements that create the catalog {@code lake} on this warehouse and use it. */
    String catalog() {
        return String.format(
                "CREATE CATALOG lake WITH ('type' = 'paimon-lakestream', 'warehouse' = '%s', "
                        + "'lake-stream.fluss.bootstrap.servers' = '%s');%nUSE CATALOG lake;%n",
                warehouse().toUri(), fluss.bootstrapServers());
    }

    /**
     * A script that prints, per table, a row {@code union_<table>} of the union read and a row
     * {@code lake_<table>} of the lake part only: rows, distinct ids, smallest and largest id.
     */
    String counts(String... tables) {
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
     * Every id of the history and of the datagen sequence 1 to {@code rows} is in each table
     * exactly once: in Paimon's own read, and in the union and lake reads through the SQL client.
     */
    void assertEveryRowOnce(int rows, String... tables) throws Exception {
        List<Long> expected = expectedIds(rows);
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
    List<Long> paimonIds(String table) throws Exception {
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

    /**
     * Starts a reader that stays running across what the test does next: a streaming {@code INSERT
     * INTO <table>_copy SELECT * FROM <table>}, an unbounded union read of the enabled table into a
     * plain Paimon table of the same columns, committed every few seconds: an append copy of an
     * append table, read committed; a copy keyed by {@code id} of a primary-key table, read
     * uncommitted. {@link #awaitCopy} then checks that the reader delivered every row exactly once,
     * also after a fault it ran through. Returns the reader job's id.
     */
    String startCopyJob(String table, boolean primaryKey) throws Exception {
        String jobId =
                lastJobId(sqlClient.run("copy-" + table, catalog() + copyJob(table, primaryKey)));
        log("Started reader job %s copying %s into %s_copy", jobId, table, table);
        return jobId;
    }

    /** The statements of a reader job of {@link #startCopyJob}. */
    private static String copyJob(String table, boolean primaryKey) {
        String copy = table + "_copy";
        StringBuilder script = new StringBuilder();
        script.append(primaryKey ? primaryKeyTable(copy, 1) : appendTable(copy, 1)).append(";\n");
        script.append("SET 'execution.runtime-mode' = 'streaming';\n");
        script.append("SET 'table.dml-sync' = 'false';\n");
        // the copy is plain Paimon, visible at its commits: commit often
        script.append("SET 'execution.checkpointing.interval' = '3 s';\n");
        // An append copy reads committed records only: a read-uncommitted read may return the
        // records a failed writer attempt wrote past its checkpoint before they were fenced, and
        // the restored attempt writes those rows again (docs/consistency.md). A keyed copy reads
        // uncommitted records: such a replay overwrites the same keys.
        String hint =
                primaryKey
                        ? ""
                        : " /*+ OPTIONS('lake-stream.read.isolation' = 'read-committed') */";
        script.append(
                String.format(
                        "INSERT INTO %s.%s SELECT id, payload FROM %s.%s%s;%n",
                        DATABASE, copy, DATABASE, table, hint));
        return script.toString();
    }

    /**
     * Waits until the copy that {@link #startCopyJob} started holds as many rows as {@code
     * expectedIds}, cancels the reader job, and checks that the copy holds exactly those ids, each
     * once, in Paimon's own read.
     */
    void awaitCopy(String readerJobId, String table, List<Long> expectedIds) throws Exception {
        String copy = table + "_copy";
        List<Long> ids =
                Await.poll(
                        () -> paimonIds(copy),
                        copied -> copied.size() >= expectedIds.size(),
                        JOB_TIMEOUT,
                        Duration.ofSeconds(1));
        long restarts = flink.jobRestarts(readerJobId);
        flink.cancel(readerJobId, RECOVERY_TIMEOUT);
        log(
                "Reader job %s copied %d rows of %s (%d expected) after %d restarts",
                readerJobId, ids.size(), table, expectedIds.size(), restarts);
        Collections.sort(ids);
        assertThat(ids)
                .as("ids that the reader job %s copied from %s", readerJobId, table)
                .isEqualTo(expectedIds);
    }

    /** The ids a job of {@link #startJob} leaves in each table: the history's and 1 to rows. */
    static List<Long> expectedIds(int rows) {
        return LongStream.rangeClosed(-HISTORY, rows)
                .filter(id -> id != 0)
                .boxed()
                .collect(Collectors.toList());
    }

    /**
     * Waits until the job runs with all its tasks; fails with the job's exceptions if it does not.
     */
    void awaitFullyRunning(String jobId) throws Exception {
        Await.until(
                () -> flink.jobFullyRunning(jobId),
                RECOVERY_TIMEOUT,
                () ->
                        String.format(
                                "Job %s is not running with all its tasks after %s (state %s); "
                                        + "its exceptions: %s",
                                jobId,
                                RECOVERY_TIMEOUT,
                                flink.jobState(jobId),
                                flink.jobExceptions(jobId)));
    }

    /** The records the store holds of {@code tables}: the sum of their buckets' end offsets. */
    long storeRecords(String... tables) throws Exception {
        long records = 0;
        for (String table : tables) {
            records += fluss.endOffsets(DATABASE, table);
        }
        return records;
    }

    /**
     * Waits until the running job has written {@code records} more records of {@code tables} to the
     * store than it holds now: rows past a checkpoint, before a fault, as a state rather than a
     * time; fails with what the store holds if the job does not write them.
     */
    void awaitWrittenPast(long records, String... tables) throws Exception {
        long now = storeRecords(tables);
        Await.until(
                () -> storeRecords(tables) >= now + records,
                RECOVERY_TIMEOUT,
                () ->
                        String.format(
                                "The store holds %d records of %s, not %d more than the %d it "
                                        + "held %s before",
                                storeRecords(tables),
                                String.join(", ", tables),
                                records,
                                now,
                                RECOVERY_TIMEOUT));
    }

    static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1_000_000;
    }

    /** Prints a line of the scenario's progress to the test's output, where CI shows it. */
    void log(String format, Object... args) {
        System.out.printf("[%s] %s%n", name, String.format(format, args));
    }

    @Override
    public void close() throws Exception {
        long start = System.nanoTime();
        try {
            if (flink != null) {
                flink.close();
            }
        } finally {
            try {
                // after Flink: its processes leave ZooKeeper as they stop
                if (flinkZooKeeper != null) {
                    flinkZooKeeper.close();
                }
            } finally {
                if (fluss != null) {
                    fluss.close();
                }
            }
        }
        log("Stopped the Flink and Fluss processes in %d ms", millisSince(start));
    }
}
