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

import io.lakestream.flink.source.SourceTestTables.Kind;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.table.LakeStreamEnablement;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
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

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.lakestream.flink.source.SourceTestTables.asInserts;
import static io.lakestream.flink.source.SourceTestTables.committedRows;
import static io.lakestream.flink.source.SourceTestTables.laterRows;
import static io.lakestream.flink.source.SourceTestTables.paimonRead;
import static io.lakestream.flink.source.SourceTestTables.read;
import static io.lakestream.flink.source.SourceTestTables.render;
import static io.lakestream.flink.source.SourceTestTables.storeOptions;
import static io.lakestream.flink.source.SourceTestTables.write;
import static io.lakestream.flink.source.SourceTestTables.writeUncommitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Time travel and scan options against real Fluss, a MiniCluster and a local Paimon warehouse,
 * while the store holds records no snapshot committed: bounded reads by snapshot id, by time and by
 * tag return exactly Paimon's read of that snapshot; unbounded {@code from-snapshot} and {@code
 * latest} reads return exactly the changes after it; a snapshot from before the table was enabled
 * reads exactly bounded and is refused unbounded; unsupported options are refused by name.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class TimeTravelITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static SourceTestTables tables;
    private static FileStoreTable table;

    /** The snapshot after the first write, and the latest one (after the second write). */
    private static long first;

    private static long latest;

    /** Written to the store after {@link #latest}, never committed while the tests run. */
    private static final List<Row> UNCOMMITTED = new ArrayList<>();

    private static JobClient uncommittedWriter;

    @BeforeAll
    static void writeHistory() throws Exception {
        tables = new SourceTestTables(warehouse, "time_travel_it");
        table = tables.createTable("orders", Kind.DEDUPLICATE);
        write(table, committedRows());
        first = tables.table("orders").snapshotManager().latestSnapshotId();
        tables.table("orders").createTag("after_first", first);
        // the next snapshot is committed later than the first: once the clock has passed its time
        long firstTime = tables.table("orders").snapshotManager().snapshot(first).timeMillis();
        while (System.currentTimeMillis() <= firstTime) {
            Thread.onSpinWait();
        }
        write(table, laterRows(Kind.DEDUPLICATE));
        latest = tables.table("orders").snapshotManager().latestSnapshotId();
        assertThat(latest).isGreaterThan(first);
        for (int id = 1000; id < 1100; id++) {
            UNCOMMITTED.add(Row.ofKind(RowKind.INSERT, 1, id, (long) id, "new"));
        }
        long before = tables.storedRecords(table);
        uncommittedWriter = writeUncommitted(table, UNCOMMITTED);
        Await.until(
                () -> tables.storedRecords(table) >= before + UNCOMMITTED.size(),
                "the uncommitted rows are in the store");
    }

    @AfterAll
    static void close() throws Exception {
        if (uncommittedWriter != null) {
            GatedRows.open();
            uncommittedWriter.getJobExecutionResult().get(2, TimeUnit.MINUTES);
        }
        tables.close();
    }

    /** Paimon's own read of snapshot {@code id} of {@code name}: the oracle. */
    private static List<String> paimonReadOf(String name, long id) throws Exception {
        return asInserts(
                paimonRead(
                        tables.table(name)
                                .copy(
                                        Collections.singletonMap(
                                                "scan.snapshot-id", String.valueOf(id)))));
    }

    private static List<String> boundedRead(FileStoreTable table, String key, String value)
            throws Exception {
        return read(
                LakeStreamSource.builder().setTable(table).setBounded(true).setOption(key, value),
                r -> render(r));
    }

    @Test
    void boundedReadsBySnapshotTimeAndTagEqualPaimonsReadOfThatSnapshot() throws Exception {
        List<String> paimon = paimonReadOf("orders", first);
        assertThat(paimon).hasSize(committedRows().size());
        long firstTime = tables.table("orders").snapshotManager().snapshot(first).timeMillis();

        assertThat(boundedRead(table, "scan.snapshot-id", String.valueOf(first)))
                .as("by snapshot id")
                .containsExactlyInAnyOrderElementsOf(paimon);
        assertThat(boundedRead(table, "scan.timestamp-millis", String.valueOf(firstTime)))
                .as("by time")
                .containsExactlyInAnyOrderElementsOf(paimon);
        assertThat(boundedRead(table, "scan.tag-name", "after_first"))
                .as("by tag")
                .containsExactlyInAnyOrderElementsOf(paimon);
        assertThat(boundedRead(table, "scan.snapshot-id", String.valueOf(latest)))
                .as("the latest snapshot, without the uncommitted records")
                .containsExactlyInAnyOrderElementsOf(paimonReadOf("orders", latest));
    }

    /** The first {@code count} rows of an unbounded read of {@code table} with these options. */
    private static List<String> unboundedRead(int count, String... keyValues) throws Exception {
        return unboundedRead(table, count, keyValues);
    }

    private static List<String> unboundedRead(FileStoreTable table, int count, String... keyValues)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        LakeStreamSource.Builder builder =
                LakeStreamSource.builder().setTable(table).setOptions(storeOptions());
        for (int i = 0; i < keyValues.length; i += 2) {
            builder.setOption(keyValues[i], keyValues[i + 1]);
        }
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<RowData> it =
                env.fromSource(builder.build(), WatermarkStrategy.noWatermarks(), "unbounded")
                        .executeAndCollect("unbounded read")) {
            for (int i = 0; i < count; i++) {
                rows.add(render(it.next()));
            }
        }
        return rows;
    }

    @Test
    void unboundedFromSnapshotAndLatestReturnExactlyTheChangesAfter() throws Exception {
        List<String> changes = new ArrayList<>();
        UNCOMMITTED.forEach(row -> changes.add(render(row)));
        // the changes of the next snapshot on: none of the snapshot's state comes first
        assertThat(unboundedRead(changes.size(), "scan.snapshot-id", String.valueOf(latest + 1)))
                .containsExactlyInAnyOrderElementsOf(changes);
        assertThat(unboundedRead(changes.size(), "scan.mode", "latest"))
                .containsExactlyInAnyOrderElementsOf(changes);
    }

    @Test
    void aSnapshotFromBeforeTheEnablementReadsExactlyBoundedAndIsFollowedUnbounded()
            throws Exception {
        Identifier identifier = tables.identifier("enabled_later");
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
                        .option("write-only", "true")
                        .build(),
                false);
        FileStoreTable plain = (FileStoreTable) tables.catalog.getTable(identifier);
        writeWithPaimonAlone(plain, committedRows().subList(0, 300));
        writeWithPaimonAlone(plain, committedRows().subList(300, 600));
        tables.store.provision(StreamTableSpec.of(identifier, plain));
        new LakeStreamEnablement(tables.catalog, SharedStreamStore.lakeStreamOptions())
                .enable(identifier, Collections.emptyMap());
        FileStoreTable enabled = (FileStoreTable) tables.catalog.getTable(identifier);
        assertThat(enabled.snapshotManager().latestSnapshotId())
                .as("the enabling commit")
                .isEqualTo(3);
        write(enabled, laterRows(Kind.DEDUPLICATE));

        assertThat(boundedRead(enabled, "scan.snapshot-id", "1"))
                .containsExactlyInAnyOrderElementsOf(paimonReadOf("enabled_later", 1));
        // from snapshot 2 on: Paimon alone committed it, so the read follows that commit (its
        // delta, as Paimon's streaming read returns it), then the store from the enabling commit
        List<String> changes = new ArrayList<>();
        committedRows().subList(300, 600).forEach(row -> changes.add(render(row)));
        // and what a read from the enabling commit on returns
        changes.addAll(
                unboundedRead(
                        enabled, laterRows(Kind.DEDUPLICATE).size(), "scan.snapshot-id", "4"));
        assertThat(unboundedRead(enabled, changes.size(), "scan.snapshot-id", "2"))
                .containsExactlyInAnyOrderElementsOf(changes);
    }

    private static void writeWithPaimonAlone(FileStoreTable table, List<Row> rows)
            throws Exception {
        BatchWriteBuilder batch = table.newBatchWriteBuilder();
        try (BatchTableWrite write = batch.newWrite();
                BatchTableCommit commit = batch.newCommit()) {
            for (Row row : rows) {
                write.write(
                        GenericRow.of(
                                row.getField(0),
                                row.getField(1),
                                row.getField(2),
                                BinaryString.fromString((String) row.getField(3))));
            }
            commit.commit(write.prepareCommit());
        }
    }

    @Test
    void unsupportedOptionsAreRefusedByName() {
        assertThatThrownBy(
                        () ->
                                LakeStreamSource.builder()
                                        .setTable(table)
                                        .setOptions(storeOptions())
                                        .setOption("consumer-id", "dashboard")
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("time_travel_it.orders")
                .hasMessageContaining("'consumer-id' needs 'consumer.expiration-time'");
        assertThatThrownBy(
                        () ->
                                LakeStreamSource.builder()
                                        .setTable(table)
                                        .setOptions(storeOptions())
                                        .setBounded(true)
                                        .setOption("incremental-between", "1,2")
                                        .build())
                .hasMessageContaining("'incremental-between' = '1,2'");
        assertThatThrownBy(
                        () ->
                                LakeStreamSource.builder()
                                        .setTable(table)
                                        .setOptions(storeOptions())
                                        .setStartingTag("after_first")
                                        .build())
                .hasMessageContaining("'scan.tag-name' = 'after_first'")
                .hasMessageContaining("bounded");
    }
}
