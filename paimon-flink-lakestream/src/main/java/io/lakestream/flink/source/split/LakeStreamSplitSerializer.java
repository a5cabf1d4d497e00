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

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.DataInputViewStreamWrapper;
import org.apache.paimon.io.DataOutputViewStreamWrapper;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.utils.SerializationUtils;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Serializes {@link LakeStreamSplit}s for checkpoints and for the way from enumerator to reader.
 *
 * <p>Version 1: partition row (Paimon's binary row bytes), bucket, the lake splits in Paimon's own
 * versioned {@link DataSplit} form, lake records emitted, lake finished, next log offset, log stop
 * offset.
 */
@Internal
public final class LakeStreamSplitSerializer implements SimpleVersionedSerializer<LakeStreamSplit> {

    public static final LakeStreamSplitSerializer INSTANCE = new LakeStreamSplitSerializer();

    public static final int VERSION_1 = 1;

    /** Adds the followed snapshot of a split of another writer's commit. */
    public static final int VERSION_2 = 2;

    @Override
    public int getVersion() {
        return VERSION_2;
    }

    @Override
    public byte[] serialize(LakeStreamSplit split) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputViewStreamWrapper out = new DataOutputViewStreamWrapper(bytes);
        write(split, out);
        out.flush();
        return bytes.toByteArray();
    }

    private static void write(LakeStreamSplit split, DataOutputViewStreamWrapper out)
            throws IOException {
        SerializationUtils.serializeBinaryRow(split.partitionBucket().partition(), out);
        out.writeInt(split.partitionBucket().bucket());
        out.writeInt(split.lakeSplits().size());
        for (DataSplit lake : split.lakeSplits()) {
            lake.serialize(out);
        }
        out.writeLong(split.lakeRecordsEmitted());
        out.writeBoolean(split.lakeFinished());
        out.writeLong(split.nextLogOffset());
        out.writeLong(split.logStopOffset());
        out.writeLong(split.followedSnapshotId());
    }

    @Override
    public LakeStreamSplit deserialize(int version, byte[] serialized) throws IOException {
        return read(version, new DataInputViewStreamWrapper(new ByteArrayInputStream(serialized)));
    }

    private static LakeStreamSplit read(int version, DataInputViewStreamWrapper in)
            throws IOException {
        if (version != VERSION_1 && version != VERSION_2) {
            throw new IOException(
                    "Unknown version "
                            + version
                            + " of a lake-stream split; this reader knows 1 and 2.");
        }
        BinaryRow partition = SerializationUtils.deserializeBinaryRow(in);
        int bucket = in.readInt();
        int lakeCount = in.readInt();
        List<DataSplit> lake = new ArrayList<>(lakeCount);
        for (int i = 0; i < lakeCount; i++) {
            lake.add(DataSplit.deserialize(in));
        }
        long lakeRecordsEmitted = in.readLong();
        boolean lakeFinished = in.readBoolean();
        long nextLogOffset = in.readLong();
        long logStopOffset = in.readLong();
        return new LakeStreamSplit(
                new PartitionBucket(partition, bucket),
                lake,
                lakeRecordsEmitted,
                lakeFinished,
                nextLogOffset,
                logStopOffset,
                version >= VERSION_2 ? in.readLong() : LakeStreamSplit.NOT_FOLLOWED);
    }
}
