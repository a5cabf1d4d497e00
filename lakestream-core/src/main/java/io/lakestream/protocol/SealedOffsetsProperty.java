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

package io.lakestream.protocol;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.offsets.StreamOffsetsSerializer;

import org.apache.paimon.manifest.ManifestCommittable;

import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BinaryOperator;

/**
 * The sealed segments of the checkpoints a pending {@link ManifestCommittable} holds, carried in
 * its properties from {@code combine} to the commit, so that they live in the committer's state
 * (Paimon's committable serializer keeps properties) and survive a restore.
 *
 * <p>They are not the snapshot's offsets: those are computed only when the committable is committed
 * (see {@link SnapshotOffsetsAssigner}) and the property is removed before Paimon writes the
 * snapshot.
 */
public final class SealedOffsetsProperty {

    /** The property of a pending committable that holds the ends of its sealed segments. */
    static final String KEY = "lake-stream.sealed";

    /** The property of a pending committable that holds the starts of its sealed segments. */
    static final String STARTS_KEY = "lake-stream.sealed-from";

    private SealedOffsetsProperty() {}

    /**
     * Adds {@code segment} to the segments {@code committable} holds. Paimon combines the
     * end-of-input committables of writers that end at different times into one, so a committable
     * may receive segments more than once; a partition-bucket has one writer, whose later seal is
     * the higher end, and whose earlier segment the lower start.
     */
    public static void add(ManifestCommittable committable, SealedSegment segment) {
        if (segment.endOffsets().isEmpty()) {
            return;
        }
        merge(committable, KEY, segment.endOffsets(), Math::max);
        merge(committable, STARTS_KEY, segment.startOffsets(), Math::min);
    }

    private static void merge(
            ManifestCommittable committable,
            String key,
            StreamOffsets offsets,
            BinaryOperator<Long> rule) {
        if (offsets.isEmpty()) {
            return;
        }
        Map<PartitionBucket, Long> merged = new HashMap<>(read(committable, key).asMap());
        offsets.asMap().forEach((pb, offset) -> merged.merge(pb, offset, rule));
        committable.addProperty(
                key,
                Base64.getEncoder()
                        .encodeToString(
                                StreamOffsetsSerializer.serialize(StreamOffsets.of(merged))));
    }

    /** The ends of the segments {@code committable} holds; empty when none. */
    static StreamOffsets of(ManifestCommittable committable) {
        return read(committable, KEY);
    }

    private static StreamOffsets read(ManifestCommittable committable, String key) {
        String encoded = committable.properties().get(key);
        return encoded == null
                ? StreamOffsets.empty()
                : StreamOffsetsSerializer.deserialize(Base64.getDecoder().decode(encoded));
    }

    /**
     * Removes the segments from {@code committable}, before its snapshot is written, and returns
     * them: ends, and starts where known (a committable restored from the state of an earlier
     * version carries no starts).
     */
    static Segments remove(ManifestCommittable committable) {
        Segments segments = new Segments(read(committable, STARTS_KEY), read(committable, KEY));
        committable.properties().remove(KEY);
        committable.properties().remove(STARTS_KEY);
        return segments;
    }

    /** The starts and ends of the segments one committable held. */
    static final class Segments {
        final StreamOffsets starts;
        final StreamOffsets ends;

        Segments(StreamOffsets starts, StreamOffsets ends) {
            this.starts = starts;
            this.ends = ends;
        }
    }
}
