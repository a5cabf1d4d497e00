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

import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code DELETE FROM} and {@code UPDATE} on tables in lake-stream mode, as Paimon's sink takes
 * them: after each statement the union read equals Paimon's read, and a streaming read started
 * before them applies the deletes and updates to the same rows; where Paimon refuses the statement,
 * it is refused with Paimon's reason.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class RowLevelStatementsITCase {

    @TempDir static Path warehouse;

    @Test
    void deletesAndUpdatesReachPaimonTheUnionReadAndAStreamingReader() throws Exception {
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment batch = batchMode(environments);
        batch.executeSql(
                "CREATE TABLE lake.db.row_level (k INT, v STRING, n BIGINT,"
                        + " PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2')");
        batch.executeSql("ALTER TABLE lake.db.row_level SET ('lake-stream.enabled' = 'true')");
        batch.executeSql(
                        "INSERT INTO lake.db.row_level VALUES (1, 'a', 1), (2, 'b', 2), "
                                + "(3, 'c', 3), (4, 'b', 4), (5, 'e', 5)")
                .await();
        StreamTableEnvironment streaming = environments.streaming(null);
        try (ChangelogFollower follower =
                ChangelogFollower.start(streaming, "SELECT k, v, n FROM lake.db.row_level", 0)) {
            awaitHolds(follower, batch);

            // a filter on a value column: the rows are read, then deleted one by one
            batch.executeSql("DELETE FROM lake.db.row_level WHERE v = 'b'").await();
            assertThat(unionRead(batch)).isEqualTo(paimonRead(batch)).doesNotContainKeys(2, 4);
            awaitHolds(follower, batch);

            batch.executeSql("UPDATE lake.db.row_level SET n = 100, v = 'z' WHERE k >= 3").await();
            assertThat(unionRead(batch))
                    .isEqualTo(paimonRead(batch))
                    .containsEntry(3, "z:100")
                    .containsEntry(5, "z:100")
                    .containsEntry(1, "a:1");
            awaitHolds(follower, batch);

            // every row: still row by row, so that the streaming reader sees each delete
            batch.executeSql("DELETE FROM lake.db.row_level").await();
            assertThat(paimonRead(batch)).isEmpty();
            assertThat(unionRead(batch)).isEmpty();
            awaitHolds(follower, batch);
        }
    }

    @Test
    void aPartialUpdateTableTakesUpdatesAndStatementsPaimonRefusesAreRefusedWithItsReason()
            throws Exception {
        TableEnvironment batch = batchMode(new LakeSqlEnvironments(warehouse));
        batch.executeSql(
                "CREATE TABLE lake.db.row_level_partial (k INT, v STRING, n BIGINT,"
                        + " PRIMARY KEY (k) NOT ENFORCED)"
                        + " WITH ('bucket' = '2', 'merge-engine' = 'partial-update')");
        batch.executeSql(
                "CREATE TABLE lake.db.row_level_first (k INT, v STRING, n BIGINT,"
                        + " PRIMARY KEY (k) NOT ENFORCED)"
                        + " WITH ('bucket' = '2', 'merge-engine' = 'first-row')");
        batch.executeSql(
                "CREATE TABLE lake.db.row_level_append (k INT, v STRING, n BIGINT)"
                        + " WITH ('bucket' = '2', 'bucket-key' = 'k')");
        for (String table :
                new String[] {"row_level_partial", "row_level_first", "row_level_append"}) {
            batch.executeSql(
                    "ALTER TABLE lake.db." + table + " SET ('lake-stream.enabled' = 'true')");
            batch.executeSql("INSERT INTO lake.db." + table + " VALUES (1, 'a', 1), (2, 'b', 2)")
                    .await();
        }

        batch.executeSql("UPDATE lake.db.row_level_partial SET n = 9 WHERE k = 1").await();
        assertThat(read(batch, "lake.db.row_level_partial"))
                .isEqualTo(paimonRead(batch, "row_level_partial"))
                .containsEntry(1, "a:9");

        assertThatThrownBy(() -> batch.executeSql("DELETE FROM lake.db.row_level_partial"))
                .hasMessageContaining("lake.db.row_level_partial")
                .hasMessageContaining("support batch delete");
        assertThatThrownBy(
                        () ->
                                batch.executeSql(
                                        "UPDATE lake.db.row_level_first SET n = 9 WHERE k = 1"))
                .hasMessageContaining("lake.db.row_level_first")
                .hasMessageContaining("support batch update");
        assertThatThrownBy(() -> batch.executeSql("DELETE FROM lake.db.row_level_append"))
                .hasMessageContaining("lake.db.row_level_append")
                .hasMessageContaining("no primary key");
        // nothing was written by the refused statements
        assertThat(read(batch, "lake.db.row_level_first"))
                .isEqualTo(paimonRead(batch, "row_level_first"))
                .hasSize(2);
    }

    /**
     * A table environment created in batch mode, where Flink plans {@code DELETE} and {@code
     * UPDATE} (a streaming environment switched to batch execution refuses them).
     */
    private static TableEnvironment batchMode(LakeSqlEnvironments environments) {
        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.getConfig().set(CoreOptions.DEFAULT_PARALLELISM, 1);
        batch.executeSql(environments.catalogDdl("lake", ""));
        batch.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        return batch;
    }

    /** Waits until the streaming reader's applied changelog equals Paimon's read of the table. */
    private static void awaitHolds(ChangelogFollower follower, TableEnvironment batch)
            throws Exception {
        Await.until(
                () -> {
                    Map<Integer, String> expected = paimonRead(batch);
                    Map<Integer, String> held = new TreeMap<>();
                    follower.state()
                            .forEach(
                                    (k, row) ->
                                            held.put(
                                                    (Integer) k,
                                                    row.substring(
                                                                    row.indexOf(',') + 2,
                                                                    row.length() - 1)
                                                            .replace(", ", ":")));
                    return held.equals(expected);
                },
                "the streaming reader's changelog applied equals Paimon's read");
    }

    private static Map<Integer, String> unionRead(TableEnvironment batch) {
        return read(batch, "lake.db.row_level");
    }

    private static Map<Integer, String> read(TableEnvironment batch, String table) {
        return KeyedRows.ofQuery(batch, "SELECT k, v, n FROM " + table);
    }

    private static Map<Integer, String> paimonRead(TableEnvironment batch) throws Exception {
        return paimonRead(batch, "row_level");
    }

    private static Map<Integer, String> paimonRead(TableEnvironment batch, String table)
            throws Exception {
        return KeyedRows.ofPaimon(batch, table);
    }
}
