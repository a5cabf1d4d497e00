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

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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

    /** The rate of the datagen sources: a job of 3,000 rows runs for about a minute. */
    static final int ROWS_PER_SECOND = 50;

    static final Duration JOB_TIMEOUT = Duration.ofMinutes(5);

    static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(2);

    private final String name;
    private final Path runDir;
    private FlussProcessCluster fluss;
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
            scenario.flink =
                    FlinkProcessCluster.start(scenario.runDir.resolve("flink"), 2, flinkConfig);
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
        script.append(insertJob(jobName, tables, rows));
        List<String> output = sqlClient.run(jobName + "-start", script.toString());
        String jobId = lastJobId(output);
        log("Started job %s writing %d rows into %s", jobId, rows, tables);
        return jobId;
    }

    /**
     * The statements of a streaming INSERT of the ids 1 to {@code rows} into each of {@code
     * tables}, from one rate-limited datagen source, with a checkpoint interval long enough that
     * the tests trigger the checkpoints they need.
     */
    static String insertJob(String jobName, List<String> tables, int rows) {
        StringBuilder script = new StringBuilder();
        String source = "default_catalog.default_database.ids_" + jobName.replace('-', '_');
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
     * plain Paimon table of the same columns (append if the source is, keyed by {@code id} if it
     * is), committed every few seconds. {@link #awaitCopy} then checks that the reader delivered
     * every row exactly once, also after a fault it ran through. Returns the reader job's id.
     */
    String startCopyJob(String table, boolean primaryKey) throws Exception {
        return startCopyJob(table, primaryKey, null);
    }

    /**
     * Starts a reader as {@link #startCopyJob(String, boolean)} does, reading with {@code
     * 'lake-stream.read.isolation' = isolation} ({@code read-committed} is the reader of an append
     * table that must see no row twice across a failover of the writing job), or the default if
     * null.
     */
    String startCopyJob(String table, boolean primaryKey, String isolation) throws Exception {
        String hint =
                isolation == null
                        ? ""
                        : String.format(
                                " /*+ OPTIONS('lake-stream.read.isolation' = '%s') */", isolation);
        String copy = table + "_copy";
        String ddl = primaryKey ? primaryKeyTable(copy, 1) : appendTable(copy, 1);
        StringBuilder script = new StringBuilder(catalog());
        script.append(ddl).append(";\n");
        script.append("SET 'execution.runtime-mode' = 'streaming';\n");
        script.append("SET 'table.dml-sync' = 'false';\n");
        // the copy is plain Paimon, visible at its commits: commit often
        script.append("SET 'execution.checkpointing.interval' = '3 s';\n");
        script.append(
                String.format(
                        "INSERT INTO %s.%s SELECT id, payload FROM %s.%s%s;%n",
                        DATABASE, copy, DATABASE, table, hint));
        String jobId = lastJobId(sqlClient.run("copy-" + table, script.toString()));
        log("Started reader job %s copying %s into %s", jobId, table, copy);
        return jobId;
    }

    /**
     * Waits until the copy that {@link #startCopyJob} started holds as many rows as {@code
     * expectedIds}, cancels the reader job, and checks that the copy holds exactly those ids, each
     * once, in Paimon's own read.
     */
    void awaitCopy(String readerJobId, String table, List<Long> expectedIds) throws Exception {
        String copy = table + "_copy";
        long deadline = System.nanoTime() + JOB_TIMEOUT.toNanos();
        List<Long> ids = paimonIds(copy);
        while (ids.size() < expectedIds.size() && System.nanoTime() < deadline) {
            Thread.sleep(1000);
            ids = paimonIds(copy);
        }
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
            if (fluss != null) {
                fluss.close();
            }
        }
        log("Stopped the Flink and Fluss processes in %d ms", millisSince(start));
    }
}
