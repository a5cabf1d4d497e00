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
import io.lakestream.flink.sink.LakeStreamSink;
import io.lakestream.flink.source.SourceTestTables.Kind;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.testutils.Await;

import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.lakestream.flink.source.SourceTestTables.asInserts;
import static io.lakestream.flink.source.SourceTestTables.committedRows;
import static io.lakestream.flink.source.SourceTestTables.laterRows;
import static io.lakestream.flink.source.SourceTestTables.materialize;
import static io.lakestream.flink.source.SourceTestTables.paimonRead;
import static io.lakestream.flink.source.SourceTestTables.render;
import static io.lakestream.flink.source.SourceTestTables.storeOptions;
import static io.lakestream.flink.source.SourceTestTables.unionRead;
import static io.lakestream.flink.source.SourceTestTables.write;
import static io.lakestream.flink.source.SourceTestTables.writeUncommitted;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hybrid source through failures and restores, against real Fluss, a MiniCluster and a local
 * Paimon warehouse: a failing read, a savepoint restore with more readers, a writing job that fails
 * while a read follows the table, and a read-committed read; a test sink publishes rows only with
 * completed checkpoints, so every row must arrive exactly once.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamSourceFailoverITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static SourceTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SourceTestTables(warehouse, "source_failover_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    /**
     * A pass-through map that fails the job once at each of its points (rows seen, all attempts).
     */
    private static final class FailAt implements MapFunction<RowData, RowData> {
        private static final AtomicLong SEEN = new AtomicLong();
        private static final ConcurrentLinkedQueue<Long> POINTS = new ConcurrentLinkedQueue<>();
        private static final AtomicInteger INJECTED = new AtomicInteger();

        static void plan(Long... points) {
            SEEN.set(0);
            INJECTED.set(0);
            POINTS.clear();
            POINTS.addAll(Arrays.asList(points));
        }

        @Override
        public RowData map(RowData row) {
            long seen = SEEN.incrementAndGet();
            Long next = POINTS.peek();
            if (next != null && seen >= next && POINTS.remove(next)) {
                INJECTED.incrementAndGet();
                throw new RuntimeException("Injected failure after " + seen + " rows");
            }
            return row;
        }
    }

    /**
     * A writing job fails twice while an unbounded read follows the table. A bounded read after it,
     * which starts after the fences, returns every row once; for a primary-key table the unbounded
     * read's changelog ends in Paimon's state.
     */
    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"APPEND", "DEDUPLICATE"})
    void readsDuringAndAfterASinkFailoverSeeEveryRowOnce(Kind kind) throws Exception {
        String name = "sink_failover_" + kind.name().toLowerCase();
        FileStoreTable table = tables.createTable(name, kind);
        CommittedRows.clear();
        StreamExecutionEnvironment readEnv = StreamExecutionEnvironment.getExecutionEnvironment();
        readEnv.setParallelism(1);
        readEnv.enableCheckpointing(200);
        LakeStreamSource source =
                LakeStreamSource.builder().setTable(table).setOptions(storeOptions()).build();
        LakeStreamChangelog.of(readEnv, source, name)
                .addSink(new CommittedRows(SourceTestTables::render))
                .setParallelism(1);
        JobClient reader = readEnv.executeAsync("read " + name);
        // and a read-committed read, which never returns a record of a failed attempt
        StreamExecutionEnvironment committedEnv =
                StreamExecutionEnvironment.getExecutionEnvironment();
        committedEnv.setParallelism(1);
        committedEnv.enableCheckpointing(200);
        LakeStreamSource committedSource =
                LakeStreamSource.builder()
                        .setTable(table)
                        .setOptions(storeOptions())
                        .setOption(LakeStreamOptions.READ_ISOLATION.key(), "read-committed")
                        .build();
        LakeStreamChangelog.of(committedEnv, committedSource, name + " committed")
                .addSink(new CommittedRows("read-committed", SourceTestTables::render))
                .setParallelism(1);
        JobClient committedReader = committedEnv.executeAsync("read committed " + name);
        try {
            int rows = 3_000;
            FailAt.plan(1_000L, 2_000L);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(200);
            env.setRestartStrategy(RestartStrategies.fixedDelayRestart(6, 100));
            org.apache.flink.table.types.logical.RowType type =
                    org.apache.paimon.flink.LogicalTypeConversion.toLogicalType(table.rowType());
            LakeStreamSink.builder()
                    .setTable(table)
                    .setOptions(storeOptions())
                    .build()
                    .sinkFrom(
                            env.fromSource(
                                            new DataGeneratorSource<>(
                                                    i ->
                                                            (RowData)
                                                                    GenericRowData.of(
                                                                            (int)
                                                                                            (i
                                                                                                            .longValue()
                                                                                                    % 3)
                                                                                    + 1,
                                                                            i.intValue(),
                                                                            i,
                                                                            StringData.fromString(
                                                                                    "r" + i)),
                                                    rows,
                                                    RateLimiterStrategy.perSecond(3_000),
                                                    InternalTypeInfo.of(type)),
                                            WatermarkStrategy.noWatermarks(),
                                            "rows")
                                    .map(new FailAt())
                                    .returns(InternalTypeInfo.of(type)));
            env.execute("write " + name);
            assertThat(FailAt.INJECTED.get()).as("sink failures").isEqualTo(2);

            FileStoreTable committed = tables.table(name);
            List<String> paimon = paimonRead(committed);
            assertThat(paimon).hasSize(rows);
            List<String> after = unionRead(committed);
            assertThat(after)
                    .as("a bounded read after the failover")
                    .containsExactlyInAnyOrderElementsOf(asInserts(paimon));
            if (!kind.primaryKey()) {
                Await.until(
                        () -> CommittedRows.published("read-committed").size() >= rows,
                        "the read-committed read returns every row");
                CommittedRows.awaitMoreCheckpoints("read-committed", 3);
                assertThat(CommittedRows.published("read-committed"))
                        .as("a read-committed read during the failover")
                        .containsExactlyInAnyOrderElementsOf(paimon);
            }
            if (kind.primaryKey()) {
                java.util.Set<String> expected = new java.util.HashSet<>();
                paimon.forEach(r -> expected.add(r.substring(2)));
                Await.until(
                        () -> materialize(CommittedRows.published()).equals(expected),
                        "the unbounded read's changelog reaches Paimon's state");
            }
        } finally {
            reader.cancel().get();
            committedReader.cancel().get();
        }
    }

    /**
     * An unbounded read is stopped with a savepoint while it reads, and restored with three readers
     * instead of two; with the rows written after the restore, every row arrives exactly once.
     */
    @Test
    void aSavepointRestoreWithMoreReadersLosesAndRepeatsNothing(
            @TempDir java.nio.file.Path savepoints) throws Exception {
        FileStoreTable table = tables.createTable("source_rescale", Kind.APPEND);
        write(table, committedRows());
        CommittedRows.clear();
        JobClient first = startReader(table, 2, null);
        Await.until(() -> CommittedRows.published().size() >= 100, "the first reader publishes");
        String savepoint =
                first.stopWithSavepoint(
                                false,
                                savepoints.toUri().toString(),
                                org.apache.flink.core.execution.SavepointFormatType.CANONICAL)
                        .get(1, TimeUnit.MINUTES);
        JobClient second = startReader(table, 3, savepoint);
        try {
            List<Row> later = laterRows(Kind.APPEND);
            tables.writeThroughTheStore(table, later);
            List<String> expected = new ArrayList<>();
            committedRows().forEach(r -> expected.add(render(r)));
            later.forEach(r -> expected.add(render(r)));
            Await.until(
                    () -> CommittedRows.published().size() >= expected.size(),
                    "every row is published");
            CommittedRows.awaitMoreCheckpoints("", 3);
            assertThat(CommittedRows.published()).containsExactlyInAnyOrderElementsOf(expected);
        } finally {
            second.cancel().get();
        }
    }

    private static JobClient startReader(
            FileStoreTable table, int parallelism, @javax.annotation.Nullable String savepoint)
            throws Exception {
        org.apache.flink.configuration.Configuration conf =
                new org.apache.flink.configuration.Configuration();
        if (savepoint != null) {
            conf.set(org.apache.flink.configuration.StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(200);
        LakeStreamSource source =
                LakeStreamSource.builder().setTable(table).setOptions(storeOptions()).build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "read")
                .uid("lake-stream-source")
                // slow enough that the savepoint is taken while the snapshot is being read
                .map(new Throttle())
                .uid("throttle")
                .returns(source.getProducedType())
                .addSink(new CommittedRows(SourceTestTables::render))
                .uid("committed-rows")
                .setParallelism(1);
        return env.executeAsync("reader with " + parallelism);
    }

    /** Passes a row on every millisecond or so. */
    private static final class Throttle implements MapFunction<RowData, RowData> {
        @Override
        public RowData map(RowData row) throws Exception {
            Thread.sleep(1);
            return row;
        }
    }

    /**
     * An unbounded read-committed read returns the store's records only once a Paimon snapshot has
     * committed them: nothing of a job whose checkpoint is ten minutes away, everything once that
     * job commits, each row once.
     */
    @Test
    void aReadCommittedReadReturnsRecordsOnlyOnceCommitted() throws Exception {
        FileStoreTable table = tables.createTable("read_committed", Kind.APPEND);
        write(table, committedRows());
        CommittedRows.clear();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        LakeStreamSource source =
                LakeStreamSource.builder()
                        .setTable(table)
                        .setOptions(storeOptions())
                        .setOption(LakeStreamOptions.READ_ISOLATION.key(), "read-committed")
                        .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "read committed")
                .addSink(new CommittedRows(SourceTestTables::render))
                .setParallelism(1);
        JobClient reader = env.executeAsync("read committed");
        try {
            Await.until(
                    () -> CommittedRows.published().size() >= committedRows().size(),
                    "the snapshot is read");
            List<Row> later = laterRows(Kind.APPEND);
            JobClient writer = writeUncommitted(table, later);
            try {
                Await.until(
                        () -> tables.storedRecords(table) >= committedRows().size() + later.size(),
                        "the later rows are in the store");
                // several reader checkpoints, and committed-offset checks (one a second), pass
                CommittedRows.awaitMoreCheckpoints("", 10);
                assertThat(CommittedRows.published())
                        .as("nothing uncommitted is returned")
                        .hasSize(committedRows().size());
            } finally {
                GatedRows.open();
            }
            writer.getJobExecutionResult().get(2, TimeUnit.MINUTES);
            List<String> expected = new ArrayList<>();
            committedRows().forEach(r -> expected.add(render(r)));
            later.forEach(r -> expected.add(render(r)));
            Await.until(
                    () -> CommittedRows.published().size() >= expected.size(),
                    "the committed rows are returned");
            CommittedRows.awaitMoreCheckpoints("", 3);
            assertThat(CommittedRows.published()).containsExactlyInAnyOrderElementsOf(expected);
        } finally {
            reader.cancel().get();
        }
    }

    /**
     * An unbounded read fails twice while it reads the snapshot and the store; a sink that
     * publishes rows only with completed checkpoints ends up with every row exactly once.
     */
    @Test
    void aSourceFailoverReturnsEveryRowExactlyOnce() throws Exception {
        FileStoreTable table = tables.createTable("source_failover", Kind.APPEND);
        write(table, committedRows());
        CommittedRows.clear();
        FailAt.plan(300L, 800L);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(5, 100));
        LakeStreamSource source =
                LakeStreamSource.builder().setTable(table).setOptions(storeOptions()).build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "read")
                .map(new FailAt())
                .returns(source.getProducedType())
                .addSink(new CommittedRows(SourceTestTables::render))
                .setParallelism(1);
        JobClient reader = env.executeAsync("source failover");
        try {
            Await.until(() -> CommittedRows.published().size() >= 300, "the snapshot is read");
            List<Row> later = laterRows(Kind.APPEND);
            tables.writeThroughTheStore(table, later);
            int expected = committedRows().size() + later.size();
            Await.until(
                    () ->
                            CommittedRows.published().size() >= expected
                                    && FailAt.INJECTED.get() == 2,
                    "every row is published after two failures");
            CommittedRows.awaitMoreCheckpoints("", 3);
            List<String> expectedRows = new ArrayList<>();
            for (Row row : committedRows()) {
                expectedRows.add(render(row));
            }
            for (Row row : later) {
                expectedRows.add(render(row));
            }
            assertThat(CommittedRows.published()).containsExactlyInAnyOrderElementsOf(expectedRows);
        } finally {
            reader.cancel().get();
        }
    }
}
