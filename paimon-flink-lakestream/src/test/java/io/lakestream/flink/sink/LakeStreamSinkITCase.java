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

package io.lakestream.flink.sink;

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The dual-write sink on a Flink MiniCluster, a real Fluss cluster and a local Paimon warehouse:
 * what every snapshot commits equals what the store holds below the snapshot's offsets, records are
 * readable in the store before any checkpoint, and a job that fails mid-stream ends with every
 * input row exactly once.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamSinkITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static SinkTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SinkTestTables(warehouse, "sink_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    @Test
    void everySnapshotHoldsExactlyTheStoreRecordsBelowItsOffsets() throws Exception {
        // no compaction by the writer: Paimon 1.3.1's append writer can list a compaction that
        // finished at the end of a bounded input as both removed and added, and its commit then
        // fails ("File deletion conflicts detected", docs/writing.md); this test is about the
        // offsets each snapshot records, which compactions carry over unchanged
        FileStoreTable table =
                tables.create("append_boundary", false, 3, Map.of("write-only", "true"));
        int rows = 3_000;
        StreamExecutionEnvironment env = SinkTestTables.env(2, 300);
        env.setRestartStrategy(RestartStrategies.noRestart());
        DataStream<RowData> input = SinkTestTables.rows(env, rows, 1_000);
        SinkTestTables.sink(table).sinkFrom(input);
        env.execute("boundary");

        table = (FileStoreTable) tables.catalog.getTable(tables.identifier("append_boundary"));
        long latest = table.snapshotManager().latestSnapshotId();
        assertThat(latest).as("several checkpoints committed").isGreaterThan(1);
        tables.verify.assertEverySnapshotHoldsTheStoreBelowItsOffsets(table);
        assertThat(SinkVerification.readPaimon(table, latest)).hasSize(rows);
    }

    /**
     * A compaction's snapshot records no new store records: with a writer that compacts, every
     * snapshot, the compactions' among them, holds exactly the store records below its offsets. The
     * input is unbounded and the job cancelled, so no end of input races a compaction.
     */
    @Test
    void compactionSnapshotsHoldExactlyTheStoreRecordsBelowTheirOffsets() throws Exception {
        FileStoreTable table =
                tables.create(
                        "append_compacting",
                        false,
                        3,
                        Map.of("compaction.min.file-num", "2", "compaction.max.file-num", "3"));
        StreamExecutionEnvironment env = SinkTestTables.env(2, 300);
        env.setRestartStrategy(RestartStrategies.noRestart());
        DataStream<RowData> input = SinkTestTables.rows(env, Long.MAX_VALUE, 500);
        SinkTestTables.sink(table).sinkFrom(input);
        JobClient job = env.executeAsync("compacting");
        try {
            Await.until(
                    () -> compactions(table) >= 2, "the writer committed two compactions or more");
        } finally {
            job.cancel().get();
        }

        long checked = compactions(table);
        tables.verify.assertEverySnapshotHoldsTheStoreBelowItsOffsets(table);
        assertThat(checked).as("compaction snapshots checked").isGreaterThanOrEqualTo(2);
    }

    private static long compactions(FileStoreTable table) {
        Long latest = table.snapshotManager().latestSnapshotId();
        if (latest == null) {
            return 0;
        }
        long count = 0;
        for (long id = table.snapshotManager().earliestSnapshotId(); id <= latest; id++) {
            if (table.snapshotManager().snapshot(id).commitKind()
                    == org.apache.paimon.Snapshot.CommitKind.COMPACT) {
                count++;
            }
        }
        return count;
    }

    @ParameterizedTest(name = "store writer chained: {0}")
    @ValueSource(booleans = {true, false})
    void primaryKeySnapshotsEqualTheStoreChangesMergedByKey(boolean chained) throws Exception {
        String name = chained ? "pk_boundary" : "pk_boundary_store_ahead";
        FileStoreTable table = tables.create(name, true);
        int rows = 3_000;
        StreamExecutionEnvironment env = SinkTestTables.env(2, 300);
        env.setRestartStrategy(RestartStrategies.noRestart());
        // ids repeat, so later rows update earlier ones
        DataStream<RowData> input =
                env.fromSource(
                        new DataGeneratorSource<>(
                                i ->
                                        GenericRowData.of(
                                                (int) (i % 500),
                                                StringData.fromString("payload-" + i),
                                                StringData.fromString("d" + (i % 500 % 3))),
                                rows,
                                RateLimiterStrategy.perSecond(1_000),
                                TypeInformation.of(RowData.class)),
                        WatermarkStrategy.noWatermarks(),
                        "rows");
        SinkTestTables.sink(table, storeWriterChaining(chained)).sinkFrom(input);
        env.execute(name);

        table = (FileStoreTable) tables.catalog.getTable(tables.identifier(name));
        long latest = table.snapshotManager().latestSnapshotId();
        assertThat(latest).as("several checkpoints committed").isGreaterThan(1);
        tables.verify.assertEverySnapshotEqualsTheStoreMergedByKey(table);
        assertThat(SinkVerification.readPaimon(table, latest)).hasSize(500);
    }

    @Test
    void recordsAreReadableInTheStoreBeforeAnyCheckpoint() throws Exception {
        FileStoreTable table = tables.create("fresh", true);
        StreamExecutionEnvironment env = SinkTestTables.env(2, Duration.ofMinutes(10).toMillis());
        DataStream<RowData> input = SinkTestTables.rows(env, Long.MAX_VALUE, 200);
        SinkTestTables.sink(table).sinkFrom(input);
        JobClient job = env.executeAsync("fresh");
        try {
            StreamTable streamTable =
                    tables.store.get(
                            StreamTableSpec.of(Identifier.fromString(table.fullName()), table));
            List<PartitionBucket> all = new ArrayList<>();
            for (String dt : new String[] {"d0", "d1", "d2"}) {
                for (int b = 0; b < 3; b++) {
                    all.add(
                            new PartitionBucket(
                                    org.apache.paimon.data.BinaryRow.singleColumn(dt), b));
                }
            }
            Await.until(
                    () -> tables.verify.storedRecords(streamTable, all) >= 100,
                    "records are readable in the store");
            assertThat(tables.verify.storedRecords(streamTable, all))
                    .as("records readable in the store")
                    .isGreaterThanOrEqualTo(100);
            assertThat(table.snapshotManager().latestSnapshotId())
                    .as("no Paimon snapshot yet: no checkpoint has completed")
                    .isNull();
        } finally {
            job.cancel().get();
        }
    }

    /**
     * The job fails three times at random points (the seed is printed): twice while records pass,
     * then once when a checkpoint completes (last, because the final checkpoint of a bounded input
     * always completes, while records may have run out). It ends with every row exactly once in
     * Paimon, and every record that the failed attempts left in the store beyond the committed
     * offsets is fenced.
     */
    @ParameterizedTest(name = "primary key: {0}, store writer chained: {1}")
    // the store writer ahead of Paimon's (not chained) once, on a primary-key table
    @CsvSource({"false, true", "true, true", "true, false"})
    void failuresAtRandomPointsEndWithEveryRowExactlyOnce(boolean primaryKey, boolean chained)
            throws Exception {
        String name =
                (primaryKey ? "pk_failover" : "append_failover") + (chained ? "" : "_store_ahead");
        FileStoreTable table = tables.create(name, primaryKey);
        int rows = 6_000;
        long seed = System.nanoTime();
        List<FailAtRandomPoints.Failure> plan =
                FailAtRandomPoints.plan(
                        seed,
                        rows,
                        FailAtRandomPoints.Where.RECORD,
                        FailAtRandomPoints.Where.RECORD,
                        FailAtRandomPoints.Where.CHECKPOINT_COMPLETE);
        System.out.printf("%s: seed %d, failures %s%n", name, seed, plan);
        StreamExecutionEnvironment env = SinkTestTables.env(2, 200);
        // room for more restarts than the injected ones: after a restore that finds a checkpoint
        // complete but not yet committed, Paimon's committer commits it and then fails the job on
        // purpose once more, so that the writers restart from the new snapshot
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(2 * plan.size() + 2, 100));
        DataStream<RowData> input =
                env.fromSource(
                                new DataGeneratorSource<>(
                                        SinkTestTables::row,
                                        rows,
                                        RateLimiterStrategy.perSecond(4_000),
                                        TypeInformation.of(RowData.class)),
                                WatermarkStrategy.noWatermarks(),
                                "rows")
                        .map(new FailAtRandomPoints())
                        .returns(TypeInformation.of(RowData.class));
        SinkTestTables.sink(table, storeWriterChaining(chained)).sinkFrom(input);
        env.execute(name);
        assertThat(FailAtRandomPoints.injected()).as("failures injected").isEqualTo(plan.size());

        long fenced = tables.verify.assertExactlyOnce(tables.identifier(name), rows);
        System.out.printf("%s: %d records of failed attempts fenced%n", name, fenced);
        assertThat(fenced).as("records of the attempts that failed while writing").isPositive();
    }

    /**
     * The only TaskManager is terminated while the job runs and a new one started: the job recovers
     * from its last checkpoint and ends with every row exactly once.
     */
    @Test
    void aTaskManagerRestartEndsWithEveryRowExactlyOnce() throws Exception {
        MiniCluster miniCluster = SharedMiniCluster.miniCluster();
        Identifier identifier = tables.identifier("tm_restart");
        FileStoreTable table = tables.create("tm_restart", true);
        int rows = 6_000;
        StreamExecutionEnvironment env = SinkTestTables.env(2, 200);
        // attempts that find no slot fail at once until the new TaskManager registered, which
        // can take seconds on two busy cores: 60 attempts 500 ms apart allow for 30 s
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(60, 500));
        DataStream<RowData> input =
                env.fromSource(
                        new DataGeneratorSource<>(
                                SinkTestTables::row,
                                rows,
                                RateLimiterStrategy.perSecond(2_000),
                                TypeInformation.of(RowData.class)),
                        WatermarkStrategy.noWatermarks(),
                        "rows");
        SinkTestTables.sink(table).sinkFrom(input);
        JobClient job = env.executeAsync("tm restart");
        Await.until(() -> tables.latestSnapshotId("tm_restart") >= 2, "two snapshots");
        assertThat(tables.latestSnapshotId("tm_restart"))
                .as("snapshots before the restart")
                .isGreaterThan(1);
        miniCluster.terminateTaskManager(0).get();
        miniCluster.startTaskManager();
        job.getJobExecutionResult().get();
        tables.verify.assertExactlyOnce(identifier, rows);
    }

    /**
     * Rows with row kinds, given as external {@link Row}s: Paimon merges them by key and the store
     * keeps every change with its row kind.
     */
    @Test
    void externalRowsKeepTheirRowKinds() throws Exception {
        Identifier identifier = tables.identifier("row_kinds");
        FileStoreTable table = tables.create("row_kinds", true);
        StreamExecutionEnvironment env = SinkTestTables.env(2, 200);
        env.setParallelism(1);
        DataStream<Row> changes =
                env.fromData(
                                Row.ofKind(RowKind.INSERT, 1, "a", "d0"),
                                Row.ofKind(RowKind.INSERT, 2, "b", "d1"),
                                Row.ofKind(RowKind.UPDATE_BEFORE, 1, "a", "d0"),
                                Row.ofKind(RowKind.UPDATE_AFTER, 1, "a2", "d0"),
                                Row.ofKind(RowKind.DELETE, 2, "b", "d1"))
                        .returns(
                                Types.ROW_NAMED(
                                        new String[] {"id", "payload", "dt"},
                                        Types.INT,
                                        Types.STRING,
                                        Types.STRING));
        SinkTestTables.sink(table).sinkFromRows(changes);
        env.execute("row kinds");

        table = (FileStoreTable) tables.catalog.getTable(identifier);
        long latest = table.snapshotManager().latestSnapshotId();
        assertThat(SinkVerification.readPaimon(table, latest)).containsExactly("1|a2|d0");
        StreamTable streamTable = tables.store.get(StreamTableSpec.of(identifier, table));
        List<String> changelog = new ArrayList<>();
        List<StreamRecord> records =
                tables.verify.readStoreRecords(
                        streamTable, SnapshotOffsets.ofSnapshot(table, latest).orElseThrow());
        records.sort(
                java.util.Comparator.comparing((StreamRecord r) -> r.row().getString(2).toString())
                        .thenComparingLong(StreamRecord::offset));
        for (StreamRecord record : records) {
            changelog.add(record.rowKind().shortString() + SinkVerification.render(record.row()));
        }
        assertThat(changelog)
                .containsExactly("+I1|a|d0", "-U1|a|d0", "+U1|a2|d0", "+I2|b|d1", "-D2|b|d1");
    }

    @Test
    void buildNamesWhatIsWrong() throws Exception {
        Identifier identifier = tables.identifier("not_enabled");
        tables.catalog.createTable(
                identifier,
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .primaryKey("id")
                        .option("bucket", "2")
                        .build(),
                false);
        FileStoreTable table = (FileStoreTable) tables.catalog.getTable(identifier);
        assertThatThrownBy(() -> LakeStreamSink.builder().build())
                .hasMessageContaining("Table is required");
        assertThatThrownBy(() -> LakeStreamSink.builder().setTable(table).build())
                .hasMessageContaining("sink_it.not_enabled is not in lake-stream mode")
                .hasMessageContaining("'lake-stream.enabled' = 'true'");
        FileStoreTable enabled =
                table.copy(java.util.Collections.singletonMap("lake-stream.enabled", "true"));
        LakeStreamSink.Builder builder =
                LakeStreamSink.builder()
                        .setTable(enabled)
                        .setOptions(SharedStreamStore.lakeStreamOptions());
        try (StreamStore store = SharedStreamStore.newStore()) {
            if (store.isProcessLocal()) {
                // a process-local store starts empty in every process: the table's enablement is
                // what says its stream table exists, and the sink provisions it
                assertThat(builder.build().streamTable().spec().identifier()).isEqualTo(identifier);
            } else {
                assertThatThrownBy(builder::build).hasMessageContaining("does not exist");
            }
        }
    }

    /** The sink option that runs the store's writer in Paimon's writer task or ahead of it. */
    static Map<String, String> storeWriterChaining(boolean chained) {
        return Map.of(LakeStreamOptions.SINK_STORE_WRITER_CHAINING.key(), String.valueOf(chained));
    }
}
