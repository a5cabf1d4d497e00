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

package io.lakestream.flink.source;

import io.lakestream.flink.catalog.LakeSqlEnvironments;
import io.lakestream.flink.source.SourceTestTables.Kind;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.testutils.Await;

import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.lakestream.flink.source.SourceTestTables.committedRows;
import static io.lakestream.flink.source.SourceTestTables.laterRows;
import static io.lakestream.flink.source.SourceTestTables.write;
import static io.lakestream.flink.source.SourceTestTables.writeUncommitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A batch {@code LIMIT} pushed into the source, against the store, a MiniCluster and a local Paimon
 * warehouse: on partitioned append and primary-key tables with committed rows and an uncommitted
 * tail in the store, at both isolation levels, with and without a partition filter, {@code SELECT *
 * ... LIMIT n} returns min(n, rows) rows, each of which the same read without the limit returns
 * (for a primary-key table: merged rows, never a key's older version). A streaming read takes no
 * limit.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LimitPushDownITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static final String DATABASE = "limit_it";

    /** What the planner shows when it pushed a {@code LIMIT} into the source. */
    private static final String PUSHED = "limit=[";

    private static final String UNCOMMITTED = "read-uncommitted";
    private static final String COMMITTED = "read-committed";

    private static SourceTestTables tables;
    private static TableEnvironment batch;

    @BeforeAll
    static void open() throws Exception {
        tables = new SourceTestTables(warehouse, DATABASE);
        batch = new LakeSqlEnvironments(warehouse).batch();
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    @Test
    void limitOnAnAppendTableWithAnUncommittedTail() throws Exception {
        checkLimits("appended", Kind.APPEND);
    }

    @Test
    void limitOnAPrimaryKeyTableWithAnUncommittedTail() throws Exception {
        checkLimits("keyed", Kind.DEDUPLICATE);
    }

    /**
     * A streaming read ignores the planner's limit (its splits never end): the source refuses a
     * limit on an unbounded read, so the statement would fail had the table source passed it on.
     */
    @Test
    void aStreamingReadTakesNoLimit() throws Exception {
        String name = "streamed";
        FileStoreTable table = tables.createTable(name, Kind.APPEND);
        write(table, committedRows());
        assertThatThrownBy(
                        () ->
                                LakeStreamSource.builder()
                                        .setTable(table)
                                        .setOptions(SourceTestTables.storeOptions())
                                        .setLimit(10)
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(table.fullName())
                .hasMessageContaining("bounded");
        StreamTableEnvironment streaming =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
        streaming.executeSql(
                "CREATE CATALOG lake WITH ('type' = 'paimon-lakestream', 'warehouse' = '"
                        + warehouse.toUri()
                        + "', "
                        + SharedStreamStore.sqlOptions()
                        + ")");
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it =
                streaming
                        .executeSql("SELECT * FROM " + sqlName(name, UNCOMMITTED) + " LIMIT 10")
                        .collect()) {
            while (rows.size() < 10) {
                rows.add(it.next());
            }
        }
        assertThat(rows).hasSize(10);
    }

    private static void checkLimits(String name, Kind kind) throws Exception {
        FileStoreTable table = tables.createTable(name, kind);
        write(table, committedRows());
        List<Row> later = laterRows(kind);
        // a streaming INSERT whose checkpoint is far away: its rows stay in the store
        JobClient writer = writeUncommitted(table, later);
        try {
            long stored = committedRows().size() + later.size();
            Await.until(
                    () -> tables.storedRecords(table) >= stored,
                    "the uncommitted tail is in the store");
            for (String isolation : new String[] {UNCOMMITTED, COMMITTED}) {
                // partition 3 has store records only: read-committed finds no row there
                for (String where : new String[] {"", " WHERE dt = 3", " WHERE dt < 3"}) {
                    String from = sqlName(name, isolation) + where;
                    List<String> all = rows("SELECT * FROM " + from);
                    if (isolation.equals(UNCOMMITTED)) {
                        assertThat(all).as("the union read of %s", from).isNotEmpty();
                    }
                    for (long n : new long[] {1, 10, 250, 100_000}) {
                        String limited = "SELECT * FROM " + from + " LIMIT " + n;
                        assertThat(batch.explainSql(limited)).as(limited).contains(PUSHED);
                        List<String> rows = rows(limited);
                        assertThat(rows)
                                .as("%s: min(%d, %d) rows of the read", limited, n, all.size())
                                .hasSize((int) Math.min(n, all.size()));
                        assertThat(all).as(limited).containsAll(rows);
                    }
                }
            }
        } finally {
            writer.cancel().get(1, TimeUnit.MINUTES);
        }
    }

    private static String sqlName(String name, String isolation) {
        return String.format(
                "lake.%s.%s /*+ OPTIONS('lake-stream.read.isolation' = '%s') */",
                DATABASE, name, isolation);
    }

    private static List<String> rows(String query) {
        List<String> rows = new ArrayList<>();
        for (Row row : CollectionUtil.iteratorToList(batch.executeSql(query).collect())) {
            rows.add(row.toString());
        }
        return rows;
    }
}
