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
import io.lakestream.flink.testutils.SqlClientErrors;
import io.lakestream.testutils.Await;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Commits of other writers to an enabled table, checked against Paimon's own read of the same
 * warehouse (a {@code paimon} catalog): a streaming lake-stream read returns the rows that Paimon's
 * own catalog commits, at their commit, once, for both isolation levels, beside the rows of the
 * lake-stream sink; and a write through the {@code paimon-lakestream} catalog whose hint turns
 * lake-stream mode off is refused.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class ForeignCommitsITCase {

    @TempDir static Path warehouse;

    private static LakeSqlEnvironments environments;

    @BeforeAll
    static void open() {
        environments = new LakeSqlEnvironments(warehouse);
        environments.streaming(null);
    }

    /**
     * {@code INSERT} with a hint that sets {@code 'lake-stream.enabled' = 'false'} fails at
     * planning, with the table, the option and the ways out as what the SQL client shows, and
     * commits nothing.
     */
    @Test
    void aHintThatTurnsTheModeOffIsRefused() throws Exception {
        TableEnvironment tEnv = environments.batch();
        tEnv.executeSql(
                "CREATE TABLE lake.db.hinted (id INT, v STRING) WITH ('bucket' = '1', "
                        + "'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");
        Long before = paimonTable(tEnv, "db.hinted").snapshotManager().latestSnapshotId();

        Throwable error =
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                                "INSERT INTO lake.db.hinted /*+ OPTIONS("
                                                        + "'lake-stream.enabled' = 'false') */ "
                                                        + "VALUES (1, 'a')")
                                        .await());

        assertThat(error).as("the INSERT fails").isNotNull();
        Throwable shown = SqlClientErrors.shownBySqlClient(error);
        System.out.println("The SQL client shows: " + shown);
        assertThat(shown)
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("db.hinted")
                .hasMessageContaining("'lake-stream.enabled' = 'false'")
                .hasMessageContaining("disable lake-stream mode")
                .hasMessageContaining("Paimon's own catalog");
        assertThat(paimonTable(tEnv, "db.hinted").snapshotManager().latestSnapshotId())
                .as("nothing committed")
                .isEqualTo(before);

        // the same hint on a read, and 'true' on a write, stay allowed
        tEnv.executeSql(
                        "INSERT INTO lake.db.hinted /*+ OPTIONS('lake-stream.enabled' = 'true') */"
                                + " VALUES (2, 'b')")
                .await();
        assertThat(
                        LakeSqlEnvironments.count(
                                tEnv,
                                "lake.db.hinted /*+ OPTIONS('lake-stream.enabled' = 'false') */"))
                .isEqualTo(1);
    }

    /**
     * An enabled table is written in turns through the lake-stream sink and through Paimon's own
     * catalog while two streaming reads run, one per isolation level: each returns every row once,
     * and its changelog, applied, equals Paimon's batch read of the table after each commit. The
     * primary-key tables take updates from both writers: with {@code 'changelog-producer' =
     * 'input'} the read returns the changelog files of Paimon's commits, with {@code 'lookup'}
     * their new data files, merged into the changelog as the store's rows are.
     */
    @ParameterizedTest(name = "changelog producer: {0}")
    @ValueSource(strings = {"append table", "input", "lookup"})
    void streamingReadsFollowPaimonsOwnCommits(String producer) throws Exception {
        boolean primaryKey = !producer.equals("append table");
        String table = "db.followed_" + (primaryKey ? producer : "append");
        TableEnvironment batch = environments.batch();
        batch.executeSql(paimonCatalogDdl());
        batch.executeSql(
                "CREATE TABLE lake."
                        + table
                        + (primaryKey
                                ? " (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                                        + "'changelog-producer' = '"
                                        + producer
                                        + "', "
                                : " (id INT, v STRING) WITH ('bucket-key' = 'id', ")
                        + "'bucket' = '2', 'lake-stream.enabled' = 'true')");
        batch.executeSql("INSERT INTO lake." + table + " VALUES (1, 'lake'), (2, 'lake')").await();

        TableEnvironment streaming = environments.streaming(null);
        TableResult uncommitted = streaming.executeSql("SELECT * FROM lake." + table);
        TableResult committed =
                streaming.executeSql(
                        "SELECT * FROM lake."
                                + table
                                + " /*+ OPTIONS('lake-stream.read.isolation' = "
                                + "'read-committed') */");
        try (CloseableIterator<Row> uncommittedRows = uncommitted.collect();
                CloseableIterator<Row> committedRows = committed.collect()) {
            Changelog uncommittedLog = new Changelog(primaryKey, uncommittedRows);
            Changelog committedLog = new Changelog(primaryKey, committedRows);
            String[] writes = {
                "INSERT INTO paimon."
                        + table
                        + " VALUES (3, 'paimon'), (4, 'paimon')"
                        + (primaryKey ? ", (1, 'paimon')" : ""),
                "INSERT INTO lake."
                        + table
                        + " VALUES (5, 'lake')"
                        + (primaryKey ? ", (3, 'lake')" : ""),
                "INSERT INTO paimon."
                        + table
                        + " VALUES (6, 'paimon')"
                        + (primaryKey ? ", (5, 'paimon')" : "")
            };
            // the reads have started once they returned the first commit; after each commit they
            // return its rows (the order of two writers' changes of one key is the order of their
            // commits only when one commits before the other writes)
            List<String> paimon = paimonRowsOf(batch, table);
            for (int step = 0; step <= writes.length; step++) {
                uncommittedLog.readUntil(paimon);
                committedLog.readUntil(paimon);
                if (step < writes.length) {
                    batch.executeSql(writes[step]).await();
                    paimon = paimonRowsOf(batch, table);
                }
            }
            assertThat(paimon).hasSize(6);
            System.out.println("Changelog (read-uncommitted): " + uncommittedLog.changes);
            System.out.println("Changelog (read-committed): " + committedLog.changes);
            assertThat(uncommittedLog.rows()).containsExactlyInAnyOrderElementsOf(paimon);
            assertThat(committedLog.rows()).containsExactlyInAnyOrderElementsOf(paimon);
        } finally {
            uncommitted.getJobClient().orElseThrow().cancel().get();
            committed.getJobClient().orElseThrow().cancel().get();
        }
    }

    /**
     * The rows of a streaming read, taken from it by a thread of their own and applied in order, so
     * that a read that never returns the expected rows fails the wait instead of blocking it.
     */
    private static final class Changelog {
        private final boolean primaryKey;
        private final TakenRows taken;
        private final Map<Object, List<String>> rowsByKey = new HashMap<>();
        private final List<String> changes = new ArrayList<>();
        private int next;

        Changelog(boolean primaryKey, CloseableIterator<Row> rows) {
            this.primaryKey = primaryKey;
            this.taken = new TakenRows(rows, "streaming read rows");
        }

        /**
         * Applies rows until the applied rows are {@code expected}. A row returned twice (an append
         * row, or an insert of a key that has a row) fails at once.
         */
        void readUntil(List<String> expected) throws Exception {
            Await.until(
                    () -> {
                        List<Row> arrived = new ArrayList<>();
                        taken.drainTo(arrived);
                        arrived.forEach(this::apply);
                        return sameRows(rows(), expected);
                    },
                    "the read returns " + expected + "; it returned " + changes);
        }

        private void apply(Row row) {
            changes.add(row.toString());
            RowKind kind = row.getKind();
            Row insert = Row.copy(row);
            insert.setKind(RowKind.INSERT);
            Object key = primaryKey ? row.getField(0) : next++;
            List<String> kept = rowsByKey.computeIfAbsent(key, k -> new ArrayList<>());
            if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
                assertThat(kept).as("the row of %s before %s", key, row).isEmpty();
                kept.add(insert.toString());
            } else {
                assertThat(kept).as("the row %s retracts", row).containsExactly(insert.toString());
                kept.clear();
            }
        }

        List<String> rows() {
            List<String> rows = new ArrayList<>();
            rowsByKey.values().forEach(rows::addAll);
            return rows;
        }

        private static boolean sameRows(List<String> actual, List<String> expected) {
            List<String> left = new ArrayList<>(actual);
            List<String> right = new ArrayList<>(expected);
            left.sort(null);
            right.sort(null);
            return left.equals(right);
        }
    }

    private static List<String> paimonRowsOf(TableEnvironment batch, String table) {
        List<String> rows = new ArrayList<>();
        for (Row row :
                CollectionUtil.iteratorToList(
                        batch.executeSql("SELECT * FROM paimon." + table).collect())) {
            rows.add(row.toString());
        }
        return rows;
    }

    private static String paimonCatalogDdl() {
        return "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                + warehouse.toUri()
                + "')";
    }
}
