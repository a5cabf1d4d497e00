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

import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.lakestream.flink.source.SourceTestTables.asInserts;
import static io.lakestream.flink.source.SourceTestTables.materialize;
import static io.lakestream.flink.source.SourceTestTables.paimonRead;
import static io.lakestream.flink.source.SourceTestTables.read;
import static io.lakestream.flink.source.SourceTestTables.render;
import static io.lakestream.flink.source.SourceTestTables.storeOptions;
import static io.lakestream.flink.source.SourceTestTables.write;
import static io.lakestream.flink.source.SourceTestTables.writeUncommitted;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A filter on a value column ({@code v >= 1000}) never changes a primary-key merge: a filtered read
 * taken while changes are in the store but not committed equals Paimon's own filtered read once
 * they are committed, from the DataStream builder (with and without a projection that leaves the
 * filtered column out), from SQL, and as an unbounded changelog.
 *
 * <p>The committed rows of partition 1 all fail the filter, so Paimon's scan would skip their files
 * by the filter; the store's changes make some of them pass it (partial-update keeps the committed
 * name, aggregation sums onto the committed value) or must not (first-row keeps the committed row).
 * In partition 2 some committed rows pass the filter and changes delete them or move them out of
 * it. New keys arrive in partitions 1 to 3.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class ValueFilterITCase {

    private static final long IN_FILTER = 1000L;

    @TempDir static java.nio.file.Path warehouse;

    private static SourceTestTables tables;
    private static LakeSqlEnvironments sql;

    @BeforeAll
    static void open() throws Exception {
        tables = new SourceTestTables(warehouse, "value_filter_it");
        sql = new LakeSqlEnvironments(warehouse);
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"APPEND", "PARTIAL_UPDATE", "AGGREGATION", "FIRST_ROW"})
    void aBoundedFilteredReadBeforeTheCommitEqualsPaimonsFilteredReadAfterIt(Kind kind)
            throws Exception {
        String name = "bounded_" + kind.name().toLowerCase();
        FileStoreTable table = tables.createTable(name, kind);
        write(table, committedRows());
        List<Row> later = laterRows(kind);
        JobClient writer = writeUncommitted(table, later);
        List<String> dataStream;
        List<String> projected;
        List<String> selected = new ArrayList<>();
        try {
            Await.until(
                    () -> tables.storedRecords(table) >= committedRows().size() + later.size(),
                    "the later rows are in the store");
            FileStoreTable current = tables.table(name);
            long snapshot = current.snapshotManager().latestSnapshotId();
            Predicate filter = valueFilter(current);

            dataStream =
                    read(
                            LakeStreamSource.builder()
                                    .setTable(current)
                                    .setBounded(true)
                                    .setFilter(filter),
                            r -> render(r));
            // columns (id, name): the filtered column v is not among them
            projected =
                    read(
                            LakeStreamSource.builder()
                                    .setTable(current)
                                    .setBounded(true)
                                    .setFilter(filter)
                                    .setProjection(new int[] {1, 3}),
                            r -> r.getInt(0) + "|" + r.getString(1));
            try (CloseableIterator<Row> rows =
                    sql.batch()
                            .executeSql(
                                    String.format(
                                            "SELECT * FROM lake.%s.%s WHERE v >= %d",
                                            tables.database, name, IN_FILTER))
                            .collect()) {
                rows.forEachRemaining(r -> selected.add(render(r)));
            }
            assertThat(tables.table(name).snapshotManager().latestSnapshotId())
                    .as("nothing committed while the reads ran")
                    .isEqualTo(snapshot);
        } finally {
            GatedRows.open();
        }
        writer.getJobExecutionResult().get(2, TimeUnit.MINUTES);

        FileStoreTable committed = tables.table(name);
        List<String> paimon = asInserts(paimonRead(committed, valueFilter(committed)));
        List<String> paimonProjected = new ArrayList<>();
        for (String row : paimon) {
            String[] fields = row.substring(2).split("\\|");
            paimonProjected.add(fields[1] + "|" + fields[3]);
        }
        System.out.printf(
                "%s: %d rows pass the filter in Paimon's read after the commit%n",
                kind, paimon.size());
        assertThat(paimon).as("rows pass the filter").isNotEmpty();
        assertThat(dataStream).as("DataStream read").containsExactlyInAnyOrderElementsOf(paimon);
        assertThat(projected)
                .as("DataStream read with a projection")
                .containsExactlyInAnyOrderElementsOf(paimonProjected);
        assertThat(selected).as("SQL read").containsExactlyInAnyOrderElementsOf(paimon);
    }

    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"PARTIAL_UPDATE", "FIRST_ROW"})
    void anUnboundedFilteredChangelogEndsInPaimonsFilteredState(Kind kind) throws Exception {
        String name = "unbounded_" + kind.name().toLowerCase();
        FileStoreTable table = tables.createTable(name, kind);
        write(table, committedRows());
        CommittedRows.clear();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        LakeStreamSource source =
                LakeStreamSource.builder()
                        .setTable(table)
                        .setOptions(storeOptions())
                        .setFilter(valueFilter(table))
                        .build();
        LakeStreamChangelog.of(env, source, name)
                .addSink(new CommittedRows(SourceTestTables::render))
                .setParallelism(1);
        JobClient reader = env.executeAsync("filtered changelog " + name);
        try {
            tables.writeThroughTheStore(table, laterRows(kind));
            FileStoreTable committed = tables.table(name);
            HashSet<String> paimon = new HashSet<>();
            for (String row : paimonRead(committed, valueFilter(committed))) {
                paimon.add(row.substring(2));
            }
            assertThat(paimon).as("rows pass the filter").isNotEmpty();
            Await.until(
                    () -> materialize(CommittedRows.published()).equals(paimon),
                    "the filtered changelog reaches Paimon's filtered state; it holds "
                            + materialize(CommittedRows.published())
                            + ", Paimon "
                            + paimon);
        } finally {
            reader.cancel().get();
        }
    }

    /** {@code v >= 1000}. */
    private static Predicate valueFilter(FileStoreTable table) {
        return new PredicateBuilder(table.rowType()).greaterOrEqual(2, IN_FILTER);
    }

    /**
     * Partition 1: ids 0..59, all outside the filter. Partition 2: ids 0..49 outside it, ids 50..59
     * in it.
     */
    private static List<Row> committedRows() {
        List<Row> rows = new ArrayList<>();
        for (int id = 0; id < 60; id++) {
            rows.add(Row.ofKind(RowKind.INSERT, 1, id, (long) id, "a" + id));
        }
        for (int id = 0; id < 60; id++) {
            long v = id < 50 ? id : IN_FILTER + id;
            rows.add(Row.ofKind(RowKind.INSERT, 2, id, v, "a" + id));
        }
        return rows;
    }

    /**
     * Changes that bring ids 0..19 of partitions 1 and 2 into the filter (first-row: they must stay
     * out), that move ids 50..59 of partition 2 out of it (deduplicate: ids 50..54 are deleted),
     * and new keys in the filter in partitions 1 to 3.
     */
    private static List<Row> laterRows(Kind kind) {
        List<Row> rows = new ArrayList<>();
        for (int dt = 1; dt <= 2; dt++) {
            for (int id = 0; id < 20; id++) {
                switch (kind) {
                    case PARTIAL_UPDATE:
                        // a null name keeps the committed one
                        rows.add(Row.ofKind(RowKind.INSERT, dt, id, IN_FILTER + id, null));
                        break;
                    case AGGREGATION:
                        // summed onto the committed v = id
                        rows.add(Row.ofKind(RowKind.INSERT, dt, id, IN_FILTER, "b" + id));
                        break;
                    case DEDUPLICATE:
                        rows.add(
                                Row.ofKind(RowKind.UPDATE_AFTER, dt, id, IN_FILTER + id, "b" + id));
                        break;
                    default:
                        rows.add(Row.ofKind(RowKind.INSERT, dt, id, IN_FILTER + id, "b" + id));
                }
            }
        }
        for (int id = 50; id < 60; id++) {
            switch (kind) {
                case PARTIAL_UPDATE:
                    rows.add(Row.ofKind(RowKind.INSERT, 2, id, (long) id, null));
                    break;
                case AGGREGATION:
                    rows.add(Row.ofKind(RowKind.INSERT, 2, id, -2 * IN_FILTER, null));
                    break;
                case DEDUPLICATE:
                    rows.add(
                            id < 55
                                    ? Row.ofKind(RowKind.DELETE, 2, id, IN_FILTER + id, "a" + id)
                                    : Row.ofKind(RowKind.UPDATE_AFTER, 2, id, (long) id, "c" + id));
                    break;
                default:
                    rows.add(Row.ofKind(RowKind.INSERT, 2, id, (long) id, "c" + id));
            }
        }
        for (int dt = 1; dt <= 3; dt++) {
            for (int id = 100; id < 105; id++) {
                rows.add(Row.ofKind(RowKind.INSERT, dt, id, IN_FILTER + id, "n" + id));
            }
        }
        return rows;
    }
}
