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
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lookup joins against primary-key tables in lake-stream mode, one per merge engine: a row written
 * and not yet committed is found, merged into the committed row as Paimon merges it (the answer
 * equals the batch union read); with {@code read-committed} the answer is Paimon's own read of the
 * committed table; after the writer commits, both equal Paimon's read. An append table is looked up
 * as Paimon looks it up, and a table past the cache's bound falls back to Paimon's lookup.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamLookupJoinITCase {

    @TempDir static Path warehouse;
    @TempDir static Path savepoints;

    /** Table name to its options, committed rows and uncommitted tail. */
    private static final Map<String, String[]> TABLES = new LinkedHashMap<>();

    static {
        TABLES.put(
                "dim_dedup",
                new String[] {
                    "", "(1, 'a', 1), (2, 'b', 1), (3, 'c', 1)", "(2, 'b2', 2), (4, 'd', 1)"
                });
        TABLES.put(
                "dim_partial",
                new String[] {
                    ", 'merge-engine' = 'partial-update'",
                    "(1, 'a', CAST(NULL AS BIGINT)), (2, 'b', 1)",
                    "(1, CAST(NULL AS STRING), 9), (3, 'c', CAST(NULL AS BIGINT))"
                });
        TABLES.put(
                "dim_sum",
                new String[] {
                    ", 'merge-engine' = 'aggregation', 'fields.n.aggregate-function' = 'sum',"
                            + " 'fields.v.aggregate-function' = 'last_non_null_value'",
                    "(1, 'a', 5), (2, 'b', 1)",
                    "(1, CAST(NULL AS STRING), 3), (2, CAST(NULL AS STRING), 4), (3, 'c', 1)"
                });
        TABLES.put(
                "dim_first",
                new String[] {
                    ", 'merge-engine' = 'first-row', 'changelog-producer' = 'lookup'",
                    "(1, 'a', 1)",
                    "(1, 'z', 9), (2, 'b', 1)"
                });
    }

    @Test
    void lookupJoinsFindUncommittedRowsMergedAsPaimonMergesThem() throws Exception {
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        StreamTableEnvironment tEnv = environments.streaming(Duration.ofMinutes(10));
        Map<String, String> tails = new LinkedHashMap<>();
        for (Map.Entry<String, String[]> table : TABLES.entrySet()) {
            createEnabled(
                    tEnv,
                    table.getKey(),
                    ", PRIMARY KEY (k) NOT ENFORCED",
                    table.getValue()[0],
                    table.getValue()[1]);
            tails.put(table.getKey(), table.getValue()[2]);
        }
        JobClient writer = writeTails(tEnv, tails);

        TableEnvironment batch = withProbe(environments.batch());
        for (String table : TABLES.keySet()) {
            Map<Integer, String> union = await(batch, table, tailOf(table));
            assertThat(lookedUp(batch, table, "")).as(table).isEqualTo(union);
            assertThat(union).as(table).isNotEqualTo(paimonRead(batch, table));
            assertThat(lookedUp(batch, table, "read-committed"))
                    .as(table)
                    .isEqualTo(paimonRead(batch, table));
        }

        writer.stopWithSavepoint(
                        false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        writer.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        for (String table : TABLES.keySet()) {
            Map<Integer, String> committed = paimonRead(batch, table);
            assertThat(lookedUp(batch, table, "")).as(table).isEqualTo(committed);
            assertThat(lookedUp(batch, table, "read-committed")).as(table).isEqualTo(committed);
        }
        assertThat(paimonRead(batch, "dim_dedup")).containsEntry(2, "b2:2");
        assertThat(paimonRead(batch, "dim_partial")).containsEntry(1, "a:9");
        assertThat(paimonRead(batch, "dim_sum")).containsEntry(1, "a:8").containsEntry(2, "b:5");
        assertThat(paimonRead(batch, "dim_first")).containsEntry(1, "a:1");
    }

    @Test
    void aTablePastTheCacheBoundAndAnAppendTableAreLookedUpAsPaimonDoes() throws Exception {
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        StreamTableEnvironment tEnv = environments.streaming(Duration.ofMinutes(10));
        createEnabled(
                tEnv,
                "dim_bounded",
                ", PRIMARY KEY (k) NOT ENFORCED",
                "",
                "(1, 'a', 1), (2, 'b', 1)");
        createEnabled(tEnv, "dim_append", "", ", 'bucket-key' = 'k'", "(1, 'a', 1), (2, 'b', 1)");
        Map<String, String> tails = new LinkedHashMap<>();
        tails.put("dim_bounded", "(3, 'c', CAST(1 AS BIGINT))");
        tails.put("dim_append", "(3, 'c', CAST(1 AS BIGINT))");
        JobClient writer = writeTails(tEnv, tails);
        try {
            TableEnvironment batch = withProbe(environments.batch());
            for (String table : new String[] {"dim_bounded", "dim_append"}) {
                await(batch, table, 3);
                Map<Integer, String> committed = paimonRead(batch, table);
                assertThat(committed).as(table).doesNotContainKey(3).hasSize(2);
                String hint =
                        table.equals("dim_bounded")
                                ? "/*+ OPTIONS('lake-stream.lookup.cache.max-rows' = '2') */"
                                : "";
                assertThat(lookedUp(batch, table + " " + hint, null))
                        .as(table)
                        .isEqualTo(committed);
            }
        } finally {
            writer.cancel().get(60, TimeUnit.SECONDS);
        }
    }

    /** {@code batch} with table {@code probe}: keys 1 to 5 and their processing time. */
    private static TableEnvironment withProbe(TableEnvironment batch) {
        batch.executeSql(
                "CREATE TEMPORARY TABLE probe (k INT, pt AS PROCTIME()) WITH ("
                        + "'connector' = 'datagen', 'number-of-rows' = '5', "
                        + "'fields.k.kind' = 'sequence', 'fields.k.start' = '1', "
                        + "'fields.k.end' = '5')");
        return batch;
    }

    /** Creates table {@code name} with columns k, v, n, enables it and commits {@code rows}. */
    private static void createEnabled(
            StreamTableEnvironment tEnv,
            String name,
            String primaryKey,
            String options,
            String rows)
            throws Exception {
        tEnv.executeSql(
                "CREATE TABLE lake.db."
                        + name
                        + " (k INT, v STRING, n BIGINT"
                        + primaryKey
                        + ") WITH ('bucket' = '2'"
                        + options
                        + ")");
        tEnv.executeSql("ALTER TABLE lake.db." + name + " SET ('lake-stream.enabled' = 'true')");
        // committed through the lake-stream sink
        tEnv.executeSql("INSERT INTO lake.db." + name + " VALUES " + rows).await();
    }

    /**
     * Starts one streaming job that writes each table's tail and runs on, its checkpoint far away:
     * the tails stay uncommitted until the job stops with a savepoint.
     */
    private static JobClient writeTails(StreamTableEnvironment tEnv, Map<String, String> tails) {
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE IF NOT EXISTS idle (k INT, v STRING, n BIGINT) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '1', "
                        + "'fields.k.min' = '1', 'fields.k.max' = '1')");
        StatementSet statements = tEnv.createStatementSet();
        for (Map.Entry<String, String> tail : tails.entrySet()) {
            statements.addInsertSql(
                    "INSERT INTO lake.db."
                            + tail.getKey()
                            + " SELECT * FROM (VALUES "
                            + tail.getValue()
                            + ") AS t (k, v, n) UNION ALL SELECT * FROM idle WHERE k < 0");
        }
        return statements.execute().getJobClient().orElseThrow();
    }

    /** The key of the last row of a table's tail: the union read holds it once the tail is in. */
    private static int tailOf(String table) {
        String tail = TABLES.get(table)[2];
        String last = tail.substring(tail.lastIndexOf("), (") + 4);
        return Integer.parseInt(last.substring(0, last.indexOf(',')).trim());
    }

    /** Waits until the batch union read holds key {@code key}; returns the read then. */
    private static Map<Integer, String> await(TableEnvironment batch, String table, int key)
            throws Exception {
        List<Map<Integer, String>> read = new ArrayList<>();
        Await.until(
                () -> {
                    read.clear();
                    read.add(rows(batch, "SELECT k, v, n FROM lake.db." + table));
                    return read.get(0).containsKey(key);
                },
                "the union read of " + table + " holds the store's key " + key);
        return read.get(0);
    }

    /**
     * The rows a lookup join of keys 1 to 5 finds, by key; with {@code isolation} as a hint when
     * not null or empty.
     */
    private static Map<Integer, String> lookedUp(
            TableEnvironment batch, String table, String isolation) {
        String dim =
                isolation == null || isolation.isEmpty()
                        ? "lake.db." + table
                        : "lake.db."
                                + table
                                + " /*+ OPTIONS('lake-stream.read.isolation' = '"
                                + isolation
                                + "') */";
        return rows(
                batch,
                "SELECT d.k, d.v, d.n FROM probe AS p JOIN "
                        + dim
                        + " FOR SYSTEM_TIME AS OF p.pt AS d ON p.k = d.k");
    }

    private static Map<Integer, String> rows(TableEnvironment tEnv, String query) {
        return KeyedRows.ofQuery(tEnv, query);
    }

    private static Map<Integer, String> paimonRead(TableEnvironment tEnv, String table)
            throws Exception {
        return KeyedRows.ofPaimon(tEnv, table);
    }
}
