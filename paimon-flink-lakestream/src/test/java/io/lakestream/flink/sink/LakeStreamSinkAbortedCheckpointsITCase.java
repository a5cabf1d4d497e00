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

import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;

import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checkpoints aborted on purpose while rows flow: an operator upstream of the sink holds every
 * third barrier longer than the checkpoint timeout, so those checkpoints expire and their
 * committables are committed with a later one. Every snapshot must still hold exactly the store's
 * records below its offsets, and a union read must equal Paimon's own read once everything is
 * committed.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamSinkAbortedCheckpointsITCase {

    private static final long CHECKPOINT_TIMEOUT_MILLIS = 700;

    @TempDir static java.nio.file.Path warehouse;

    private static SinkTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SinkTestTables(warehouse, "aborted_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    @ParameterizedTest(name = "primary key: {0}")
    @ValueSource(booleans = {false, true})
    void unionReadEqualsPaimonAfterAbortedCheckpoints(boolean primaryKey) throws Exception {
        String name = primaryKey ? "aborted_pk" : "aborted_append";
        FileStoreTable table = tables.create(name, primaryKey);
        int rows = 4_000;
        StreamExecutionEnvironment env = SinkTestTables.env(2, 200);
        env.getCheckpointConfig().setCheckpointTimeout(CHECKPOINT_TIMEOUT_MILLIS);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(Integer.MAX_VALUE);
        env.setRestartStrategy(RestartStrategies.noRestart());
        BarrierDelay.ABORTED.set(0);
        DataStream<RowData> input =
                env.fromSource(
                                new DataGeneratorSource<>(
                                        SinkTestTables::row,
                                        rows,
                                        RateLimiterStrategy.perSecond(1_000),
                                        TypeInformation.of(RowData.class)),
                                WatermarkStrategy.noWatermarks(),
                                "rows")
                        .map(new BarrierDelay(2 * CHECKPOINT_TIMEOUT_MILLIS));
        SinkTestTables.sink(table).sinkFrom(input);
        env.execute("aborted checkpoints");

        assertThat(BarrierDelay.ABORTED.get()).as("checkpoints aborted").isGreaterThan(0);
        table = tables.table(name);
        assertThat(table.snapshotManager().latestSnapshotId())
                .as("several checkpoints committed")
                .isGreaterThan(1);
        // keys are unique, so for both kinds of table a snapshot's rows are the store's records
        tables.verify.assertEverySnapshotHoldsTheStoreBelowItsOffsets(table);
        tables.verify.assertExactlyOnce(tables.identifier(name), rows);
        List<String> paimon =
                SinkVerification.readPaimon(table, table.snapshotManager().latestSnapshotId());
        assertThat(paimon).hasSize(rows);
        SameRows.assertSameRows("the union read", SinkVerification.readUnion(table), paimon);
    }

    /**
     * Passes rows on and holds the barrier of every third checkpoint in subtask 0 for longer than
     * the checkpoint timeout, as a slow operator under backpressure does.
     */
    private static final class BarrierDelay extends RichMapFunction<RowData, RowData>
            implements CheckpointedFunction, CheckpointListener {

        static final AtomicInteger ABORTED = new AtomicInteger();

        private final long delayMillis;

        BarrierDelay(long delayMillis) {
            this.delayMillis = delayMillis;
        }

        @Override
        public RowData map(RowData row) {
            return row;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            if (getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0
                    && context.getCheckpointId() % 3 == 0) {
                // the slow operator this test is about, not a wait for a condition
                Thread.sleep(delayMillis);
            }
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}

        @Override
        public void notifyCheckpointComplete(long checkpointId) {}

        @Override
        public void notifyCheckpointAborted(long checkpointId) {
            ABORTED.incrementAndGet();
        }
    }
}
