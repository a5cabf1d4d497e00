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

import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Unbounded reads with Paimon's start and streaming options that lake-stream reads honour ({@code
 * compacted-full}, {@code scan.file-creation-time-millis}, {@code scan.creation-time-millis},
 * {@code streaming.read.snapshot.delay}; {@code scan.version} refused by both), on one enabled
 * table read through both catalogs while a writing job holds a record in the store that no snapshot
 * has committed: the lake-stream read returns exactly what Paimon's own streaming read of the same
 * options returns through the {@code paimon} catalog, then the store's uncommitted record.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class UnboundedScanOptionsITCase {

    @TempDir static Path warehouse;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"append table", "lookup"})
    void unboundedReadsReturnPaimonsRowsThenTheStoresTail(String kind) throws Exception {
        boolean primaryKey = kind.equals("lookup");
        String table = "db.unbounded_" + (primaryKey ? "lookup" : "append");
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment batch = environments.batch();
        batch.getConfig().set("table.dml-sync", "true");
        batch.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
        batch.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        batch.executeSql(
                "CREATE TABLE lake."
                        + table
                        + (primaryKey
                                ? " (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                                        + "'changelog-producer' = 'lookup', "
                                : " (id INT, v STRING) WITH ('bucket-key' = 'id', ")
                        + "'bucket' = '2', 'lake-stream.enabled' = 'true')");
        batch.executeSql("INSERT INTO lake." + table + " VALUES (1, 'a'), (2, 'a')").await();
        FileStoreTable paimon = paimonTable(batch, table);
        long firstCommit = paimon.snapshotManager().latestSnapshot().timeMillis();
        Await.until(
                () -> System.currentTimeMillis() > firstCommit + 1,
                "the clock passes the first commit");
        long afterFirst = System.currentTimeMillis();
        batch.executeSql(
                        "INSERT INTO lake."
                                + table
                                + " VALUES (3, 'b')"
                                + (primaryKey ? ", (1, 'b')" : ""))
                .await();
        // a compaction of Paimon's own (for the lookup table every commit compacts as well)
        batch.executeSql("CALL paimon.sys.compact(`table` => '" + table + "')").await();
        batch.executeSql("INSERT INTO lake." + table + " VALUES (4, 'c')").await();
        paimon = paimonTable(batch, table);
        long fourth = lastAppend(paimon);
        for (long id = paimon.snapshotManager().earliestSnapshotId();
                id <= paimon.snapshotManager().latestSnapshotId();
                id++) {
            Snapshot snapshot = paimon.snapshotManager().snapshot(id);
            System.out.println(
                    "Snapshot " + id + ": " + snapshot.commitKind() + " " + snapshot.commitUser());
        }

        JobClient tail = environments.tail("lake." + table, "(5, 'tail')");
        try {
            Map<String, String> options = new LinkedHashMap<>();
            options.put("'scan.mode' = 'compacted-full'", null);
            options.put("'scan.file-creation-time-millis' = '" + afterFirst + "'", null);
            options.put("'scan.creation-time-millis' = '" + afterFirst + "'", null);
            for (String hint : options.keySet()) {
                readsEqualPaimonsThenTheTail(environments, table, primaryKey, hint, null);
            }
            // Paimon's Flink source copies the table without time travel: 'scan.version' names
            // no snapshot, and both sources refuse it
            String version = " /*+ OPTIONS('scan.version' = '" + fourth + "') */";
            TableEnvironment streaming = environments.streaming(null);
            streaming.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
            assertThatThrownBy(
                            () -> streaming.executeSql("SELECT * FROM paimon." + table + version))
                    .hasStackTraceContaining("must set only one key in");
            assertThatThrownBy(() -> streaming.executeSql("SELECT * FROM lake." + table + version))
                    .hasStackTraceContaining("must set only one key in");
            // a commit of Paimon's own after the reads started: both return it once it is as
            // old as the delay, the store's record at once
            readsEqualPaimonsThenTheTail(
                    environments,
                    table,
                    primaryKey,
                    "'streaming.read.snapshot.delay' = '2 s'",
                    "INSERT INTO paimon." + table + " VALUES (6, 'paimon')");
        } finally {
            tail.cancel().get();
        }
    }

    /** The id of the latest {@code APPEND} snapshot. */
    private static long lastAppend(FileStoreTable table) {
        for (long id = table.snapshotManager().latestSnapshotId(); ; id--) {
            if (table.snapshotManager().snapshot(id).commitKind() == Snapshot.CommitKind.APPEND) {
                return id;
            }
        }
    }

    /**
     * Starts Paimon's streaming read through the {@code paimon} catalog and the lake-stream read
     * through {@code lake} with the same hint, runs {@code write} through Paimon's catalog when
     * given, and waits until the lake-stream read has returned exactly Paimon's rows and the
     * store's uncommitted record.
     */
    private static void readsEqualPaimonsThenTheTail(
            LakeSqlEnvironments environments,
            String table,
            boolean primaryKey,
            String hint,
            String write)
            throws Exception {
        TableEnvironment streaming = environments.streaming(null);
        streaming.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
        String hints = " /*+ OPTIONS(" + hint + ") */";
        TableResult paimonRead = streaming.executeSql("SELECT * FROM paimon." + table + hints);
        TableResult lakeRead = streaming.executeSql("SELECT * FROM lake." + table + hints);
        try (CloseableIterator<Row> paimonRows = paimonRead.collect();
                CloseableIterator<Row> lakeRows = lakeRead.collect()) {
            Rows fromPaimon = new Rows(paimonRows);
            Rows fromLake = new Rows(lakeRows);
            if (write != null) {
                TableEnvironment batch = environments.batch();
                batch.getConfig().set("table.dml-sync", "true");
                batch.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
                batch.executeSql(write).await();
            }
            try {
                Await.until(
                        () -> {
                            List<String> expected = view(fromPaimon.changes(), primaryKey);
                            expected.add(Row.of(5, "tail").toString());
                            expected.sort(null);
                            List<String> actual = view(fromLake.changes(), primaryKey);
                            actual.sort(null);
                            if (write != null
                                    && !expected.contains(Row.of(6, "paimon").toString())) {
                                return false;
                            }
                            return expected.size() > 1 && actual.equals(expected);
                        },
                        hint + ": the lake-stream read returns Paimon's changes and the tail");
            } catch (AssertionError e) {
                System.out.println(
                        hint + ": Paimon returned " + fromPaimon + ", lake-stream " + fromLake);
                throw e;
            }
            if (write != null) {
                assertThat(fromLake.changes()).contains(Row.of(6, "paimon").toString());
            }
            System.out.println(
                    hint + ": Paimon returned " + fromPaimon + ", lake-stream " + fromLake);
        } finally {
            paimonRead.getJobClient().orElseThrow().cancel().get();
            lakeRead.getJobClient().orElseThrow().cancel().get();
        }
    }

    /**
     * What a read's changes say: for an append table every change; for a primary-key table each
     * key's last value (an upsert view). A changes-only read of a primary-key table returns a key's
     * first change after the start as an update of the value Paimon's lookup changelog knows, where
     * the lake-stream read, which reads no row from before its start, returns an insert of the new
     * value: the same upserts, another changelog.
     */
    private static List<String> view(List<String> changes, boolean primaryKey) {
        if (!primaryKey) {
            return changes;
        }
        Map<String, String> byKey = new TreeMap<>();
        for (String change : changes) {
            String kind = change.substring(0, 2);
            String row = "+I" + change.substring(2);
            String key = change.substring(3, change.indexOf(','));
            if (kind.equals("+I") || kind.equals("+U")) {
                byKey.put(key, row);
            } else if (row.equals(byKey.get(key))) {
                byKey.remove(key);
            }
        }
        return new ArrayList<>(byKey.values());
    }

    /** The changes of a streaming read, taken by a thread of their own. */
    private static final class Rows {
        private final Queue<Row> taken = new ConcurrentLinkedQueue<>();
        private final List<String> changes = new ArrayList<>();

        Rows(CloseableIterator<Row> rows) {
            Thread taker =
                    new Thread(
                            () -> {
                                try {
                                    while (rows.hasNext()) {
                                        taken.add(rows.next());
                                    }
                                } catch (RuntimeException e) {
                                    // the job was cancelled at the end of the check
                                }
                            },
                            "streaming read rows");
            taker.setDaemon(true);
            taker.start();
        }

        /** Every change returned so far, in order. */
        synchronized List<String> changes() {
            for (Row row = taken.poll(); row != null; row = taken.poll()) {
                changes.add(row.toString());
            }
            return new ArrayList<>(changes);
        }

        @Override
        public synchronized String toString() {
            return changes.toString();
        }
    }
}
