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

package io.lakestream.flink.catalog;

import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.testutils.Await;

import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.config.TableConfigOptions;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A seeded random life of an enabled primary-key table: inserts through lake-stream mode and
 * through Paimon's own catalog (another writer), a streaming job stopped with a savepoint and
 * restored from its latest or an older one, compactions, snapshot expiry, tags, rollbacks to a tag
 * or a snapshot, columns added, renamed, dropped and added again under a dropped name (through
 * either catalog), lake-stream mode turned off and on again. After every step both isolation
 * levels' union reads equal Paimon's own read of the same warehouse (no step leaves an uncommitted
 * tail: every write is a bounded job).
 *
 * <p>The build runs {@value #DEFAULT_STEPS} steps of seed {@value #DEFAULT_SEED}. A longer run is
 * one command: {@code mvn -pl fluss-stream-store -am verify -Dtest=TableLifeRandomizedITCase
 * -Dsurefire.failIfNoSpecifiedTests=false -Dtablelife.seed=7 -Dtablelife.steps=300}. A failure
 * names the seed and the steps taken, which replay it.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class TableLifeRandomizedITCase {

    private static final long DEFAULT_SEED = 20261205L;
    private static final int DEFAULT_STEPS = 16;
    private static final int DEFAULT_STREAMING_STEPS = 10;
    private static final String[] PARTITIONS = {"a", "b", "c"};

    @TempDir static java.nio.file.Path warehouse;

    /** The table of the running test. */
    private String table;

    private final List<String> steps = new ArrayList<>();
    private final List<String> tags = new ArrayList<>();
    private TableEnvironment streaming;
    private String lifeCatalogDdl;
    private TableEnvironment batch;
    private Random random;
    private boolean enabled = true;

    /** The columns added to the table's first three, in their order. */
    private final List<String> extraColumns = new ArrayList<>();

    /** Names of extra columns dropped since: adding one again makes a new field. */
    private final List<String> droppedColumns = new ArrayList<>();

    private int columnsMade;

    /** Savepoints of streaming jobs, oldest first; kept while the job's plan still fits. */
    private final List<String> savepoints = new ArrayList<>();

    @TempDir java.nio.file.Path savepointDir;

    @Test
    void unionReadsEqualPaimonsReadAfterEveryStep() throws Exception {
        long seed = Long.getLong("tablelife.seed", DEFAULT_SEED);
        int count = Integer.getInteger("tablelife.steps", DEFAULT_STEPS);
        open("db.life_union", seed);
        for (int i = 0; i < count; i++) {
            try {
                steps.add(nextStep(i));
                assertUnionReadsEqualPaimon();
            } catch (Exception | AssertionError e) {
                throw new AssertionError(
                        String.format(
                                "Seed %d failed after step %d. Steps: %s", seed, i + 1, steps),
                        e);
            }
        }
        System.out.printf(
                "Table life, seed %d: %d steps, all union reads equal Paimon's: %s%n",
                seed, count, steps);
    }

    /**
     * A streaming union read runs from the first step while other writers, compactions, tags and
     * streaming jobs stopped and restored from savepoints change the table: after every step, its
     * changelog applied in order equals Paimon's read. (Rollbacks, disabling and added columns are
     * left out: Paimon's own streaming read does not follow the first, the second ends a running
     * read by design, the third is not in the columns the read was planned with.)
     */
    @Test
    void aStreamingReadFollowsTheTableThroughEveryStep() throws Exception {
        long seed = Long.getLong("tablelife.seed", DEFAULT_SEED);
        int count = Integer.getInteger("tablelife.streaming-steps", DEFAULT_STREAMING_STEPS);
        open("db.life_streaming", seed);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment reading = StreamTableEnvironment.create(env);
        reading.executeSql(lifeCatalogDdl);
        ChangelogFollower follower =
                ChangelogFollower.start(
                        reading,
                        "SELECT dt, id, v FROM life." + table,
                        row -> row.getField(0) + "|" + row.getField(1));
        try {
            for (int i = 0; i < count; i++) {
                try {
                    steps.add(nextFollowedStep(i));
                    Await.until(
                            () -> follower.state().equals(paimonState()),
                            "the streaming read's changelog applied equals Paimon's read");
                } catch (Exception | AssertionError e) {
                    throw new AssertionError(
                            String.format(
                                    "Seed %d failed after step %d. Read %s, Paimon %s. Steps: %s",
                                    seed,
                                    i + 1,
                                    new TreeMap<>(follower.heldRows()),
                                    paimonState(),
                                    steps),
                            e);
                }
            }
        } finally {
            follower.close();
        }
        System.out.printf(
                "Table life followed, seed %d: %d steps, the streaming read equals Paimon's: %s%n",
                seed, count, steps);
    }

    private void open(String tableName, long seed) throws Exception {
        table = tableName;
        random = new Random(seed);
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        streaming = environments.streaming(Duration.ofSeconds(1));
        batch = environments.batch();
        batch.getConfig().set(TableConfigOptions.TABLE_DML_SYNC, true);
        // both environments change the table: catalogs that cache tables would read stale schemas
        lifeCatalogDdl = environments.catalogDdl("life", ", 'cache-enabled' = 'false'");
        batch.executeSql(lifeCatalogDdl);
        streaming.executeSql(lifeCatalogDdl);
        String paimonCatalog =
                "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse.toUri()
                        + "', 'cache-enabled' = 'false')";
        batch.executeSql(paimonCatalog);
        streaming.executeSql(paimonCatalog);
        streaming
                .executeSql(
                        "CREATE TABLE life."
                                + table
                                + " (dt STRING, id INT, v STRING, PRIMARY KEY (dt, id) NOT ENFORCED)"
                                + " PARTITIONED BY (dt) WITH ('bucket' = '2',"
                                + " 'lake-stream.enabled' = 'true')")
                .await();
    }

    /** A step that a running streaming read follows. */
    private String nextFollowedStep(int index) throws Exception {
        int pick = random.nextInt(100);
        if (pick < 20) {
            return savepoints.isEmpty() || random.nextInt(5) < 2
                    ? stopWithSavepoint()
                    : restoreSavepoint();
        } else if (pick < 55) {
            return insert("life", index);
        } else if (pick < 85) {
            return insert("paimon", index);
        } else if (pick < 92) {
            call("compact(`table` => '" + table + "')");
            return "compact";
        }
        String tag = "tag" + index;
        call(
                "create_tag(`table` => '"
                        + table
                        + "', tag => '"
                        + tag
                        + "', snapshot_id => CAST("
                        + latestSnapshotId()
                        + " AS BIGINT))");
        return "tag " + tag;
    }

    /** Paimon's read of the table, keyed as the streaming read's state. */
    /** Paimon's read of the table, keyed and rendered as {@link ChangelogFollower} holds rows. */
    private Map<Object, String> paimonState() {
        Map<Object, String> state = new HashMap<>();
        for (Row row : collect(batch, "SELECT dt, id, v FROM paimon." + table)) {
            state.put(row.getField(0) + "|" + row.getField(1), row.toString());
        }
        return state;
    }

    /** Takes one random step and returns what it did. */
    private String nextStep(int index) throws Exception {
        int pick = random.nextInt(100);
        if (pick < 16 && enabled) {
            return savepoints.isEmpty() || random.nextInt(5) < 2
                    ? stopWithSavepoint()
                    : restoreSavepoint();
        } else if (pick < 35) {
            return insert("life", index);
        } else if (pick < 50) {
            return insert("paimon", index);
        } else if (pick < 58) {
            call("compact(`table` => '" + table + "')");
            return "compact";
        } else if (pick < 66) {
            call("expire_snapshots(`table` => '" + table + "', retain_min => 1, retain_max => 2)");
            return "expire snapshots, 2 kept";
        } else if (pick < 74) {
            String tag = "tag" + index;
            long latest = latestSnapshotId();
            call(
                    "create_tag(`table` => '"
                            + table
                            + "', tag => '"
                            + tag
                            + "', snapshot_id => CAST("
                            + latest
                            + " AS BIGINT))");
            tags.add(tag);
            return "tag " + tag + " at snapshot " + latest;
        } else if (pick < 80) {
            return rollback();
        } else if (pick < 84) {
            // through either catalog: the stream side follows Paimon's partition list
            String catalog = random.nextBoolean() ? "life" : "paimon";
            String dt = PARTITIONS[random.nextInt(PARTITIONS.length)];
            streaming.executeSql(
                    "ALTER TABLE "
                            + catalog
                            + "."
                            + table
                            + " DROP IF EXISTS PARTITION (dt = '"
                            + dt
                            + "')");
            return "drop partition " + dt + " through " + catalog;
        } else if (pick < 92) {
            return changeSchema(index);
        } else {
            // savepoint steps wait while the mode is off: Paimon's own sink then writes the table,
            // a topology the savepoints do not fit
            enabled = !enabled;
            streaming.executeSql(
                    "ALTER TABLE life."
                            + table
                            + " SET ('lake-stream.enabled' = '"
                            + enabled
                            + "')");
            return enabled ? "enable" : "disable";
        }
    }

    /**
     * Adds, renames or drops one of the extra columns, or adds a dropped name again (a new field),
     * through either catalog: the stream side maps columns by Paimon field id, and follows changes
     * made through Paimon's own catalog without help.
     */
    private String changeSchema(int index) throws Exception {
        String catalog = random.nextBoolean() ? "life" : "paimon";
        String alter = "ALTER TABLE " + catalog + "." + table;
        int pick = random.nextInt(4);
        String step;
        if (extraColumns.isEmpty() || (pick == 0 && extraColumns.size() < 3)) {
            String name = "c" + ++columnsMade;
            streaming.executeSql(alter + " ADD " + name + " INT");
            extraColumns.add(name);
            step = "add column " + name;
        } else if (pick == 1) {
            String from = extraColumns.get(random.nextInt(extraColumns.size()));
            String to = "c" + ++columnsMade;
            streaming.executeSql(alter + " RENAME " + from + " TO " + to);
            extraColumns.set(extraColumns.indexOf(from), to);
            step = "rename column " + from + " to " + to;
        } else if (pick == 2 && !droppedColumns.isEmpty() && extraColumns.size() < 3) {
            String name = droppedColumns.remove(random.nextInt(droppedColumns.size()));
            streaming.executeSql(alter + " ADD " + name + " INT");
            extraColumns.add(name);
            step = "add dropped column " + name + " again";
        } else {
            String name = extraColumns.remove(random.nextInt(extraColumns.size()));
            streaming.executeSql(alter + " DROP " + name);
            droppedColumns.add(name);
            step = "drop column " + name;
        }
        // the streaming job's plan writes other columns from now on
        savepoints.clear();
        return step + " through " + catalog;
    }

    /**
     * A streaming job writes generated rows with checkpoints and is stopped with a savepoint after
     * it committed; nothing stays uncommitted.
     */
    private String stopWithSavepoint() throws Exception {
        long before = latestSnapshotId();
        JobClient job = startStreamingJob(null);
        Await.until(
                () -> latestSnapshotId() >= before + 2 || isTerminal(job),
                "the streaming job commits");
        String savepoint =
                job.stopWithSavepoint(
                                false,
                                savepointDir.toUri().toString(),
                                SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        savepoints.add(savepoint);
        return "streaming job stopped with savepoint " + savepoints.size();
    }

    /**
     * The streaming job restored from its latest or an older savepoint, run to the end of its
     * input: it writes the rows after the savepoint again, over what later jobs committed.
     */
    private String restoreSavepoint() throws Exception {
        int which = random.nextInt(savepoints.size());
        JobClient job = startStreamingJob(savepoints.get(which));
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        return String.format(
                "streaming job restored from savepoint %d of %d, run to its end",
                which + 1, savepoints.size());
    }

    private JobClient startStreamingJob(@Nullable String savepoint) throws Exception {
        Configuration conf = new Configuration();
        // a restore whose savepoint holds checkpoints that no retained snapshot has (a rollback
        // went behind them) commits them and fails once on purpose, as Paimon's committer does
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(300);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(lifeCatalogDdl);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE gen (seq BIGINT) WITH ('connector' = 'datagen',"
                        + " 'rows-per-second' = '60', 'fields.seq.kind' = 'sequence',"
                        + " 'fields.seq.start' = '0', 'fields.seq.end' = '239')");
        return tEnv.executeSql(
                        "INSERT INTO life."
                                + table
                                + " SELECT CASE seq % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'b'"
                                + " ELSE 'c' END, CAST(seq % 20 AS INT),"
                                + " CONCAT('j', CAST(seq AS STRING))"
                                + ", CAST(seq AS INT)".repeat(extraColumns.size())
                                + " FROM gen")
                .getJobClient()
                .orElseThrow();
    }

    private static boolean isTerminal(JobClient job) throws Exception {
        return job.getJobStatus().get().isGloballyTerminalState();
    }

    private String insert(String catalog, int index) throws Exception {
        int rows = 1 + random.nextInt(5);
        StringBuilder values = new StringBuilder();
        for (int r = 0; r < rows; r++) {
            if (r > 0) {
                values.append(", ");
            }
            values.append(
                    String.format(
                            "('%s', %d, 's%d'%s)",
                            PARTITIONS[random.nextInt(PARTITIONS.length)],
                            random.nextInt(20),
                            index,
                            extraValues()));
        }
        streaming.executeSql("INSERT INTO " + catalog + "." + table + " VALUES " + values).await();
        return String.format("insert %d rows through %s", rows, catalog);
    }

    /** Values of the extra columns of one inserted row: some null, most not. */
    private String extraValues() {
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < extraColumns.size(); i++) {
            values.append(
                    random.nextInt(4) == 0 ? ", CAST(NULL AS INT)" : ", " + random.nextInt(100));
        }
        return values.toString();
    }

    private String rollback() throws Exception {
        List<String> live = new ArrayList<>();
        for (Row row :
                collect(
                        batch,
                        "SELECT tag_name FROM paimon.`" + table.replace(".", "`.`") + "$tags`")) {
            live.add((String) row.getField(0));
        }
        if (!live.isEmpty() && random.nextBoolean()) {
            String tag = live.get(random.nextInt(live.size()));
            call("rollback_to(`table` => '" + table + "', tag => '" + tag + "')");
            return "rollback to tag " + tag;
        }
        FileStoreTable paimon = paimonTable(batch, table);
        Long earliest = paimon.snapshotManager().earliestSnapshotId();
        long latest = latestSnapshotId();
        if (earliest == null || earliest >= latest) {
            return "no rollback (one snapshot)";
        }
        long to = earliest + random.nextInt((int) (latest - earliest));
        call("rollback_to(`table` => '" + table + "', snapshot_id => CAST(" + to + " AS BIGINT))");
        return "rollback to snapshot " + to;
    }

    private void call(String procedure) throws Exception {
        batch.executeSql("CALL life.sys." + procedure).await();
    }

    private long latestSnapshotId() throws Exception {
        Long latest = paimonTable(batch, table).snapshotManager().latestSnapshotId();
        return latest == null ? 0 : latest;
    }

    private void assertUnionReadsEqualPaimon() {
        List<String> paimon = rows("paimon." + table);
        assertThat(rows("life." + table))
                .as("read-uncommitted union read")
                .containsExactlyInAnyOrderElementsOf(paimon);
        assertThat(
                        rows(
                                "life."
                                        + table
                                        + " /*+ OPTIONS('lake-stream.read.isolation' ="
                                        + " 'read-committed') */"))
                .as("read-committed union read")
                .containsExactlyInAnyOrderElementsOf(paimon);
    }

    private List<String> rows(String table) {
        List<String> rows = new ArrayList<>();
        for (Row row : collect(batch, "SELECT * FROM " + table)) {
            rows.add(row.toString());
        }
        return rows;
    }

    private static List<Row> collect(TableEnvironment tEnv, String query) {
        return CollectionUtil.iteratorToList(tEnv.executeSql(query).collect());
    }
}
