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

package io.lakestream.flink.source.enumerator;

import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamTable;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Restores of an unbounded read whose initial plan found no partition, under Flink's {@code
 * MockSplitEnumeratorContext}: the restored read does not plan again from the snapshot that is
 * latest at restore time (which would skip what was committed while it was down) but finds the
 * partitions that appeared since, each from its first record.
 */
class EnumeratorRestoreTest {

    /** The periodic callables the enumerator of an unbounded read registers, in order. */
    private static final int DISCOVER = 0;

    @TempDir java.nio.file.Path warehouse;

    private FileStoreTable table;
    private StreamTable streamTable;

    @BeforeEach
    void createTable() throws Exception {
        table =
                LocalPaimonTables.create(
                        warehouse,
                        "hourly",
                        Schema.newBuilder()
                                .column("dt", DataTypes.INT())
                                .column("id", DataTypes.INT())
                                .partitionKeys("dt")
                                .option("bucket", "2")
                                .option("bucket-key", "id")
                                .build());
        streamTable = LocalPaimonTables.streamTable(table);
    }

    @Test
    void aRestoredReadThatHadPlannedNoPartitionReadsThoseCreatedWhileItWasDown() throws Throwable {
        LakeStreamEnumeratorState state;
        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(1)) {
            LakeStreamSplitEnumerator enumerator = enumerator(context, List.of(), null);
            enumerator.start();
            context.runNextOneTimeCallable();
            state = enumerator.snapshotState(1);
        }
        assertThat(state.planned()).as("an empty table plans nothing").isEmpty();
        assertThat(state.nextFollowedSnapshotId()).as("but says where it follows from").isNotNull();

        // while the read is down, a writer creates partition 7 and commits into it
        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(1)) {
            LakeStreamSplitEnumerator restored = enumerator(context, List.of(partition(7)), state);
            restored.start();
            assertThat(context.getOneTimeCallables())
                    .as("no second plan from the snapshot latest at restore")
                    .isEmpty();
            context.registerReader(new ReaderInfo(0, "localhost"));
            restored.addReader(0);
            context.runPeriodicCallable(DISCOVER);
            List<LakeStreamSplit> splits = assigned(context);
            assertThat(splits)
                    .extracting(LakeStreamSplit::partitionBucket)
                    .containsExactlyInAnyOrder(
                            new PartitionBucket(partition(7), 0),
                            new PartitionBucket(partition(7), 1));
            assertThat(splits)
                    .as("each log from its first record, without a lake part")
                    .allSatisfy(
                            split -> {
                                assertThat(split.nextLogOffset()).isZero();
                                assertThat(split.lakeSplits()).isEmpty();
                            });
            assertThat(restored.snapshotState(2).nextFollowedSnapshotId())
                    .isEqualTo(state.nextFollowedSnapshotId());
        }
    }

    @Test
    void stateOfAnOlderVersionWithNothingPlannedPlansAgain() throws Throwable {
        // version 2 kept neither where the read follows from nor whether it had planned
        LakeStreamEnumeratorState old =
                new LakeStreamEnumeratorState(List.of(), List.of(), table.schema().id());
        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(1)) {
            LakeStreamSplitEnumerator restored = enumerator(context, List.of(), old);
            restored.start();
            assertThat(context.getOneTimeCallables()).hasSize(1);
        }
    }

    private LakeStreamSplitEnumerator enumerator(
            MockSplitEnumeratorContext<LakeStreamSplit> context,
            List<BinaryRow> storePartitions,
            LakeStreamEnumeratorState restored) {
        return UnboundedEnumerators.unbounded(
                context, table, streamTable, restored, storePartitions);
    }

    private static List<LakeStreamSplit> assigned(
            MockSplitEnumeratorContext<LakeStreamSplit> context) {
        List<LakeStreamSplit> splits = new ArrayList<>();
        for (SplitsAssignment<LakeStreamSplit> assignment : context.getSplitsAssignmentSequence()) {
            assignment.assignment().values().forEach(splits::addAll);
        }
        return splits;
    }

    private static BinaryRow partition(int dt) {
        BinaryRow row = new BinaryRow(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeInt(0, dt);
        writer.complete();
        return row;
    }
}
