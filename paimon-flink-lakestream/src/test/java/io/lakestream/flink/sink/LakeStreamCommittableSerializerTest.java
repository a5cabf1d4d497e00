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

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.offsets.StreamOffsetsSerializer;
import io.lakestream.protocol.SealedSegment;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests for {@link LakeStreamCommittableSerializer}. */
class LakeStreamCommittableSerializerTest {

    private final LakeStreamCommittableSerializer serializer =
            new LakeStreamCommittableSerializer();

    private static BinaryRow partition(String dt, int hour) {
        BinaryRow row = new BinaryRow(2);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeString(0, BinaryString.fromString(dt));
        writer.writeInt(1, hour);
        writer.complete();
        return row;
    }

    private Committable roundTrip(Committable committable) throws IOException {
        return serializer.deserialize(serializer.getVersion(), serializer.serialize(committable));
    }

    @Test
    void sealedSegmentWithPartitionedBucketsRoundTrips() throws IOException {
        Map<PartitionBucket, Long> offsets = new HashMap<>();
        offsets.put(new PartitionBucket(partition("2024-01-01", 3), 0), 17L);
        offsets.put(new PartitionBucket(partition("2024-01-01", 4), 2), 0L);
        offsets.put(new PartitionBucket(partition("2024-01-02", 3), 3), 9_000_000_000L);
        SealedSegment segment =
                new SealedSegment(5, StreamOffsets.of(offsets), StreamOffsets.of(offsets));

        Committable restored = roundTrip(new Committable(42L, Committable.Kind.FILE, segment));

        assertThat(restored.checkpointId()).isEqualTo(42L);
        assertThat(restored.kind()).isEqualTo(Committable.Kind.FILE);
        assertThat(restored.wrappedCommittable()).isInstanceOf(SealedSegment.class);
        SealedSegment restoredSegment = (SealedSegment) restored.wrappedCommittable();
        assertThat(restoredSegment.subtask()).isEqualTo(5);
        assertThat(restoredSegment.endOffsets().asMap()).isEqualTo(offsets);
        assertThat(restoredSegment.startOffsets().asMap()).isEqualTo(offsets);
        assertThat(restoredSegment).isEqualTo(segment);
    }

    @Test
    void sealedSegmentWithUnpartitionedBucketsRoundTrips() throws IOException {
        Map<PartitionBucket, Long> offsets = new HashMap<>();
        offsets.put(PartitionBucket.ofUnpartitioned(0), 1L);
        offsets.put(PartitionBucket.ofUnpartitioned(7), Long.MAX_VALUE);
        SealedSegment segment =
                new SealedSegment(0, StreamOffsets.empty(), StreamOffsets.of(offsets));

        Committable restored =
                roundTrip(new Committable(Long.MAX_VALUE, Committable.Kind.FILE, segment));

        assertThat(restored.checkpointId()).isEqualTo(Long.MAX_VALUE);
        assertThat(restored.kind()).isEqualTo(Committable.Kind.FILE);
        SealedSegment restoredSegment = (SealedSegment) restored.wrappedCommittable();
        assertThat(restoredSegment.subtask()).isEqualTo(0);
        assertThat(restoredSegment.endOffsets().asMap()).isEqualTo(offsets);
    }

    @Test
    void emptySealedSegmentRoundTrips() throws IOException {
        SealedSegment segment = new SealedSegment(3, StreamOffsets.empty(), StreamOffsets.empty());

        Committable restored = roundTrip(new Committable(1L, Committable.Kind.FILE, segment));

        assertThat(restored.checkpointId()).isEqualTo(1L);
        assertThat(restored.wrappedCommittable()).isEqualTo(segment);
    }

    @Test
    void paimonFileCommittableRoundTrips() throws IOException {
        BinaryRow partition = partition("2024-01-01", 3);
        CommitMessageImpl message =
                new CommitMessageImpl(
                        partition,
                        2,
                        4,
                        DataIncrement.emptyIncrement(),
                        CompactIncrement.emptyIncrement());

        Committable restored = roundTrip(new Committable(7L, Committable.Kind.FILE, message));

        assertThat(restored.checkpointId()).isEqualTo(7L);
        assertThat(restored.kind()).isEqualTo(Committable.Kind.FILE);
        assertThat(restored.wrappedCommittable()).isInstanceOf(CommitMessage.class);
        CommitMessage restoredMessage = (CommitMessage) restored.wrappedCommittable();
        assertThat(restoredMessage.partition()).isEqualTo(partition);
        assertThat(restoredMessage.bucket()).isEqualTo(2);
        assertThat(restoredMessage.totalBuckets()).isEqualTo(4);
        assertThat(restoredMessage).isEqualTo(message);
    }

    @Test
    void unknownVersionFailsNamingIt() throws IOException {
        byte[] bytes =
                serializer.serialize(
                        new Committable(
                                1L,
                                Committable.Kind.FILE,
                                new SealedSegment(
                                        0, StreamOffsets.empty(), StreamOffsets.empty())));

        assertThatThrownBy(() -> serializer.deserialize(3, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 3");
    }

    @Test
    void versionOneSegmentIsReadWithoutStarts() throws IOException {
        Map<PartitionBucket, Long> offsets = new HashMap<>();
        offsets.put(PartitionBucket.ofUnpartitioned(1), 12L);
        byte[] ends = StreamOffsetsSerializer.serialize(StreamOffsets.of(offsets));
        // version 1: tag 1, checkpoint id, subtask, end offsets
        byte[] bytes =
                ByteBuffer.allocate(1 + 8 + 4 + ends.length)
                        .put((byte) 1)
                        .putLong(9L)
                        .putInt(2)
                        .put(ends)
                        .array();

        Committable restored = serializer.deserialize(1, bytes);

        SealedSegment segment = (SealedSegment) restored.wrappedCommittable();
        assertThat(restored.checkpointId()).isEqualTo(9L);
        assertThat(segment.subtask()).isEqualTo(2);
        assertThat(segment.startOffsets().isEmpty()).isTrue();
        assertThat(segment.endOffsets().asMap()).isEqualTo(offsets);
    }
}
