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

import io.lakestream.offsets.StreamOffsets;
import io.lakestream.offsets.StreamOffsetsSerializer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * From the enumerator to the readers of a read-committed read: the offsets of the latest Paimon
 * snapshot, below which the store's records are committed. Carried in the offsets map's own
 * versioned form.
 */
@Internal
public final class CommittedOffsetsEvent implements SourceEvent {

    private static final long serialVersionUID = 1L;

    private final byte[] offsets;

    public CommittedOffsetsEvent(StreamOffsets offsets) {
        this.offsets = StreamOffsetsSerializer.serialize(offsets);
    }

    public StreamOffsets offsets() {
        return StreamOffsetsSerializer.deserialize(offsets);
    }
}
