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

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.config.TableConfigOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static io.lakestream.flink.catalog.LakeSqlEnvironments.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What Paimon's own procedures do to an enabled table, checked against Paimon's own read of the
 * same warehouse (a {@code paimon} catalog).
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class TableLifeSqlITCase {

    @TempDir static java.nio.file.Path warehouse;

    /**
     * A rollback: right after it, with no job writing, the union read returns exactly what Paimon
     * holds (not the rolled-back records, which stay in the store above the offsets of the snapshot
     * rolled back to), for both isolation levels; and it stays equal after a new job writes the
     * table again (its writer fences them before its first write).
     */
    @ParameterizedTest(name = "to a tag: {0}")
    @ValueSource(booleans = {false, true})
    void theUnionReadEqualsPaimonsReadAfterARollback(boolean toTag) throws Exception {
        String table = toTag ? "db.rolled_back_to_tag" : "db.rolled_back_to_snapshot";
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment tEnv = environments.streaming(Duration.ofSeconds(1));
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        tEnv.executeSql("INSERT INTO lake." + table + " VALUES (1, 'a'), (2, 'b'), (3, 'c')")
                .await();
        long kept = paimonTable(tEnv, table).snapshotManager().latestSnapshotId();
        tEnv.executeSql(
                        "CALL lake.sys.create_tag(`table` => '"
                                + table
                                + "', tag => 'kept', snapshot_id => CAST("
                                + kept
                                + " AS BIGINT))")
                .await();
        tEnv.executeSql(
                        "INSERT INTO lake."
                                + table
                                + " VALUES (2, 'rolled back'), (4, 'rolled back'), (5, 'rolled back')")
                .await();

        String target = toTag ? "tag => 'kept'" : "snapshot_id => CAST(" + kept + " AS BIGINT)";
        tEnv.executeSql("CALL lake.sys.rollback_to(`table` => '" + table + "', " + target + ")")
                .await();

        TableEnvironment batch = environments.batch();
        batch.executeSql(paimonCatalogDdl());
        List<String> paimon = rows(batch, "paimon." + table);
        assertThat(paimon).containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]", "+I[3, c]");
        assertUnionReadsEqual(batch, table, paimon, "right after the rollback");

        tEnv.executeSql("INSERT INTO lake." + table + " VALUES (6, 'after'), (1, 'after')").await();

        paimon = rows(batch, "paimon." + table);
        assertThat(paimon)
                .containsExactlyInAnyOrder("+I[1, after]", "+I[2, b]", "+I[3, c]", "+I[6, after]");
        assertUnionReadsEqual(batch, table, paimon, "after a new job wrote");
    }

    /**
     * A rollback behind the snapshot that enabled the mode again: the latest snapshot is then one
     * after which the mode was off. A bounded union read follows no change after it, so it reads
     * the snapshot (and nothing the store holds past its offsets) instead of refusing the table.
     */
    @Test
    void aRollbackBehindAReEnablementLeavesTheTableReadable() throws Exception {
        String table = "db.rolled_back_behind_enable";
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment tEnv = environments.streaming(Duration.ofSeconds(1));
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        tEnv.executeSql("INSERT INTO lake." + table + " VALUES (1, 'a'), (2, 'b')").await();
        long beforeDisable = paimonTable(tEnv, table).snapshotManager().latestSnapshotId();
        tEnv.executeSql("ALTER TABLE lake." + table + " SET ('lake-stream.enabled' = 'false')");
        tEnv.executeSql("INSERT INTO lake." + table + " VALUES (3, 'while off')").await();
        tEnv.executeSql("ALTER TABLE lake." + table + " SET ('lake-stream.enabled' = 'true')");
        tEnv.executeSql("INSERT INTO lake." + table + " VALUES (4, 'rolled back')").await();

        tEnv.executeSql(
                        "CALL lake.sys.rollback_to(`table` => '"
                                + table
                                + "', snapshot_id => CAST("
                                + beforeDisable
                                + " AS BIGINT))")
                .await();

        TableEnvironment batch = environments.batch();
        batch.executeSql(paimonCatalogDdl());
        List<String> paimon = rows(batch, "paimon." + table);
        assertThat(paimon).containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]");
        assertUnionReadsEqual(batch, table, paimon, "after a rollback behind the enablement");
    }

    /**
     * A branch of an enabled table, made from a tag while a job writes the main branch (so the
     * store holds main's uncommitted tail): read through either catalog it returns Paimon's rows of
     * the branch, never main's tail; written through this catalog it is Paimon's write; enabling
     * lake-stream mode on it is refused, naming it.
     */
    @Test
    void aBranchIsReadAndWrittenAsPaimonsBranch() throws Exception {
        String table = "db.branched";
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment batch = environments.batch();
        batch.getConfig().set(TableConfigOptions.TABLE_DML_SYNC, true);
        batch.executeSql(paimonCatalogDdl());
        batch.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        batch.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        batch.executeSql("INSERT INTO lake." + table + " VALUES (1, 'a'), (2, 'b')").await();
        batch.executeSql(
                        "CALL lake.sys.create_tag(`table` => '"
                                + table
                                + "', tag => 'base', snapshot_id => CAST("
                                + paimonTable(batch, table).snapshotManager().latestSnapshotId()
                                + " AS BIGINT))")
                .await();
        batch.executeSql(
                        "CALL lake.sys.create_branch(`table` => '"
                                + table
                                + "', branch => 'b', tag => 'base')")
                .await();
        String branch = "`branched$branch_b`";

        // main's uncommitted tail: a job whose first checkpoint is far away
        TableEnvironment writer = environments.streaming(Duration.ofMinutes(10));
        writer.executeSql(
                "CREATE TEMPORARY TABLE gen (id BIGINT) WITH ('connector' = 'datagen', "
                        + "'rows-per-second' = '50', 'fields.id.kind' = 'sequence', "
                        + "'fields.id.start' = '100', 'fields.id.end' = '100000')");
        TableResult insert =
                writer.executeSql("INSERT INTO lake." + table + " SELECT id, 'tail' FROM gen");
        try {
            Await.until(
                    () -> rows(batch, "lake." + table).size() > 2,
                    "main's union read returns its uncommitted tail");

            batch.executeSql("INSERT INTO lake.db." + branch + " VALUES (3, 'on the branch')")
                    .await();

            List<String> paimon = rows(batch, "paimon.db." + branch);
            assertThat(paimon)
                    .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]", "+I[3, on the branch]");
            assertThat(rows(batch, "lake.db." + branch))
                    .as("the branch through the lake-stream catalog")
                    .containsExactlyInAnyOrderElementsOf(paimon);
            assertThat(rows(batch, "paimon." + table))
                    .as("main, committed: the branch's write is not in it")
                    .containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]");
            assertThatThrownBy(
                            () ->
                                    batch.executeSql(
                                            "ALTER TABLE lake.db."
                                                    + branch
                                                    + " SET ('lake-stream.enabled' = 'true')"))
                    .hasStackTraceContaining("branch 'b' of table db.branched")
                    .hasStackTraceContaining("only the main branch");
        } finally {
            insert.getJobClient().orElseThrow().cancel().get();
        }
    }

    /**
     * {@code CALL sys.rescale} of one partition into another bucket count: the union read refuses
     * the table, naming the partition and the way out, instead of merging the store's old buckets
     * with Paimon's new ones; a lake-only read still returns Paimon's rows.
     */
    @Test
    void aRescaledPartitionIsRefusedByTheUnionRead() throws Exception {
        String table = "db.rescaled";
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment tEnv = environments.batch();
        tEnv.getConfig().set(TableConfigOptions.TABLE_DML_SYNC, true);
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (dt STRING, id INT, v STRING, PRIMARY KEY (dt, id) NOT ENFORCED)"
                        + " PARTITIONED BY (dt)"
                        + " WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        tEnv.executeSql(
                        "INSERT INTO lake."
                                + table
                                + " VALUES ('a', 1, 'x'), ('a', 2, 'y'), ('b', 3, 'z')")
                .await();

        tEnv.executeSql(
                        "CALL lake.sys.rescale(`table` => '"
                                + table
                                + "', bucket_num => 3, `partition` => 'dt=a')")
                .await();

        assertThatThrownBy(() -> rows(tEnv, "lake." + table))
                .hasStackTraceContaining("dt=a, bucket")
                .hasStackTraceContaining("holds files in 3 buckets")
                .hasStackTraceContaining("'lake-stream.read.lake-only' = 'true'");
        tEnv.executeSql(paimonCatalogDdl());
        assertThat(
                        rows(
                                tEnv,
                                "lake."
                                        + table
                                        + " /*+ OPTIONS('lake-stream.read.lake-only' = 'true') */"))
                .containsExactlyInAnyOrderElementsOf(rows(tEnv, "paimon." + table))
                .hasSize(3);
    }

    private static final String READ_COMMITTED =
            " /*+ OPTIONS('lake-stream.read.isolation' = 'read-committed') */";

    /** Both isolation levels' union reads of {@code table} return {@code paimon}'s rows. */
    private static void assertUnionReadsEqual(
            TableEnvironment batch, String table, List<String> paimon, String when) {
        assertThat(rows(batch, "lake." + table))
                .as("read-uncommitted " + when)
                .containsExactlyInAnyOrderElementsOf(paimon);
        assertThat(rows(batch, "lake." + table + READ_COMMITTED))
                .as("read-committed " + when)
                .containsExactlyInAnyOrderElementsOf(paimon);
    }

    private static String paimonCatalogDdl() {
        return "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                + warehouse.toUri()
                + "')";
    }
}
