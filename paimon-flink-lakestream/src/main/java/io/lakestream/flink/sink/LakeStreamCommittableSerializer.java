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

import io.lakestream.offsets.StreamOffsets;
import io.lakestream.offsets.StreamOffsetsSerializer;
import io.lakestream.protocol.SealedSegment;

import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.flink.sink.CommittableSerializer;
import org.apache.paimon.table.sink.CommitMessageSerializer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Serializes the committables of a lake-stream write operator: Paimon's own ones with Paimon's
 * serializer, and {@link SealedSegment}s (wrapped as {@code FILE} committables, told apart by their
 * type) with the offsets serializer.
 *
 * <p>Version 2: {@code byte tag}; tag 0: {@code int paimonVersion, Paimon's bytes}; tag 1: {@code
 * long checkpointId, int subtask, int startLength, start offsets bytes, end offsets bytes}. Version
 * 1 (read for checkpoints that hold committables in flight) had no start offsets.
 */
@Internal
public final class LakeStreamCommittableSerializer
        implements SimpleVersionedSerializer<Committable> {

    private static final byte PAIMON = 0;
    private static final byte SEALED_SEGMENT = 1;

    private final CommittableSerializer paimon =
            new CommittableSerializer(new CommitMessageSerializer());

    @Override
    public int getVersion() {
        return 2;
    }

    @Override
    public byte[] serialize(Committable committable) throws IOException {
        if (committable.wrappedCommittable() instanceof SealedSegment) {
            SealedSegment segment = (SealedSegment) committable.wrappedCommittable();
            byte[] starts = StreamOffsetsSerializer.serialize(segment.startOffsets());
            byte[] offsets = StreamOffsetsSerializer.serialize(segment.endOffsets());
            return ByteBuffer.allocate(1 + 8 + 4 + 4 + starts.length + offsets.length)
                    .put(SEALED_SEGMENT)
                    .putLong(committable.checkpointId())
                    .putInt(segment.subtask())
                    .putInt(starts.length)
                    .put(starts)
                    .put(offsets)
                    .array();
        }
        byte[] bytes = paimon.serialize(committable);
        return ByteBuffer.allocate(1 + 4 + bytes.length)
                .put(PAIMON)
                .putInt(paimon.getVersion())
                .put(bytes)
                .array();
    }

    @Override
    public Committable deserialize(int version, byte[] serialized) throws IOException {
        if (version != 1 && version != 2) {
            throw new IOException(
                    "Lake-stream committables are serialized with version "
                            + version
                            + ", while this reader only supports versions 1 and 2.");
        }
        ByteBuffer buffer = ByteBuffer.wrap(serialized);
        byte tag = buffer.get();
        if (tag == SEALED_SEGMENT) {
            long checkpointId = buffer.getLong();
            int subtask = buffer.getInt();
            StreamOffsets starts = StreamOffsets.empty();
            if (version >= 2) {
                byte[] startBytes = new byte[buffer.getInt()];
                buffer.get(startBytes);
                starts = StreamOffsetsSerializer.deserialize(startBytes);
            }
            byte[] offsets = Arrays.copyOfRange(serialized, buffer.position(), serialized.length);
            return new Committable(
                    checkpointId,
                    Committable.Kind.FILE,
                    new SealedSegment(
                            subtask, starts, StreamOffsetsSerializer.deserialize(offsets)));
        }
        int paimonVersion = buffer.getInt();
        return paimon.deserialize(
                paimonVersion,
                Arrays.copyOfRange(serialized, buffer.position(), serialized.length));
    }
}
