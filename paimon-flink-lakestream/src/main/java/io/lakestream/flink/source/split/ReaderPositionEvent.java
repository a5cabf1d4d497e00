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

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * From a reader to the enumerator of a read with a {@code consumer-id}: the reader's splits at a
 * checkpoint, as the checkpoint holds them, so that the enumerator can record the whole read's
 * position in the table's consumer files once the checkpoint completes. Splits too large for one
 * message (the lake parts of a large snapshot not read yet) are not carried: the enumerator then
 * records nothing for that checkpoint.
 */
@Internal
public final class ReaderPositionEvent implements SourceEvent {

    private static final long serialVersionUID = 1L;

    /**
     * The most split bytes one event carries; well below Flink's RPC frame size (10 MiB by
     * default), which a larger event would exceed and fail the job with.
     */
    public static final int MAX_BYTES = 4 << 20;

    private final long checkpointId;

    /** The splits in the split serializer's form (version, then bytes); null when too large. */
    @Nullable private final byte[] splits;

    private ReaderPositionEvent(long checkpointId, @Nullable byte[] splits) {
        this.checkpointId = checkpointId;
        this.splits = splits;
    }

    /** The event of {@code splits} at checkpoint {@code checkpointId}. */
    public static ReaderPositionEvent of(long checkpointId, List<LakeStreamSplit> splits) {
        try {
            DataOutputSerializer out = new DataOutputSerializer(256);
            out.writeInt(LakeStreamSplitSerializer.INSTANCE.getVersion());
            out.writeInt(splits.size());
            for (LakeStreamSplit split : splits) {
                byte[] bytes = LakeStreamSplitSerializer.INSTANCE.serialize(split);
                out.writeInt(bytes.length);
                out.write(bytes);
                if (out.length() > MAX_BYTES) {
                    return new ReaderPositionEvent(checkpointId, null);
                }
            }
            return new ReaderPositionEvent(checkpointId, out.getCopyOfBuffer());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public long checkpointId() {
        return checkpointId;
    }

    /** Whether the splits were too large to carry. */
    public boolean tooLarge() {
        return splits == null;
    }

    /** The reader's splits at the checkpoint; empty when {@link #tooLarge()}. */
    public List<LakeStreamSplit> splits() {
        if (splits == null) {
            return Collections.emptyList();
        }
        try {
            DataInputDeserializer in = new DataInputDeserializer(splits);
            int version = in.readInt();
            int count = in.readInt();
            List<LakeStreamSplit> result = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                result.add(LakeStreamSplitSerializer.INSTANCE.deserialize(version, bytes));
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
