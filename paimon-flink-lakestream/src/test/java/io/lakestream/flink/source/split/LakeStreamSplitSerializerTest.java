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

package io.lakestream.flink.source.split;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamReader;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.table.source.DataSplit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Round trips of lake-stream splits through every version of their serializer. */
class LakeStreamSplitSerializerTest {

    static BinaryRow partition(String value, int number) {
        BinaryRow row = new BinaryRow(2);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeString(0, BinaryString.fromString(value));
        writer.writeInt(1, number);
        writer.complete();
        return row;
    }

    static DataSplit dataSplit(BinaryRow partition, int bucket, String file) {
        return TestDataSplits.of(partition, bucket, file, 3);
    }

    @Test
    void aSplitWithLakeDataAndProgressRoundTrips() throws IOException {
        BinaryRow partition = partition("2026-12-02", 7);
        LakeStreamSplit split =
                new LakeStreamSplit(
                        new PartitionBucket(partition, 3),
                        Arrays.asList(
                                dataSplit(partition, 3, "data-1.parquet"),
                                dataSplit(partition, 3, "data-2.parquet")),
                        17,
                        false,
                        120,
                        StreamReader.NO_STOP_OFFSET);
        LakeStreamSplitSerializer serializer = LakeStreamSplitSerializer.INSTANCE;
        LakeStreamSplit back =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(split));
        assertThat(back).isEqualTo(split);
        assertThat(back.splitId()).isEqualTo(split.splitId());
        assertThat(back.isBounded()).isFalse();
        assertThat(back.lakeSplits()).hasSize(2);
    }

    @Test
    void aLogOnlyBoundedSplitRoundTripsAsVersionOne() throws IOException {
        LakeStreamSplit split =
                LakeStreamSplit.of(
                        PartitionBucket.ofUnpartitioned(0), Collections.emptyList(), 5, 9);
        LakeStreamSplitSerializer serializer = LakeStreamSplitSerializer.INSTANCE;
        byte[] bytes = serializer.serialize(split);
        LakeStreamSplit back = serializer.deserialize(LakeStreamSplitSerializer.VERSION_1, bytes);
        assertThat(back).isEqualTo(split);
        assertThat(back.lakeFinished()).as("no lake part").isTrue();
        assertThat(back.logStopOffset()).isEqualTo(9);
    }

    /**
     * A split of another writer's commit keeps its snapshot through the serializer and through the
     * reader's state, and has an id of its own beside the partition-bucket's split.
     */
    @Test
    void aFollowedSnapshotsSplitRoundTrips() throws IOException {
        BinaryRow partition = partition("2026-12-05", 1);
        PartitionBucket pb = new PartitionBucket(partition, 0);
        LakeStreamSplit split =
                LakeStreamSplit.followed(
                        pb, Collections.singletonList(dataSplit(partition, 0, "data-3.orc")), 42);
        LakeStreamSplitSerializer serializer = LakeStreamSplitSerializer.INSTANCE;
        LakeStreamSplit back =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(split));
        assertThat(back).isEqualTo(split);
        assertThat(back.followedSnapshotId()).isEqualTo(42);
        assertThat(back.splitId()).isNotEqualTo(LakeStreamSplit.splitId(pb)).endsWith("@42");
        assertThat(back.isBounded()).as("no log part").isTrue();

        LakeStreamSplitState state = new LakeStreamSplitState(back);
        state.lakeRecordEmitted(4);
        assertThat(state.toSplit().followedSnapshotId()).isEqualTo(42);
        assertThat(state.toSplit().lakeRecordsEmitted()).isEqualTo(4);
        assertThat(LakeStreamSplit.of(pb, Collections.emptyList(), 0, 0).isFollowed()).isFalse();
    }

    @Test
    void anUnknownVersionIsRefused() {
        assertThatThrownBy(() -> LakeStreamSplitSerializer.INSTANCE.deserialize(99, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown version 99");
    }

    @Test
    void splitIdsDifferPerPartitionBucket() {
        assertThat(LakeStreamSplit.splitId(new PartitionBucket(partition("a", 1), 0)))
                .isNotEqualTo(LakeStreamSplit.splitId(new PartitionBucket(partition("a", 1), 1)))
                .isNotEqualTo(LakeStreamSplit.splitId(new PartitionBucket(partition("a", 2), 0)));
    }

    @Test
    void stateProgressBecomesTheSplitOfACheckpoint() {
        LakeStreamSplit split =
                LakeStreamSplit.of(
                        PartitionBucket.ofUnpartitioned(1),
                        Collections.singletonList(dataSplit(BinaryRow.EMPTY_ROW, 1, "f")),
                        40,
                        StreamReader.NO_STOP_OFFSET);
        LakeStreamSplitState state = new LakeStreamSplitState(split);
        state.lakeRecordEmitted(6);
        assertThat(state.toSplit().lakeRecordsEmitted()).isEqualTo(6);
        assertThat(state.toSplit().lakeFinished()).isFalse();
        assertThat(state.toSplit().lakeSplits()).hasSize(1);
        state.logRecordPassed(44);
        assertThat(state.toSplit().lakeFinished()).isTrue();
        assertThat(state.toSplit().nextLogOffset()).isEqualTo(45);
        // a finished lake part is never read again: its Paimon splits leave the checkpoint
        assertThat(state.toSplit().lakeSplits()).isEmpty();
    }

    @Test
    void endOfTheLakePartDropsTheLakeSplitsBeforeAnyLogRecord() {
        LakeStreamSplit split =
                LakeStreamSplit.of(
                        PartitionBucket.ofUnpartitioned(1),
                        Collections.singletonList(dataSplit(BinaryRow.EMPTY_ROW, 1, "f")),
                        40,
                        StreamReader.NO_STOP_OFFSET);
        LakeStreamSplitState state = new LakeStreamSplitState(split);
        state.lakeRecordEmitted(10);
        state.lakeFinished();

        LakeStreamSplit checkpointed = state.toSplit();
        assertThat(checkpointed.lakeFinished()).isTrue();
        assertThat(checkpointed.lakeSplits()).isEmpty();
        assertThat(checkpointed.nextLogOffset()).isEqualTo(40);
        assertThat(checkpointed.lakeRecordsEmitted()).isEqualTo(10);
    }
}
