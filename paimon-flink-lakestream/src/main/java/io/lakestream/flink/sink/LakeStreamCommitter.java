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
import org.apache.paimon.table.sink.BatchWriteBuilder;

import org.apache.flink.annotation.Internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>After the final commit of a bounded job (in a live commit, Paimon's committer commits the
 * identifier {@link BatchWriteBuilder#COMMIT_IDENTIFIER} only once every writer ended its input) it
 * releases the job's writer lease, so that the next job writes the table at once rather than after
 * the lease timeout. Releasing any earlier would let the next job fence records that are about to
 * be committed. Committables replayed on a restore are not such a sign: writers that had ended
 * their input before the restored checkpoint left committables with that identifier while the
 * others restart and write on; those are committed before this committer combines any.
 */
@Internal
public final class LakeStreamCommitter implements Committer<Committable, ManifestCommittable> {

    private static final Logger LOG = LoggerFactory.getLogger(LakeStreamCommitter.class);

    private final FileStoreTable table;
    private final StoreCommitter paimon;
    private final Runnable releaseLease;
    private StreamOffsets fullOffsets;

    /** Whether this attempt combined committables, which restored ones never are. */
    private boolean combinedAny;

    /**
     * @param releaseLease releases the job's writer lease; run after the final commit
     */
    public LakeStreamCommitter(FileStoreTable table, StoreCommitter paimon, Runnable releaseLease) {
        this.table = table;
        this.paimon = paimon;
        this.releaseLease = releaseLease;
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
        combinedAny = true;
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
        releaseLeaseAfterFinalCommit(globalCommittables);
    }

    private void releaseLeaseAfterFinalCommit(List<ManifestCommittable> committed) {
        boolean last =
                committed.stream()
                        .anyMatch(c -> c.identifier() == BatchWriteBuilder.COMMIT_IDENTIFIER);
        if (!last) {
            return;
        }
        try {
            releaseLease.run();
        } catch (RuntimeException e) {
            // the data is committed; the next job only waits for the lease to expire
            LOG.warn(
                    "Cannot release the writer lease of table {} after its final commit; the "
                            + "next job that writes it waits for the lease timeout.",
                    table.fullName(),
                    e);
        }
    }

    @Override
    public int filterAndCommit(
            List<ManifestCommittable> globalCommittables,
            boolean checkAppendFiles,
            boolean partitionMarkDoneRecoverFromState) {
        int committed =
                paimon.filterAndCommit(
                        globalCommittables, checkAppendFiles, partitionMarkDoneRecoverFromState);
        // Paimon commits the end of the input this way too; a restore replays its committables
        // before this committer combined any, and those are no sign that every writer ended
        if (combinedAny) {
            releaseLeaseAfterFinalCommit(globalCommittables);
        }
        return committed;
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
