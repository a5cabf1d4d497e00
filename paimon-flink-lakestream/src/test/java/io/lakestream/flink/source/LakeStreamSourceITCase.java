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

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.source.SourceTestTables.Kind;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.lakestream.flink.source.SourceTestTables.ROW_TYPE;
import static io.lakestream.flink.source.SourceTestTables.asInserts;
import static io.lakestream.flink.source.SourceTestTables.committedRows;
import static io.lakestream.flink.source.SourceTestTables.laterRows;
import static io.lakestream.flink.source.SourceTestTables.materialize;
import static io.lakestream.flink.source.SourceTestTables.paimonRead;
import static io.lakestream.flink.source.SourceTestTables.read;
import static io.lakestream.flink.source.SourceTestTables.render;
import static io.lakestream.flink.source.SourceTestTables.storeOptions;
import static io.lakestream.flink.source.SourceTestTables.unionRead;
import static io.lakestream.flink.source.SourceTestTables.write;
import static io.lakestream.flink.source.SourceTestTables.writeUncommitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The hybrid source against real Fluss, a MiniCluster and a local Paimon warehouse: a bounded union
 * read taken while records are in the store but not committed equals Paimon's read once they are
 * committed, for append tables and for every merge engine; an unbounded read sees new rows before
 * any commit.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamSourceITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static SourceTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SourceTestTables(warehouse, "source_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aUnionReadBeforeTheCommitEqualsPaimonsReadAfterIt(Kind kind) throws Exception {
        String name = "union_" + kind.name().toLowerCase();
        FileStoreTable table = tables.createTable(name, kind);
        write(table, committedRows());
        List<Row> later = laterRows(kind);
        JobClient writer = writeUncommitted(table, later);
        long expected = committedRows().size() + later.size();
        FileStoreTable written = table;
        Await.until(() -> tables.storedRecords(written) >= expected, "the rows are in the store");
        assertThat(tables.storedRecords(table)).as("records in the store").isEqualTo(expected);
        table = tables.table(name);
        long snapshotBefore = table.snapshotManager().latestSnapshotId();

        List<String> union = unionRead(table);

        assertThat((tables.table(name)).snapshotManager().latestSnapshotId())
                .as(
                        "nothing committed while the union read ran: %s",
                        tables.describeSnapshots(tables.identifier(name)))
                .isEqualTo(snapshotBefore);
        GatedRows.open();
        writer.getJobExecutionResult().get(2, TimeUnit.MINUTES);
        List<String> paimon = paimonRead(tables.table(name));
        System.out.printf(
                "%s: union read of %d rows before the commit, Paimon read of %d after it%n",
                kind, union.size(), paimon.size());
        assertThat(union).containsExactlyInAnyOrderElementsOf(asInserts(paimon));
    }

    @Test
    void anUnboundedReadSeesNewRowsBeforeAnyCommit() throws Exception {
        FileStoreTable table = tables.createTable("fresh", Kind.DEDUPLICATE);
        write(table, committedRows());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        LakeStreamSource source =
                LakeStreamSource.builder().setTable(table).setOptions(storeOptions()).build();
        try (CloseableIterator<RowData> it =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "unbounded read")
                        .executeAndCollect("unbounded read")) {
            List<String> seen = new ArrayList<>();
            for (int i = 0; i < committedRows().size(); i++) {
                seen.add(render(it.next()));
            }
            assertThat(seen).hasSize(600);
            List<Row> later = new ArrayList<>();
            for (int id = 1000; id < 1010; id++) {
                later.add(Row.ofKind(RowKind.INSERT, 1, id, 0L, "new"));
            }
            long snapshot = (tables.table("fresh")).snapshotManager().latestSnapshotId();
            // the writer stamps each row with the time it emits it
            JobClient writer = writeUncommitted(table, GatedRows.of(later, ROW_TYPE, 2));
            try {
                List<Long> latencies = new ArrayList<>();
                for (int i = 0; i < later.size(); i++) {
                    RowData row = it.next();
                    assertThat(row.getString(3).toString()).isEqualTo("new");
                    latencies.add(System.currentTimeMillis() - row.getLong(2));
                }
                System.out.println(
                        "Write-to-read latency of 10 rows (ms), no commit in between: "
                                + latencies);
                assertThat((tables.table("fresh")).snapshotManager().latestSnapshotId())
                        .as("the rows arrived before any commit")
                        .isEqualTo(snapshot);
            } finally {
                GatedRows.open();
                writer.getJobExecutionResult().get(2, TimeUnit.MINUTES);
            }
        }
    }

    /**
     * A partition filter, a key filter and a projection, while records are in the store but not
     * committed: partitions are pruned in both parts, the projection applies to both, and a
     * partition-bucket whose Paimon files the key filter pruned still reads its log from the
     * snapshot's offset, not from the first record.
     */
    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"APPEND", "DEDUPLICATE"})
    void filtersAndProjectionApplyToBothParts(Kind kind) throws Exception {
        String name = "pushdown_" + kind.name().toLowerCase();
        FileStoreTable table = tables.createTable(name, kind);
        write(table, committedRows());
        List<Row> later = laterRows(kind);
        JobClient writer = writeUncommitted(table, later);
        try {
            Await.until(
                    () -> tables.storedRecords(table) >= committedRows().size() + later.size(),
                    "the later rows are in the store");
            FileStoreTable current = tables.table(name);
            PredicateBuilder filters = new PredicateBuilder(current.rowType());

            // partition dt = 1, columns (id, v)
            List<String> partitionOne =
                    read(
                            LakeStreamSource.builder()
                                    .setTable(current)
                                    .setBounded(true)
                                    .setFilter(filters.equal(0, 1))
                                    .setProjection(new int[] {1, 2}),
                            r -> r.getInt(0) + "|" + (r.isNullAt(1) ? "null" : r.getLong(1)));

            // a key filter that prunes every committed Paimon file (they hold ids 0..299)
            List<String> newKeys =
                    read(
                            LakeStreamSource.builder()
                                    .setTable(current)
                                    .setBounded(true)
                                    .setFilter(filters.greaterOrEqual(1, 300)),
                            r -> render(r));

            GatedRows.open();
            writer.getJobExecutionResult().get(2, TimeUnit.MINUTES);
            List<String> paimon = paimonRead(tables.table(name));
            List<String> expectedPartitionOne = new ArrayList<>();
            List<String> expectedNewKeys = new ArrayList<>();
            for (String row : paimon) {
                String[] f = row.substring(2).split("\\|");
                if (f[0].equals("1")) {
                    expectedPartitionOne.add(f[1] + "|" + f[2]);
                }
                if (Integer.parseInt(f[1]) >= 300) {
                    expectedNewKeys.add(row);
                }
            }
            assertThat(partitionOne).containsExactlyInAnyOrderElementsOf(expectedPartitionOne);
            List<String> newKeysFiltered = new ArrayList<>();
            for (String row : newKeys) {
                int id = Integer.parseInt(row.substring(2).split("\\|")[1]);
                if (id >= 300) {
                    newKeysFiltered.add(row);
                } else {
                    // a key the filter let through: only a key the later rows changed, never a
                    // committed record read again from the start of the log
                    assertThat(id).as("key %s outside the filter", row).isLessThan(120);
                }
            }
            assertThat(newKeysFiltered).containsExactlyInAnyOrderElementsOf(expectedNewKeys);
        } finally {
            GatedRows.open();
        }
    }

    /**
     * A primary-key table with data written by Paimon alone is put in lake-stream mode in place:
     * its snapshots record no offsets, so the stream is read from its first record, and the union
     * read before the commit equals Paimon's read after it.
     */
    @Test
    void aTableEnabledInPlaceReadsItsDataAndTheWholeStream() throws Exception {
        Identifier identifier = tables.identifier("enabled_in_place");
        tables.catalog.createTable(
                identifier,
                Schema.newBuilder()
                        .column("dt", DataTypes.INT().notNull())
                        .column("id", DataTypes.INT().notNull())
                        .column("v", DataTypes.BIGINT())
                        .column("name", DataTypes.STRING())
                        .partitionKeys("dt")
                        .primaryKey("dt", "id")
                        .option("bucket", "2")
                        .build(),
                false);
        FileStoreTable plain = (FileStoreTable) tables.catalog.getTable(identifier);
        org.apache.paimon.table.sink.BatchWriteBuilder batch = plain.newBatchWriteBuilder();
        try (org.apache.paimon.table.sink.BatchTableWrite write = batch.newWrite();
                org.apache.paimon.table.sink.BatchTableCommit commit = batch.newCommit()) {
            for (Row row : committedRows()) {
                write.write(
                        org.apache.paimon.data.GenericRow.of(
                                row.getField(0),
                                row.getField(1),
                                row.getField(2),
                                org.apache.paimon.data.BinaryString.fromString(
                                        (String) row.getField(3))));
            }
            commit.commit(write.prepareCommit());
        }
        tables.catalog.alterTable(
                identifier,
                org.apache.paimon.schema.SchemaChange.setOption(
                        LakeStreamOptions.ENABLED.key(), "true"),
                false);
        FileStoreTable table = (FileStoreTable) tables.catalog.getTable(identifier);
        tables.store.provision(StreamTableSpec.of(identifier, table));

        List<Row> later = laterRows(Kind.DEDUPLICATE);
        JobClient writer = writeUncommitted(table, later);
        List<String> union;
        try {
            Await.until(
                    () -> tables.storedRecords(table) >= later.size(), "the rows are in the store");
            union = unionRead((FileStoreTable) tables.catalog.getTable(identifier));
        } finally {
            GatedRows.open();
        }
        writer.getJobExecutionResult().get(2, TimeUnit.MINUTES);
        List<String> paimon = paimonRead((FileStoreTable) tables.catalog.getTable(identifier));
        assertThat(union).containsExactlyInAnyOrderElementsOf(asInserts(paimon));
        assertThat(paimon).as("the committed rows and the later ones").hasSize(810);
    }

    /**
     * An unbounded read of a primary-key table, turned into a changelog with the table's merge
     * engine, ends in the state that Paimon returns once the store's records are committed.
     */
    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {
                "DEDUPLICATE",
                "SEQUENCE_FIELD",
                "PARTIAL_UPDATE",
                "AGGREGATION",
                "FIRST_ROW",
                "UNPARTITIONED_DEDUPLICATE"
            })
    void anUnboundedChangelogEndsInPaimonsState(Kind kind) throws Exception {
        String name = "changelog_" + kind.name().toLowerCase();
        FileStoreTable table = tables.createTable(name, kind);
        write(table, committedRows());
        CommittedRows.clear();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        LakeStreamSource source =
                LakeStreamSource.builder().setTable(table).setOptions(storeOptions()).build();
        LakeStreamChangelog.of(env, source, name)
                .addSink(new CommittedRows(SourceTestTables::render))
                .setParallelism(1);
        JobClient reader = env.executeAsync("changelog " + name);
        try {
            tables.writeThroughTheStore(table, laterRows(kind));
            List<String> paimon = new ArrayList<>();
            for (String row : paimonRead(tables.table(name))) {
                paimon.add(row.substring(2));
            }
            Await.until(
                    () ->
                            materialize(CommittedRows.published())
                                    .equals(new java.util.HashSet<>(paimon)),
                    "the changelog reaches Paimon's state");
            assertThat(materialize(CommittedRows.published())).hasSize(paimon.size());
        } finally {
            reader.cancel().get();
        }
    }

    @Test
    void buildNamesWhatIsWrong() throws Exception {
        assertThatThrownBy(() -> LakeStreamSource.builder().build())
                .hasMessageContaining("Table is required");

        Identifier plain = tables.identifier("not_enabled");
        tables.catalog.createTable(
                plain,
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .primaryKey("id")
                        .option("bucket", "2")
                        .build(),
                false);
        FileStoreTable notEnabled = (FileStoreTable) tables.catalog.getTable(plain);
        assertThatThrownBy(() -> LakeStreamSource.builder().setTable(notEnabled).build())
                .hasMessageContaining("source_it.not_enabled is not in lake-stream mode");

        FileStoreTable table = tables.createTable("build_errors", Kind.DEDUPLICATE);
        assertThatThrownBy(
                        () ->
                                LakeStreamSource.builder()
                                        .setTable(table)
                                        .setOptions(storeOptions())
                                        .setOption(LakeStreamOptions.READ_LAKE_ONLY.key(), "true")
                                        .build())
                .hasMessageContaining("'lake-stream.read.lake-only'")
                .hasMessageContaining("bounded");
        assertThatThrownBy(
                        () ->
                                LakeStreamSource.builder()
                                        .setTable(table)
                                        .setOptions(storeOptions())
                                        .setProjection(new int[] {0, 4})
                                        .build())
                .hasMessageContaining("Projection index 4 is out of the 4 columns");
        assertThatThrownBy(
                        () ->
                                LakeStreamSource.builder()
                                        .setTable(table)
                                        .setOptions(storeOptions())
                                        .setOption(LakeStreamOptions.READ_ISOLATION.key(), "dirty")
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "Table source_it.build_errors: 'lake-stream.read.isolation' cannot be "
                                + "'dirty'");
    }
}
