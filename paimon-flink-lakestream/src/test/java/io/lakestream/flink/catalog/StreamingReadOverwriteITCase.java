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

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Unbounded reads with {@code 'streaming-read-append-overwrite' = 'true'}: the streaming read of an
 * enabled append table through the {@code paimon-lakestream} catalog returns each {@code INSERT
 * OVERWRITE} (through either catalog) as Paimon's own streaming read through the {@code paimon}
 * catalog returns it, the overwrite's new rows; a primary-key table's overwrite changes ({@code
 * 'streaming-read-overwrite'}) are refused.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class StreamingReadOverwriteITCase {

    private static final String LAKE_HINT =
            " /*+ OPTIONS('streaming-read-append-overwrite' = 'true') */";

    /** Paimon's read with the option, looking for snapshots as often as the lake-stream read. */
    private static final String PAIMON_HINT =
            " /*+ OPTIONS('streaming-read-append-overwrite' = 'true', "
                    + "'continuous.discovery-interval' = '500 ms') */";

    @TempDir static Path warehouse;

    @TempDir static Path savepoints;

    private static LakeSqlEnvironments environments;

    @BeforeAll
    static void open() {
        environments = new LakeSqlEnvironments(warehouse);
        environments.streaming(null);
    }

    @Test
    void anAppendTablesOverwritesAreReturnedAsPaimonReturnsThem() throws Exception {
        String table = "db.overwritten_append";
        TableEnvironment batch = environments.batch();
        batch.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
        batch.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (dt INT, id INT, v STRING) PARTITIONED BY (dt) WITH ('bucket' = '2', "
                        + "'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");
        batch.executeSql(
                        "INSERT INTO lake."
                                + table
                                + " VALUES (1, 1, 'lake'), (1, 2, 'lake'), (2, 3, 'lake')")
                .await();

        TableEnvironment streaming = environments.streaming(null);
        streaming.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
        TableResult lake = streaming.executeSql("SELECT * FROM lake." + table + LAKE_HINT);
        TableResult paimon = streaming.executeSql("SELECT * FROM paimon." + table + PAIMON_HINT);
        try (CloseableIterator<Row> lakeRows = lake.collect();
                CloseableIterator<Row> paimonRows = paimon.collect()) {
            Rows lakeRead = new Rows(lakeRows, "lake-stream read");
            Rows paimonRead = new Rows(paimonRows, "Paimon's read");
            List<String> expected =
                    new ArrayList<>(
                            Arrays.asList("+I[1, 1, lake]", "+I[1, 2, lake]", "+I[2, 3, lake]"));
            String[][] steps = {
                {
                    "INSERT OVERWRITE lake."
                            + table
                            + " PARTITION (dt = 1) VALUES (10, 'lake overwrite'), "
                            + "(11, 'lake overwrite')",
                    "+I[1, 10, lake overwrite]",
                    "+I[1, 11, lake overwrite]"
                },
                {
                    "INSERT OVERWRITE paimon."
                            + table
                            + " PARTITION (dt = 2) VALUES (20, 'paimon overwrite')",
                    "+I[2, 20, paimon overwrite]"
                },
                {"INSERT INTO lake." + table + " VALUES (1, 12, 'lake')", "+I[1, 12, lake]"},
                {
                    "INSERT OVERWRITE paimon."
                            + table
                            + " VALUES (1, 13, 'paimon overwrite'), (3, 30, 'paimon overwrite')",
                    "+I[1, 13, paimon overwrite]",
                    "+I[3, 30, paimon overwrite]"
                }
            };
            lakeRead.readUntil(expected);
            paimonRead.readUntil(expected);
            for (String[] step : steps) {
                batch.executeSql(step[0]).await();
                expected.addAll(Arrays.asList(step).subList(1, step.length));
                // Paimon's read is the oracle: it returns the overwrite's new rows, and the
                // lake-stream read returns the same
                paimonRead.readUntil(expected);
                lakeRead.readUntil(expected);
            }
            System.out.println("Lake-stream read: " + lakeRead.rows);
            System.out.println("Paimon's read: " + paimonRead.rows);
            assertThat(lakeRead.rows).containsExactlyInAnyOrderElementsOf(paimonRead.rows);
            // nothing else arrives: the same look again after one more commit of each catalog
            batch.executeSql("INSERT INTO paimon." + table + " VALUES (2, 21, 'paimon')").await();
            expected.add("+I[2, 21, paimon]");
            paimonRead.readUntil(expected);
            lakeRead.readUntil(expected);
            assertThat(lakeRead.rows).containsExactlyInAnyOrderElementsOf(paimonRead.rows);
        } finally {
            lake.getJobClient().orElseThrow().cancel().get();
            paimon.getJobClient().orElseThrow().cancel().get();
        }
    }

    /**
     * A running writer's row that no snapshot holds yet, in the partition an overwrite replaces:
     * the lake-stream read returns it at once, Paimon's read at the writer's commit after the
     * overwrite; the rows are the same.
     */
    @Test
    void aRunningWritersTailIsReturnedOnceBesideTheOverwrite() throws Exception {
        String table = "db.overwritten_tail";
        TableEnvironment batch = environments.batch();
        batch.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
        JobClient writer = environments.committedRowAndTail(batch, "lake." + table);
        TableEnvironment streaming = environments.streaming(null);
        streaming.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
        TableResult lake = streaming.executeSql("SELECT * FROM lake." + table + LAKE_HINT);
        TableResult paimon = streaming.executeSql("SELECT * FROM paimon." + table + PAIMON_HINT);
        try (CloseableIterator<Row> lakeRows = lake.collect();
                CloseableIterator<Row> paimonRows = paimon.collect()) {
            Rows lakeRead = new Rows(lakeRows, "lake-stream read");
            Rows paimonRead = new Rows(paimonRows, "Paimon's read");
            lakeRead.readUntil(Arrays.asList("+I[1, committed]", "+I[2, tail]"));
            paimonRead.readUntil(Arrays.asList("+I[1, committed]"));

            batch.executeSql("INSERT OVERWRITE paimon." + table + " VALUES (3, 'overwrite')")
                    .await();
            lakeRead.readUntil(
                    Arrays.asList("+I[1, committed]", "+I[2, tail]", "+I[3, overwrite]"));
            paimonRead.readUntil(Arrays.asList("+I[1, committed]", "+I[3, overwrite]"));

            // the writer commits its tail on top of the overwrite
            writer.stopWithSavepoint(
                            false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(60, TimeUnit.SECONDS);
            writer.getJobExecutionResult().get(60, TimeUnit.SECONDS);
            List<String> all = Arrays.asList("+I[1, committed]", "+I[2, tail]", "+I[3, overwrite]");
            paimonRead.readUntil(all);
            lakeRead.readUntil(all);
            assertThat(LakeSqlEnvironments.rows(batch, "paimon." + table))
                    .containsExactlyInAnyOrder("+I[2, tail]", "+I[3, overwrite]");
            assertThat(lakeRead.rows).containsExactlyInAnyOrderElementsOf(paimonRead.rows);
        } finally {
            lake.getJobClient().orElseThrow().cancel().get();
            paimon.getJobClient().orElseThrow().cancel().get();
        }
    }

    /**
     * A primary-key table read with {@code 'streaming-read-overwrite' = 'true'} is refused when the
     * query is planned, naming the table and the option.
     */
    @Test
    void aPrimaryKeyTablesOverwriteChangesAreRefused() {
        TableEnvironment streaming = environments.streaming(null);
        streaming.executeSql(
                "CREATE TABLE lake.db.overwritten_pk (id INT, v STRING, PRIMARY KEY (id) NOT "
                        + "ENFORCED) WITH ('bucket' = '1', 'lake-stream.enabled' = 'true')");
        Throwable error =
                catchThrowable(
                        () ->
                                streaming
                                        .executeSql(
                                                "SELECT * FROM lake.db.overwritten_pk /*+ OPTIONS("
                                                        + "'streaming-read-overwrite' = 'true') */")
                                        .getJobClient()
                                        .orElseThrow()
                                        .cancel()
                                        .get());
        assertThat(error).as("the query is refused").isNotNull();
        Throwable root = error;
        while (root.getCause() != null
                && !String.valueOf(root.getMessage()).contains("streaming-read-overwrite")) {
            root = root.getCause();
        }
        assertThat(root)
                .hasMessageContaining("db.overwritten_pk")
                .hasMessageContaining("'streaming-read-overwrite' = 'true'")
                .hasMessageContaining("uncommitted records");
    }

    /** The rows a streaming read returned, in order; an append read returns inserts only. */
    private static final class Rows {
        private final TakenRows taken;
        private final List<String> rows = new ArrayList<>();

        Rows(CloseableIterator<Row> rows, String name) {
            this.taken = new TakenRows(rows, name);
        }

        /** Waits until the rows returned are {@code expected}, in any order. */
        void readUntil(List<String> expected) throws Exception {
            Await.until(
                    () -> {
                        List<Row> arrived = new ArrayList<>();
                        taken.drainTo(arrived);
                        for (Row row : arrived) {
                            assertThat(row.getKind()).isEqualTo(RowKind.INSERT);
                            rows.add(row.toString());
                        }
                        List<String> left = new ArrayList<>(rows);
                        List<String> right = new ArrayList<>(expected);
                        left.sort(null);
                        right.sort(null);
                        return left.equals(right);
                    },
                    "the read returns " + expected + "; it returned " + rows);
        }
    }
}
