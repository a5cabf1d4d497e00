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

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;

import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BinaryOperator;

/**
 * Gives each committable, right before Paimon commits it, the full offsets map of the snapshot it
 * becomes: the map of its parent (the table's latest snapshot) advanced by the segments sealed in
 * exactly the checkpoints it holds, committable after committable in checkpoint order. The map of a
 * snapshot is thus a pure function of what it commits, whatever order Paimon combined checkpoints
 * in, and a committable that waits (an aborted checkpoint, a writer's end of input) adds its
 * offsets only to the snapshot that holds its data.
 *
 * <p>Each segment also says where it starts. A start above the parent's offset means the records in
 * between were written and sealed but are in no retained snapshot: a rollback removed the snapshots
 * that held them (the writer was restored from a checkpoint the rollback went behind). Those gaps
 * are returned, to be fenced before the commit covers them, so that the union read never returns a
 * record Paimon does not hold.
 *
 * <p>The parent's map is read from the table at every commit, not remembered, so that a restore, a
 * compaction job's commits or Paimon's expiry in between change nothing; the last map read is
 * cached by its file name, which is all that is read when nothing else recorded offsets.
 */
public final class SnapshotOffsetsAssigner {

    private final FileStoreTable table;

    /**
     * Applied to the parent's map before it is advanced: takes out the offsets of stream partitions
     * that are dropped ({@link StreamPartitionDrops#beforeCommit}).
     */
    private final BinaryOperator<StreamOffsets> beforeAdvance;

    private String cachedFile;
    private StreamOffsets cachedOffsets;

    public SnapshotOffsetsAssigner(FileStoreTable table) {
        this(table, (parent, segments) -> parent);
    }

    /**
     * @param beforeAdvance given the parent's map and the first sealed segments of a commit,
     *     returns the map to advance
     */
    public SnapshotOffsetsAssigner(
            FileStoreTable table, BinaryOperator<StreamOffsets> beforeAdvance) {
        this.table = table;
        this.beforeAdvance = beforeAdvance;
    }

    /**
     * Sets the offsets property of each of {@code committables}, which must be the uncommitted
     * ones, sorted by checkpoint, that Paimon commits next, and returns the gaps to fence first.
     *
     * @throws IllegalStateException when a sealed offset is below its parent's (offsets never go
     *     back; the commit is refused)
     */
    public List<AbortedRange> assign(List<ManifestCommittable> committables) {
        List<AbortedRange> gaps = new ArrayList<>();
        StreamOffsets parent = null;
        for (ManifestCommittable committable : committables) {
            SealedOffsetsProperty.Segments sealed = SealedOffsetsProperty.remove(committable);
            String recorded = committable.properties().get(SnapshotOffsets.OFFSETS_PROPERTY);
            if (recorded != null) {
                // a committable restored from the state of an earlier version, which recorded the
                // map when it combined checkpoints
                parent = read(recorded);
                continue;
            }
            if (sealed.ends.isEmpty()) {
                continue;
            }
            if (parent == null) {
                parent = beforeAdvance.apply(latest(), sealed.ends);
            }
            gaps.addAll(gaps(parent, sealed.starts));
            parent = advance(parent, sealed.ends, committable.identifier());
            String file = SnapshotOffsets.write(table, parent);
            committable.addProperty(SnapshotOffsets.OFFSETS_PROPERTY, file);
            cachedFile = file;
            cachedOffsets = parent;
        }
        return gaps;
    }

    /** The ranges between the parent's offset and a later start of a segment. */
    private static List<AbortedRange> gaps(StreamOffsets parent, StreamOffsets starts) {
        List<AbortedRange> gaps = new ArrayList<>();
        for (Map.Entry<PartitionBucket, Long> start : starts.asMap().entrySet()) {
            long before = parent.offsetOr(start.getKey(), 0L);
            if (start.getValue() > before) {
                gaps.add(new AbortedRange(start.getKey(), before, start.getValue()));
            }
        }
        return gaps;
    }

    private StreamOffsets latest() {
        Long latest = table.snapshotManager().latestSnapshotId();
        Optional<String> file =
                latest == null ? Optional.empty() : SnapshotOffsets.offsetsFileOf(table, latest);
        return file.map(this::read).orElse(StreamOffsets.empty());
    }

    private StreamOffsets read(String file) {
        if (!file.equals(cachedFile)) {
            cachedOffsets = SnapshotOffsets.read(table, file);
            cachedFile = file;
        }
        return cachedOffsets;
    }

    private StreamOffsets advance(StreamOffsets parent, StreamOffsets sealed, long checkpoint) {
        Map<PartitionBucket, Long> next = new HashMap<>(parent.asMap());
        for (Map.Entry<PartitionBucket, Long> segment : sealed.asMap().entrySet()) {
            long before = parent.offsetOr(segment.getKey(), 0L);
            if (segment.getValue() < before) {
                throw new IllegalStateException(
                        String.format(
                                "Refusing to commit checkpoint %d of lake-stream table %s: it "
                                        + "moves the stream offset of %s back from %d to %d. "
                                        + "Offsets never go back; another writer recorded "
                                        + "offsets of this table, or its stream table was "
                                        + "replaced.",
                                checkpoint,
                                table.fullName(),
                                segment.getKey(),
                                before,
                                segment.getValue()));
            }
            next.put(segment.getKey(), segment.getValue());
        }
        return StreamOffsets.of(next);
    }
}
