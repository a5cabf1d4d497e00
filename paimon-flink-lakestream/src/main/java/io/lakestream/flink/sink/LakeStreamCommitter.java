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

import io.lakestream.flink.offsets.SnapshotOffsets;
import io.lakestream.flink.offsets.StreamOffsets;

import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.flink.sink.Committer;
import org.apache.paimon.flink.sink.StoreCommitter;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Paimon's committer plus the tiered offsets: for every checkpoint it merges the segments that the
 * write subtasks sealed into the table's full offsets map, writes the map to a file and names the
 * file in the snapshot's properties, so that the snapshot and its offsets are committed atomically
 * by Paimon's own commit (and replaying a committed checkpoint after a restore commits nothing).
 *
 * <p>The full map of checkpoint N is the map of checkpoint N-1 (or, for the first checkpoint after
 * a start, that of the latest snapshot) merged with N's sealed segments. Maps are built when
 * checkpoints are combined, in checkpoint order, not when they are committed, because a
 * checkpoint's map is part of the committer's state before its commit happens.
 */
@Internal
public final class LakeStreamCommitter implements Committer<Committable, ManifestCommittable> {

    private final FileStoreTable table;
    private final StoreCommitter paimon;
    private StreamOffsets fullOffsets;

    public LakeStreamCommitter(FileStoreTable table, StoreCommitter paimon) {
        this.table = table;
        this.paimon = paimon;
        this.fullOffsets = SnapshotOffsets.ofLatestSnapshot(table).orElse(StreamOffsets.empty());
    }

    @Override
    public boolean forceCreatingSnapshot() {
        return paimon.forceCreatingSnapshot();
    }

    @Override
    public ManifestCommittable combine(
            long checkpointId, long watermark, List<Committable> committables) {
        return combine(
                checkpointId,
                watermark,
                new ManifestCommittable(checkpointId, watermark),
                committables);
    }

    @Override
    public ManifestCommittable combine(
            long checkpointId,
            long watermark,
            ManifestCommittable manifestCommittable,
            List<Committable> committables) {
        List<Committable> paimonCommittables = new ArrayList<>(committables.size());
        StreamOffsets sealed = StreamOffsets.empty();
        for (Committable committable : committables) {
            if (committable.wrappedCommittable() instanceof SealedSegment) {
                sealed =
                        sealed.mergedWith(
                                ((SealedSegment) committable.wrappedCommittable()).endOffsets());
            } else {
                paimonCommittables.add(committable);
            }
        }
        paimon.combine(checkpointId, watermark, manifestCommittable, paimonCommittables);
        if (!sealed.isEmpty()) {
            fullOffsets = fullOffsets.mergedWith(sealed);
            manifestCommittable.addProperty(
                    SnapshotOffsets.OFFSETS_PROPERTY, SnapshotOffsets.write(table, fullOffsets));
        }
        return manifestCommittable;
    }

    @Override
    public void commit(List<ManifestCommittable> globalCommittables)
            throws IOException, InterruptedException {
        paimon.commit(globalCommittables);
    }

    @Override
    public int filterAndCommit(
            List<ManifestCommittable> globalCommittables,
            boolean checkAppendFiles,
            boolean partitionMarkDoneRecoverFromState) {
        return paimon.filterAndCommit(
                globalCommittables, checkAppendFiles, partitionMarkDoneRecoverFromState);
    }

    @Override
    public Map<Long, List<Committable>> groupByCheckpoint(Collection<Committable> committables) {
        return paimon.groupByCheckpoint(committables);
    }

    @Override
    public void close() throws Exception {
        paimon.close();
    }
}
