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
import io.lakestream.offsets.AbortedRange;
import io.lakestream.store.FenceLog;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.testutils.Await;

import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.count;
import static io.lakestream.flink.source.SourceTestTables.committedRows;
import static io.lakestream.flink.source.SourceTestTables.laterRows;
import static io.lakestream.flink.source.SourceTestTables.paimonRead;
import static io.lakestream.flink.source.SourceTestTables.unionRead;
import static io.lakestream.flink.source.SourceTestTables.write;
import static io.lakestream.flink.source.SourceTestTables.writeUncommitted;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code COUNT(*)} pushed down to metadata, against real Fluss, a MiniCluster and a local Paimon
 * warehouse: on an append table with committed rows, a fenced range left by a writer that was taken
 * over, and an uncommitted tail, the pushed count equals the count of a union read that reads every
 * row, and Paimon's count once the tail is committed, with and without a partition filter;
 * lake-only and read-committed reads count the snapshot; a primary-key table is not pushed down.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class CountPushDownITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static final String DATABASE = "count_it";

    /** What the planner shows when it pushed {@code COUNT(*)} into the source. */
    private static final String PUSHED =
            "aggregates=[grouping=[], aggFunctions=[Count1AggFunction()]]";

    /** A filter the source cannot take: the rows are read and counted. */
    private static final String READ_EVERY_ROW = " WHERE CHAR_LENGTH(CAST(id AS STRING)) > 0";

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
    void countOfAnAppendTableWithAFencedRangeAndAnUncommittedTail() throws Exception {
        String name = "appended";
        String sqlName = "lake." + DATABASE + "." + name;
        FileStoreTable table = tables.createTable(name, Kind.APPEND);
        write(table, committedRows());

        // a writer that fails for good before its checkpoint: its records stay in the store
        List<Row> failed = new ArrayList<>();
        for (int dt = 1; dt <= 3; dt++) {
            for (int id = 0; id < 40; id++) {
                failed.add(Row.ofKind(RowKind.INSERT, dt, 1000 + id, -1L, "failed"));
            }
        }
        JobClient failing = writeUncommitted(table, failed);
        long committed = committedRows().size();
        Await.until(
                () -> tables.storedRecords(table) >= committed + failed.size(),
                "the failed writer's records are in the store");
        failing.cancel().get(1, TimeUnit.MINUTES);
        LakeSqlEnvironments.awaitWriterLeaseExpired(
                batch, DATABASE + "." + name, Duration.ofSeconds(1));

        // the next writer fences them before it writes, then writes a tail it does not commit
        List<Row> later = laterRows(Kind.APPEND);
        JobClient writer = writeUncommitted(table, later);
        long stored = committed + failed.size() + later.size();
        Await.until(() -> tables.storedRecords(table) >= stored, "the later rows are in the store");
        assertThat(fences(table)).as("the fences of the failed writer's records").isNotEmpty();
        long snapshotBefore = tables.table(name).snapshotManager().latestSnapshotId();

        String all = "SELECT COUNT(*) FROM " + sqlName;
        String third = all + " WHERE dt = 3";
        assertThat(batch.explainSql(all)).contains(PUSHED);
        assertThat(batch.explainSql(third)).contains(PUSHED);
        assertThat(batch.explainSql(all + READ_EVERY_ROW)).doesNotContain(PUSHED);
        long pushed = count(batch, sqlName);
        long pushedThird = count(batch, sqlName + " WHERE dt = 3");
        long readAll = count(batch, sqlName + READ_EVERY_ROW);
        long readThird = count(batch, sqlName + READ_EVERY_ROW + " AND dt = 3");
        long unionRows = unionRead(tables.table(name)).size();
        String lakeOnly = sqlName + " /*+ OPTIONS('lake-stream.read.lake-only' = 'true') */";
        String readCommitted =
                sqlName + " /*+ OPTIONS('lake-stream.read.isolation' = 'read-committed') */";
        assertThat(batch.explainSql("SELECT COUNT(*) FROM " + lakeOnly)).contains(PUSHED);
        long pushedLakeOnly = count(batch, lakeOnly);
        long pushedCommitted = count(batch, readCommitted);
        long paimonBefore = paimonRead(tables.table(name)).size();
        assertThat(tables.table(name).snapshotManager().latestSnapshotId())
                .as("nothing committed while the counts ran")
                .isEqualTo(snapshotBefore);

        GatedRows.open();
        writer.getJobExecutionResult().get(2, TimeUnit.MINUTES);
        FileStoreTable after = tables.table(name);
        long paimonAfter = paimonRead(after).size();
        long paimonThirdAfter =
                paimonRead(after, new PredicateBuilder(after.rowType()).equal(0, 3)).size();
        System.out.printf(
                "COUNT(*) pushed down: %d (dt = 3: %d); union read: %d rows (dt = 3: %d); Paimon "
                        + "after the commit: %d (dt = 3: %d); lake-only %d, read-committed %d, "
                        + "Paimon before the commit %d%n",
                pushed,
                pushedThird,
                readAll,
                readThird,
                paimonAfter,
                paimonThirdAfter,
                pushedLakeOnly,
                pushedCommitted,
                paimonBefore);

        assertThat(pushed).as("the union read's count").isEqualTo(readAll).isEqualTo(unionRows);
        assertThat(pushed).as("Paimon's count after the commit").isEqualTo(paimonAfter);
        assertThat(pushed)
                .as("the fenced records are not counted")
                .isEqualTo(committed + later.size());
        assertThat(pushedThird).isEqualTo(readThird).isEqualTo(paimonThirdAfter).isPositive();
        assertThat(pushedLakeOnly).isEqualTo(pushedCommitted).isEqualTo(paimonBefore);
        assertThat(count(batch, sqlName)).as("pushed after the commit").isEqualTo(paimonAfter);
    }

    @Test
    void countOfAPrimaryKeyTableIsNotPushedDown() throws Exception {
        String name = "keyed";
        String sqlName = "lake." + DATABASE + "." + name;
        FileStoreTable table = tables.createTable(name, Kind.DEDUPLICATE);
        write(table, committedRows());
        write(table, laterRows(Kind.DEDUPLICATE));

        assertThat(batch.explainSql("SELECT COUNT(*) FROM " + sqlName)).doesNotContain(PUSHED);
        assertThat(count(batch, sqlName)).isEqualTo(paimonRead(tables.table(name)).size());
    }

    private static List<AbortedRange> fences(FileStoreTable table) {
        StreamTable streamTable =
                tables.store.get(StreamTableSpec.of(tables.identifier(table.name()), table));
        try (FenceLog log = tables.store.openFenceLog(streamTable)) {
            return log.readNew();
        }
    }
}
