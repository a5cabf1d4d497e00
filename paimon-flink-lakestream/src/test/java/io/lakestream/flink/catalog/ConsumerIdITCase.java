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
import io.lakestream.read.consumer.ConsumerPositions;
import io.lakestream.testutils.Await;

import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static io.lakestream.flink.catalog.LakeSqlEnvironments.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Streaming reads with Paimon's {@code consumer-id}: a job cancelled without a savepoint and
 * started again without state resumes where its last completed checkpoint left it, through the
 * lake-stream sink's commits, another writer's commit, a snapshot expiry and a tail no snapshot
 * holds, returning every change once; {@code sys.reset_consumer} moves the consumer as in Paimon;
 * Paimon's rule that a consumer needs {@code consumer.expiration-time} holds.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class ConsumerIdITCase {

    @TempDir static Path warehouse;

    @TempDir static Path savepoints;

    private static LakeSqlEnvironments environments;

    @BeforeAll
    static void open() {
        environments = new LakeSqlEnvironments(warehouse);
        // creates the database
        environments.streaming(null);
    }

    private static void createTable(TableEnvironment batch, String table, boolean primaryKey) {
        batch.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
        batch.executeSql(
                "CREATE TABLE lake."
                        + table
                        + (primaryKey
                                ? " (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH "
                                        + "('changelog-producer' = 'lookup', "
                                : " (id INT, v STRING) WITH ('bucket-key' = 'id', ")
                        + "'bucket' = '2', 'consumer.expiration-time' = '1 h', "
                        + "'lake-stream.enabled' = 'true')");
    }

    /**
     * A read with a consumer returns a committed row and a row that a running job has written but
     * not committed yet, then a row another writer commits right before Paimon expires every
     * snapshot it may (the consumer keeps the one the read has still to follow), and is cancelled
     * once a checkpoint has recorded everything it returned; the writing job then commits its row
     * at a savepoint. While the read is down, the lake-stream sink commits, Paimon's own catalog
     * commits, Paimon expires every snapshot it may and a job writes a row that no snapshot
     * commits. The job started again without state returns exactly those changes: nothing it
     * returned before (the uncommitted row included, which the consumer's next snapshot alone would
     * return again), nothing lost.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"append table", "primary-key table"})
    void aJobStartedAgainWithoutStateResumesWhereItsConsumerWas(String kind) throws Exception {
        boolean primaryKey = kind.startsWith("primary");
        String table = "db.resumed_" + (primaryKey ? "pk" : "append");
        TableEnvironment batch = environments.batch();
        createTable(batch, table, primaryKey);
        batch.executeSql("INSERT INTO lake." + table + " VALUES (1, 'a'), (2, 'a')").await();
        String read = "SELECT * FROM lake." + table + " /*+ OPTIONS('consumer-id' = 'c1') */";

        Changes before = new Changes(primaryKey, startRead(read));
        JobClient writer = environments.tail("lake." + table, "(3, 'a')");
        try {
            List<String> committedAndTail = new ArrayList<>(rows(batch, "paimon." + table));
            committedAndTail.add(Row.of(3, "a").toString());
            before.awaitRows(committedAndTail);
            // another writer commits and Paimon expires every snapshot it may at once: the
            // consumer keeps the commit the running read has still to follow
            batch.executeSql("INSERT INTO paimon." + table + " VALUES (7, 'paimon')").await();
            expireSnapshots(batch, table);
            committedAndTail.add(Row.of(7, "paimon").toString());
            before.awaitRows(committedAndTail);
            awaitPositionPastWhatWasRead(batch, table);
        } finally {
            before.cancel();
        }
        writer.stopWithSavepoint(
                        false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        writer.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        assertThat(rows(batch, "paimon." + table)).as("the tail committed").hasSize(4);

        batch.executeSql(
                        "INSERT INTO lake."
                                + table
                                + " VALUES (4, 'lake')"
                                + (primaryKey ? ", (1, 'lake')" : ""))
                .await();
        batch.executeSql(
                        "INSERT INTO paimon."
                                + table
                                + " VALUES (5, 'paimon')"
                                + (primaryKey ? ", (2, 'paimon')" : ""))
                .await();
        long foreignCommit = paimonTable(batch, table).snapshotManager().latestSnapshotId();
        expireSnapshots(batch, table);
        FileStoreTable paimon = paimonTable(batch, table);
        long next = new ConsumerPositions(paimon, "c1").nextSnapshot().get();
        assertThat(paimon.snapshotManager().earliestSnapshotId())
                .as("Paimon's expiry keeps the consumer's next snapshot and every later one")
                .isEqualTo(next)
                .isLessThanOrEqualTo(foreignCommit);
        List<String> committed = rows(batch, "paimon." + table);
        JobClient tail = environments.tail("lake." + table, "(6, 'tail')");
        try {
            List<String> expected = new ArrayList<>(committed);
            expected.add(Row.of(6, "tail").toString());

            Changes after = new Changes(primaryKey, startRead(read));
            try {
                after.awaitRows(expected, before.rows());
            } finally {
                after.cancel();
            }
            System.out.println("Changes before the stop: " + before.changes);
            System.out.println("Changes after the start without state: " + after.changes);
            assertThat(after.keysChanged())
                    .as("the changes after the stop, each once; row 3 was read before it")
                    .containsExactlyInAnyOrder(
                            primaryKey ? new Integer[] {1, 2, 4, 5, 6} : new Integer[] {4, 5, 6});
        } finally {
            tail.cancel().get();
        }
    }

    /**
     * {@code CALL sys.reset_consumer} sets the consumer's next snapshot as in Paimon: the read
     * started again returns the changes of that snapshot and later, the lake-stream position
     * recorded before is not used.
     */
    @Test
    void aResetConsumerStartsFromItsNextSnapshotAndOneIgnoringProgressFromTheScanOptions()
            throws Exception {
        String table = "db.rewound";
        TableEnvironment batch = environments.batch();
        createTable(batch, table, false);
        batch.executeSql("INSERT INTO lake." + table + " VALUES (1, 'a')").await();
        long second = paimonTable(batch, table).snapshotManager().latestSnapshotId() + 1;
        batch.executeSql("INSERT INTO lake." + table + " VALUES (2, 'b')").await();
        batch.executeSql("INSERT INTO paimon." + table + " VALUES (3, 'c')").await();
        String read = "SELECT * FROM lake." + table + " /*+ OPTIONS('consumer-id' = 'c1') */";

        Changes first = new Changes(false, startRead(read));
        try {
            first.awaitRows(rows(batch, "paimon." + table));
            awaitPositionPastWhatWasRead(batch, table);
        } finally {
            first.cancel();
        }

        batch.executeSql("CALL lake.sys.reset_consumer('" + table + "', 'c1', " + second + ")")
                .await();
        Changes again = new Changes(false, startRead(read));
        try {
            again.awaitRows(List.of(Row.of(2, "b").toString(), Row.of(3, "c").toString()));
        } finally {
            again.cancel();
        }
        assertThat(again.changes).hasSize(2);

        // 'consumer.ignore-progress': the scan options decide, as in Paimon: the whole table
        Changes ignoring =
                new Changes(
                        false,
                        startRead(
                                "SELECT * FROM lake."
                                        + table
                                        + " /*+ OPTIONS('consumer-id' = 'c1', "
                                        + "'consumer.ignore-progress' = 'true') */"));
        try {
            ignoring.awaitRows(rows(batch, "paimon." + table));
        } finally {
            ignoring.cancel();
        }
        assertThat(ignoring.changes).hasSize(3);
    }

    @Test
    void aConsumerNeedsAnExpirationTimeAsInPaimon() throws Exception {
        TableEnvironment batch = environments.batch();
        batch.executeSql(
                "CREATE TABLE lake.db.unexpired (id INT) WITH ('bucket' = '1', "
                        + "'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");
        StreamTableEnvironment streaming = environments.streaming(Duration.ofSeconds(1));
        Throwable error =
                catchThrowable(
                        () ->
                                streaming.executeSql(
                                        "SELECT * FROM lake.db.unexpired /*+ OPTIONS("
                                                + "'consumer-id' = 'c1') */"));
        assertThat(SqlClientErrors.shownBySqlClient(error))
                .hasMessage(
                        "Table db.unexpired: 'consumer-id' needs 'consumer.expiration-time' on "
                                + "the table (ALTER TABLE, then restart its writing job), as "
                                + "Paimon's source does: a consumer that is never expired keeps "
                                + "every snapshot from its next one on.");
    }

    /** Expires every snapshot Paimon may expire, through the catalog's Paimon procedure. */
    private static void expireSnapshots(TableEnvironment batch, String table) throws Exception {
        batch.executeSql(
                        "CALL lake.sys.expire_snapshots(`table` => '"
                                + table
                                + "', retain_max => 1, retain_min => 1)")
                .await();
    }

    private static TableResult startRead(String sql) {
        return environments.streaming(Duration.ofMillis(300)).executeSql(sql);
    }

    /**
     * Waits until two checkpoints have recorded the consumer's position after the read returned
     * what it returned: the second began after the rows were returned, so it holds them.
     */
    private static void awaitPositionPastWhatWasRead(TableEnvironment batch, String table)
            throws Exception {
        ConsumerPositions positions = new ConsumerPositions(paimonTable(batch, table), "c1");
        long seen = checkpointOf(positions);
        Await.until(
                () -> checkpointOf(positions) >= seen + 2,
                "two more checkpoints record the position of consumer c1");
    }

    private static long checkpointOf(ConsumerPositions positions) {
        Optional<ConsumerPositions.Recorded> recorded =
                positions.nextSnapshot().flatMap(positions::positionAt);
        return recorded.map(ConsumerPositions.Recorded::checkpointId).orElse(-1L);
    }

    /** The changes a streaming read returns, taken by a thread of their own, applied by key. */
    private static final class Changes {
        private final boolean primaryKey;
        private final TableResult result;
        private final TakenRows taken;
        private final List<Row> changes = new ArrayList<>();

        Changes(boolean primaryKey, TableResult result) {
            this.primaryKey = primaryKey;
            this.result = result;
            this.taken = new TakenRows(result.collect(), "consumer read rows");
        }

        /** Waits until the changes, applied, are {@code expected}. */
        void awaitRows(List<String> expected) throws Exception {
            awaitRows(expected, Collections.emptyList());
        }

        /** Waits until the changes, applied over {@code base}, are {@code expected}. */
        void awaitRows(List<String> expected, List<String> base) throws Exception {
            Await.until(
                    () -> {
                        taken.drainTo(changes);
                        List<String> now = apply(base);
                        Collections.sort(now);
                        List<String> want = new ArrayList<>(expected);
                        Collections.sort(want);
                        return now.equals(want);
                    },
                    "the read returns " + expected + " over " + base + "; it returned " + changes);
        }

        /**
         * The rows the changes leave over {@code base}; an append row returned twice stays twice.
         */
        private List<String> apply(List<String> base) {
            Map<Object, List<String>> byKey = new TreeMap<>();
            int next = 0;
            for (String row : base) {
                Object key = primaryKey ? keyOf(row) : "base-" + next++;
                byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
            }
            for (Row change : changes) {
                Row insert = Row.copy(change);
                insert.setKind(RowKind.INSERT);
                Object key = primaryKey ? change.getField(0) : "change-" + next++;
                if (change.getKind() == RowKind.INSERT
                        || change.getKind() == RowKind.UPDATE_AFTER) {
                    byKey.put(key, new ArrayList<>(List.of(insert.toString())));
                } else {
                    byKey.remove(key);
                }
            }
            List<String> rows = new ArrayList<>();
            byKey.values().forEach(rows::addAll);
            return rows;
        }

        private static Object keyOf(String row) {
            // "+I[1, a]"
            return Integer.valueOf(row.substring(3, row.indexOf(',')));
        }

        List<String> rows() {
            return apply(Collections.emptyList());
        }

        List<Integer> keysChanged() {
            List<Integer> keys = new ArrayList<>();
            for (Row change : changes) {
                if (change.getKind() != RowKind.UPDATE_BEFORE) {
                    keys.add((Integer) change.getField(0));
                }
            }
            return keys;
        }

        void cancel() throws Exception {
            result.getJobClient().orElseThrow().cancel().get();
        }
    }
}
