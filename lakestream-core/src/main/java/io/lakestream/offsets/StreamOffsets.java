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

package io.lakestream.offsets;

import org.apache.paimon.annotation.Experimental;

import java.io.Serializable;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Stream-store offsets per partition-bucket: the end offset (exclusive) of each one. Used for the
 * tiered offsets of a Paimon snapshot, for a writer's sealed segment and for readers' positions.
 *
 * <p>Instances are immutable; {@link #mergedWith} returns a new map in which the other map's
 * offsets win, which is how a snapshot's full map is built from the previous one and the newly
 * sealed segments.
 */
@Experimental
public final class StreamOffsets implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final StreamOffsets EMPTY = new StreamOffsets(Collections.emptyMap());

    private final Map<PartitionBucket, Long> offsets;

    private StreamOffsets(Map<PartitionBucket, Long> offsets) {
        this.offsets = offsets;
    }

    public static StreamOffsets empty() {
        return EMPTY;
    }

    public static StreamOffsets of(Map<PartitionBucket, Long> offsets) {
        offsets.forEach(
                (pb, offset) -> {
                    if (offset == null || offset < 0) {
                        throw new IllegalArgumentException(
                                "Offset of " + pb + " must not be negative, but is " + offset);
                    }
                });
        return offsets.isEmpty()
                ? EMPTY
                : new StreamOffsets(Collections.unmodifiableMap(new HashMap<>(offsets)));
    }

    /** The offset of {@code partitionBucket}, or {@code defaultOffset} when it has none. */
    public long offsetOr(PartitionBucket partitionBucket, long defaultOffset) {
        Long offset = offsets.get(partitionBucket);
        return offset == null ? defaultOffset : offset;
    }

    public boolean contains(PartitionBucket partitionBucket) {
        return offsets.containsKey(partitionBucket);
    }

    public Map<PartitionBucket, Long> asMap() {
        return offsets;
    }

    public int size() {
        return offsets.size();
    }

    public boolean isEmpty() {
        return offsets.isEmpty();
    }

    /** A new map holding this map's offsets overwritten by those of {@code newer}. */
    public StreamOffsets mergedWith(StreamOffsets newer) {
        if (newer.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return newer;
        }
        Map<PartitionBucket, Long> merged = new HashMap<>(offsets);
        merged.putAll(newer.offsets);
        return new StreamOffsets(Collections.unmodifiableMap(merged));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StreamOffsets && offsets.equals(((StreamOffsets) o).offsets);
    }

    @Override
    public int hashCode() {
        return Objects.hash(offsets);
    }

    @Override
    public String toString() {
        return "StreamOffsets" + offsets;
    }
}
