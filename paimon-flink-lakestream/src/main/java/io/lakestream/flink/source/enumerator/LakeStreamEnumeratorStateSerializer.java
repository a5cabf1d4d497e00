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
import io.lakestream.flink.source.split.LakeStreamSplitSerializer;
import io.lakestream.offsets.PartitionBucket;

import org.apache.paimon.io.DataInputViewStreamWrapper;
import org.apache.paimon.io.DataOutputViewStreamWrapper;
import org.apache.paimon.utils.SerializationUtils;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Serializes {@link LakeStreamEnumeratorState}. Version 1: the planned partition-buckets (partition
 * row, bucket), then the unassigned splits, each with the split serializer's version. Version 2:
 * version 1, then the last checked Paimon schema id (-1 when unknown). State of version 1 restores
 * without a schema id: the restored read then checks the schemas after the one the restored job was
 * built with, the table's latest at restore time.
 */
@Internal
public final class LakeStreamEnumeratorStateSerializer
        implements SimpleVersionedSerializer<LakeStreamEnumeratorState> {

    public static final int VERSION_1 = 1;

    public static final int VERSION_2 = 2;

    /** Adds the next snapshot to look at for another writer's commit. */
    public static final int VERSION_3 = 3;

    private static final long UNKNOWN_SNAPSHOT_ID = -1;

    private static final long UNKNOWN_SCHEMA_ID = -1;

    @Override
    public int getVersion() {
        return VERSION_3;
    }

    @Override
    public byte[] serialize(LakeStreamEnumeratorState state) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputViewStreamWrapper out = new DataOutputViewStreamWrapper(bytes);
        out.writeInt(state.planned().size());
        for (PartitionBucket pb : state.planned()) {
            SerializationUtils.serializeBinaryRow(pb.partition(), out);
            out.writeInt(pb.bucket());
        }
        out.writeInt(state.unassigned().size());
        for (LakeStreamSplit split : state.unassigned()) {
            byte[] serialized = LakeStreamSplitSerializer.INSTANCE.serialize(split);
            out.writeInt(LakeStreamSplitSerializer.INSTANCE.getVersion());
            out.writeInt(serialized.length);
            out.write(serialized);
        }
        out.writeLong(
                state.checkedSchemaId() == null ? UNKNOWN_SCHEMA_ID : state.checkedSchemaId());
        out.writeLong(
                state.nextFollowedSnapshotId() == null
                        ? UNKNOWN_SNAPSHOT_ID
                        : state.nextFollowedSnapshotId());
        out.flush();
        return bytes.toByteArray();
    }

    @Override
    public LakeStreamEnumeratorState deserialize(int version, byte[] serialized)
            throws IOException {
        if (version < VERSION_1 || version > VERSION_3) {
            throw new IOException(
                    "Unknown version "
                            + version
                            + " of a lake-stream enumerator state; this reader knows 1 to 3.");
        }
        DataInputViewStreamWrapper in =
                new DataInputViewStreamWrapper(new ByteArrayInputStream(serialized));
        int plannedCount = in.readInt();
        List<PartitionBucket> planned = new ArrayList<>(plannedCount);
        for (int i = 0; i < plannedCount; i++) {
            planned.add(
                    new PartitionBucket(SerializationUtils.deserializeBinaryRow(in), in.readInt()));
        }
        int unassignedCount = in.readInt();
        List<LakeStreamSplit> unassigned = new ArrayList<>(unassignedCount);
        for (int i = 0; i < unassignedCount; i++) {
            int splitVersion = in.readInt();
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            unassigned.add(LakeStreamSplitSerializer.INSTANCE.deserialize(splitVersion, bytes));
        }
        Long checkedSchemaId = null;
        if (version >= VERSION_2) {
            long id = in.readLong();
            checkedSchemaId = id == UNKNOWN_SCHEMA_ID ? null : id;
        }
        Long nextFollowedSnapshotId = null;
        if (version >= VERSION_3) {
            long id = in.readLong();
            nextFollowedSnapshotId = id == UNKNOWN_SNAPSHOT_ID ? null : id;
        }
        return new LakeStreamEnumeratorState(
                planned, unassigned, checkedSchemaId, nextFollowedSnapshotId);
    }
}
