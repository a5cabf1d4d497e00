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

import io.lakestream.flink.LakeStreamOptions;
import io.lakestream.flink.offsets.PartitionBucket;
import io.lakestream.flink.offsets.SnapshotOffsets;
import io.lakestream.flink.offsets.StreamOffsets;
import io.lakestream.flink.store.OffsetPosition;
import io.lakestream.flink.store.StreamRecord;
import io.lakestream.flink.store.StreamStore;
import io.lakestream.flink.store.StreamTable;
import io.lakestream.flink.store.StreamTableSpec;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The dual-write sink on a Flink MiniCluster, a real Fluss cluster and a local Paimon warehouse:
 * what every snapshot commits equals what the store holds below the snapshot's offsets, records are
 * readable in the store before any checkpoint, and a job that fails mid-stream ends with every
 * input row exactly once.
 */
@ExtendWith(SharedFlussCluster.class)
class LakeStreamSinkITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir static java.nio.file.Path warehouse;

    private static Catalog catalog;
    private static StreamStore store;
    private static SinkVerification verify;

    @BeforeAll
    static void open() throws Exception {
        catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(new Path(warehouse.toUri().toString())));
        catalog.createDatabase("sink_it", true);
        store = SharedFlussCluster.newStore();
        verify = new SinkVerification(catalog, store);
    }

    @AfterAll
    static void close() throws Exception {
        store.close();
        catalog.close();
    }

    /** Creates an enabled table and its stream table, as enabling lake-stream mode does. */
    private static FileStoreTable createTable(String name, boolean primaryKey) throws Exception {
        Identifier identifier = Identifier.create("sink_it", name);
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("payload", DataTypes.STRING())
                        .column("dt", DataTypes.STRING().notNull())
                        .partitionKeys("dt")
                        .option("bucket", "3")
                        .option(LakeStreamOptions.ENABLED.key(), "true");
        if (primaryKey) {
            schema.primaryKey("id", "dt");
        } else {
            schema.option("bucket-key", "id");
        }
        catalog.createTable(identifier, schema.build(), false);
        FileStoreTable table = (FileStoreTable) catalog.getTable(identifier);
        store.provision(StreamTableSpec.of(identifier, table));
        return table;
    }

    private static LakeStreamSink sink(FileStoreTable table) {
        return LakeStreamSink.builder()
                .setTable(table)
                .setOptions(SharedFlussCluster.lakeStreamOptions())
                .build();
    }

    private static RowData row(long i) {
        return GenericRowData.of(
                (int) i,
                StringData.fromString("payload-" + i),
                StringData.fromString("d" + (i % 3)));
    }

    private static StreamExecutionEnvironment env(long checkpointMillis) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(checkpointMillis);
        return env;
    }

    @Test
    void everySnapshotHoldsExactlyTheStoreRecordsBelowItsOffsets() throws Exception {
        FileStoreTable table = createTable("append_boundary", false);
        int rows = 3_000;
        StreamExecutionEnvironment env = env(300);
        env.setRestartStrategy(RestartStrategies.noRestart());
        DataStream<RowData> input =
                env.fromSource(
                        new DataGeneratorSource<>(
                                LakeStreamSinkITCase::row,
                                rows,
                                RateLimiterStrategy.perSecond(3_000),
                                TypeInformation.of(RowData.class)),
                        WatermarkStrategy.noWatermarks(),
                        "rows");
        sink(table).sinkFrom(input);
        env.execute("boundary");

        table = (FileStoreTable) catalog.getTable(Identifier.create("sink_it", "append_boundary"));
        long latest = table.snapshotManager().latestSnapshotId();
        assertThat(latest).as("several checkpoints committed").isGreaterThan(1);
        StreamTable streamTable =
                store.get(StreamTableSpec.of(Identifier.fromString(table.fullName()), table));
        for (long id = table.snapshotManager().earliestSnapshotId(); id <= latest; id++) {
            StreamOffsets offsets = SnapshotOffsets.ofSnapshot(table, id).orElseThrow();
            List<String> lake = SinkVerification.readPaimon(table, id);
            List<String> stream = verify.readStore(streamTable, offsets);
            assertThat(stream).as("snapshot %s", id).containsExactlyInAnyOrderElementsOf(lake);
        }
        assertThat(SinkVerification.readPaimon(table, latest)).hasSize(rows);
    }

    @Test
    void primaryKeySnapshotsEqualTheStoreChangesMergedByKey() throws Exception {
        FileStoreTable table = createTable("pk_boundary", true);
        int rows = 3_000;
        StreamExecutionEnvironment env = env(300);
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
                                RateLimiterStrategy.perSecond(3_000),
                                TypeInformation.of(RowData.class)),
                        WatermarkStrategy.noWatermarks(),
                        "rows");
        sink(table).sinkFrom(input);
        env.execute("pk boundary");

        table = (FileStoreTable) catalog.getTable(Identifier.create("sink_it", "pk_boundary"));
        long latest = table.snapshotManager().latestSnapshotId();
        assertThat(latest).as("several checkpoints committed").isGreaterThan(1);
        StreamTable streamTable =
                store.get(StreamTableSpec.of(Identifier.fromString(table.fullName()), table));
        for (long id = table.snapshotManager().earliestSnapshotId(); id <= latest; id++) {
            StreamOffsets offsets = SnapshotOffsets.ofSnapshot(table, id).orElseThrow();
            // the store's changes below the offsets, latest per key: a key's changes are all in
            // one partition-bucket, in offset order
            Map<String, String> merged = new HashMap<>();
            List<StreamRecord> records = verify.readStoreRecords(streamTable, offsets);
            records.sort(java.util.Comparator.comparingLong(StreamRecord::offset));
            for (StreamRecord record : records) {
                InternalRow row = record.row();
                merged.put(row.getInt(0) + "|" + row.getString(2), SinkVerification.render(row));
            }
            assertThat(merged.values())
                    .as("snapshot %s", id)
                    .containsExactlyInAnyOrderElementsOf(SinkVerification.readPaimon(table, id));
        }
        assertThat(SinkVerification.readPaimon(table, latest)).hasSize(500);
    }

    @Test
    void recordsAreReadableInTheStoreBeforeAnyCheckpoint() throws Exception {
        FileStoreTable table = createTable("fresh", true);
        StreamExecutionEnvironment env = env(Duration.ofMinutes(10).toMillis());
        DataStream<RowData> input =
                env.fromSource(
                        new DataGeneratorSource<>(
                                LakeStreamSinkITCase::row,
                                Long.MAX_VALUE,
                                RateLimiterStrategy.perSecond(200),
                                TypeInformation.of(RowData.class)),
                        WatermarkStrategy.noWatermarks(),
                        "rows");
        sink(table).sinkFrom(input);
        JobClient job = env.executeAsync("fresh");
        try {
            StreamTable streamTable =
                    store.get(StreamTableSpec.of(Identifier.fromString(table.fullName()), table));
            List<PartitionBucket> all = new ArrayList<>();
            for (String dt : new String[] {"d0", "d1", "d2"}) {
                for (int b = 0; b < 3; b++) {
                    all.add(
                            new PartitionBucket(
                                    org.apache.paimon.data.BinaryRow.singleColumn(dt), b));
                }
            }
            long deadline = System.currentTimeMillis() + 60_000;
            long visible = 0;
            while (visible < 100 && System.currentTimeMillis() < deadline) {
                Thread.sleep(200);
                visible =
                        store.listOffsets(streamTable, all, OffsetPosition.LATEST).values().stream()
                                .mapToLong(Long::longValue)
                                .sum();
            }
            assertThat(visible).as("records readable in the store").isGreaterThanOrEqualTo(100);
            assertThat(table.snapshotManager().latestSnapshotId())
                    .as("no Paimon snapshot yet: no checkpoint has completed")
                    .isNull();
        } finally {
            job.cancel().get();
        }
    }

    /** Fails the job once, after {@code failAfter} records, in the first attempt only. */
    private static final class FailOnce implements MapFunction<RowData, RowData> {
        private static final AtomicInteger SEEN = new AtomicInteger();
        private static volatile boolean failed;
        private final int failAfter;

        FailOnce(int failAfter) {
            this.failAfter = failAfter;
        }

        @Override
        public RowData map(RowData value) {
            if (!failed && SEEN.incrementAndGet() > failAfter) {
                failed = true;
                throw new RuntimeException("Injected failure");
            }
            return value;
        }
    }

    @Test
    void aFailoverEndsWithEveryRowExactlyOnceAndTheExtraRecordsFenced() throws Exception {
        FileStoreTable table = createTable("failover", false);
        int rows = 4_000;
        StreamExecutionEnvironment env = env(200);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(3, 100));
        DataStream<RowData> input =
                env.fromSource(
                                new DataGeneratorSource<>(
                                        LakeStreamSinkITCase::row,
                                        rows,
                                        RateLimiterStrategy.perSecond(4_000),
                                        TypeInformation.of(RowData.class)),
                                WatermarkStrategy.noWatermarks(),
                                "rows")
                        .map(new FailOnce(rows / 2))
                        .returns(TypeInformation.of(RowData.class));
        sink(table).sinkFrom(input);
        env.execute("failover");
        assertThat(FailOnce.failed).as("the failure was injected").isTrue();

        long fenced = verify.assertExactlyOnce(Identifier.create("sink_it", "failover"), rows);
        assertThat(fenced).as("records of the failed attempt").isPositive();
    }

    /**
     * The only TaskManager is terminated while the job runs and a new one started: the job recovers
     * from its last checkpoint and ends with every row exactly once.
     */
    @Test
    void aTaskManagerRestartEndsWithEveryRowExactlyOnce(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        Identifier identifier = Identifier.create("sink_it", "tm_restart");
        FileStoreTable table = createTable("tm_restart", true);
        int rows = 6_000;
        StreamExecutionEnvironment env = env(200);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(10, 200));
        DataStream<RowData> input =
                env.fromSource(
                        new DataGeneratorSource<>(
                                LakeStreamSinkITCase::row,
                                rows,
                                RateLimiterStrategy.perSecond(2_000),
                                TypeInformation.of(RowData.class)),
                        WatermarkStrategy.noWatermarks(),
                        "rows");
        sink(table).sinkFrom(input);
        JobClient job = env.executeAsync("tm restart");
        long deadline = System.currentTimeMillis() + 60_000;
        while (snapshotCount(identifier) < 2 && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        assertThat(snapshotCount(identifier)).as("snapshots before the restart").isGreaterThan(1);
        miniCluster.terminateTaskManager(0).get();
        miniCluster.startTaskManager();
        job.getJobExecutionResult().get();
        verify.assertExactlyOnce(identifier, rows);
    }

    private static long snapshotCount(Identifier identifier) throws Exception {
        Long latest =
                ((FileStoreTable) catalog.getTable(identifier))
                        .snapshotManager()
                        .latestSnapshotId();
        return latest == null ? 0 : latest;
    }

    /**
     * Rows with row kinds, given as external {@link Row}s: Paimon merges them by key and the store
     * keeps every change with its row kind.
     */
    @Test
    void externalRowsKeepTheirRowKinds() throws Exception {
        Identifier identifier = Identifier.create("sink_it", "row_kinds");
        FileStoreTable table = createTable("row_kinds", true);
        StreamExecutionEnvironment env = env(200);
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
        sink(table).sinkFromRows(changes);
        env.execute("row kinds");

        table = (FileStoreTable) catalog.getTable(identifier);
        long latest = table.snapshotManager().latestSnapshotId();
        assertThat(SinkVerification.readPaimon(table, latest)).containsExactly("1|a2|d0");
        StreamTable streamTable = store.get(StreamTableSpec.of(identifier, table));
        List<String> changelog = new ArrayList<>();
        List<StreamRecord> records =
                verify.readStoreRecords(
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
        Identifier identifier = Identifier.create("sink_it", "not_enabled");
        catalog.createTable(
                identifier,
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .primaryKey("id")
                        .option("bucket", "2")
                        .build(),
                false);
        FileStoreTable table = (FileStoreTable) catalog.getTable(identifier);
        assertThatThrownBy(() -> LakeStreamSink.builder().build())
                .hasMessageContaining("Table is required");
        assertThatThrownBy(() -> LakeStreamSink.builder().setTable(table).build())
                .hasMessageContaining("sink_it.not_enabled is not in lake-stream mode")
                .hasMessageContaining("'lake-stream.enabled' = 'true'");
        FileStoreTable enabled =
                table.copy(java.util.Collections.singletonMap("lake-stream.enabled", "true"));
        assertThatThrownBy(
                        () ->
                                LakeStreamSink.builder()
                                        .setTable(enabled)
                                        .setOptions(SharedFlussCluster.lakeStreamOptions())
                                        .build())
                .hasMessageContaining("does not exist");
    }
}
