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

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.OffsetsCleaner;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.protocol.OffsetsCommit;
import io.lakestream.protocol.SealedOffsetsProperty;
import io.lakestream.protocol.SealedSegment;
import io.lakestream.protocol.SnapshotOffsetsAssigner;
import io.lakestream.protocol.StreamPartitionDrops;

import org.apache.paimon.Snapshot;
import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.flink.sink.Committer;
import org.apache.paimon.flink.sink.StoreCommitter;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchWriteBuilder;

import org.apache.flink.annotation.Internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Paimon's committer plus the tiered offsets (see {@code docs/consistency.md}).
 *
 * <ul>
 *   <li>{@link #combine}: Paimon's commit messages go to Paimon's combine; the segments that the
 *       write subtasks sealed at the checkpoint are only carried along in the committable's
 *       properties ({@link SealedOffsetsProperty}), so that they are part of the committer's state.
 *   <li>{@link #commit} and {@link #filterAndCommit}: right before Paimon commits, each uncommitted
 *       committable, in checkpoint order, gets the full map of the snapshot it becomes ({@link
 *       SnapshotOffsetsAssigner}, through {@link OffsetsCommit}); Paimon's commit writes it into
 *       the snapshot's properties atomically with the data. Then the new snapshots are anchored,
 *       and now and then the offsets files no snapshot, tag or branch needs are deleted ({@link
 *       OffsetsCleaner}).
 * </ul>
 *
 * <p>Why at commit and not at combine: Paimon's {@code CommitterOperator} groups pending
 * committables with a {@code HashMap}, so after an aborted checkpoint it combines two checkpoints
 * in hash order, and it combines a writer's end-of-input committables (identifier {@link
 * BatchWriteBuilder#COMMIT_IDENTIFIER}) long before it commits them, after every later checkpoint.
 * A map built while combining would follow that order; one built at commit follows the commits.
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
    private final String commitUser;
    private final Runnable releaseLease;
    private final OffsetsCommit offsets;
    @Nullable private final StreamPartitionDrops partitionDrops;

    /** Whether this attempt combined committables, which restored ones never are. */
    private boolean combinedAny;

    /**
     * @param commitUser the commit user of the job, with which Paimon tells committed checkpoints
     * @param releaseLease releases the job's writer lease; run after the final commit
     * @param fence records ranges as fenced in the store, durably, before it returns; run before a
     *     commit whose offsets cover records that no snapshot holds
     */
    public LakeStreamCommitter(
            FileStoreTable table,
            StoreCommitter paimon,
            String commitUser,
            Runnable releaseLease,
            Consumer<List<AbortedRange>> fence) {
        this(table, paimon, commitUser, releaseLease, fence, null);
    }

    /**
     * @param partitionDrops drops the stream partitions of partitions the table no longer has, at
     *     commits; null for a committer that never drops them
     */
    LakeStreamCommitter(
            FileStoreTable table,
            StoreCommitter paimon,
            String commitUser,
            Runnable releaseLease,
            Consumer<List<AbortedRange>> fence,
            @Nullable StreamPartitionDrops partitionDrops) {
        this(table, paimon, commitUser, releaseLease, fence, partitionDrops, null);
    }

    /**
     * @param committedOffsets told the offsets of the table's latest snapshot after each commit,
     *     for a store that frees what Paimon holds ({@link
     *     io.lakestream.store.StreamStore#advanceCommittedOffsets}); null when the store needs no
     *     such word
     */
    LakeStreamCommitter(
            FileStoreTable table,
            StoreCommitter paimon,
            String commitUser,
            Runnable releaseLease,
            Consumer<List<AbortedRange>> fence,
            @Nullable StreamPartitionDrops partitionDrops,
            @Nullable Consumer<StreamOffsets> committedOffsets) {
        this.table = table;
        this.paimon = paimon;
        this.commitUser = commitUser;
        this.releaseLease = releaseLease;
        this.partitionDrops = partitionDrops;
        this.offsets = new OffsetsCommit(table, fence, partitionDrops, committedOffsets);
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
        for (Committable committable : committables) {
            if (committable.wrappedCommittable() instanceof SealedSegment) {
                SealedOffsetsProperty.add(
                        manifestCommittable, (SealedSegment) committable.wrappedCommittable());
            } else {
                paimonCommittables.add(committable);
            }
        }
        paimon.combine(checkpointId, watermark, manifestCommittable, paimonCommittables);
        return manifestCommittable;
    }

    @Override
    public void commit(List<ManifestCommittable> globalCommittables)
            throws IOException, InterruptedException {
        List<ManifestCommittable> sorted = sorted(globalCommittables);
        long before = offsets.beforeCommit(sorted);
        paimon.commit(sorted);
        offsets.afterCommit(before);
        releaseLeaseAfterFinalCommit(globalCommittables);
    }

    @Override
    public int filterAndCommit(
            List<ManifestCommittable> globalCommittables,
            boolean checkAppendFiles,
            boolean partitionMarkDoneRecoverFromState) {
        List<ManifestCommittable> sorted = sorted(globalCommittables);
        // only the committables Paimon is about to commit get maps, by the same rule Paimon
        // filters with: those after the last checkpoint this commit user committed
        long before = offsets.beforeCommit(uncommitted(sorted));
        int committed =
                paimon.filterAndCommit(sorted, checkAppendFiles, partitionMarkDoneRecoverFromState);
        offsets.afterCommit(before);
        // Paimon commits the end of the input this way too; a restore replays its committables
        // before this committer combined any, and those are no sign that every writer ended
        if (combinedAny) {
            releaseLeaseAfterFinalCommit(globalCommittables);
        }
        return committed;
    }

    private static List<ManifestCommittable> sorted(List<ManifestCommittable> committables) {
        List<ManifestCommittable> sorted = new ArrayList<>(committables);
        sorted.sort(Comparator.comparingLong(ManifestCommittable::identifier));
        return sorted;
    }

    private List<ManifestCommittable> uncommitted(List<ManifestCommittable> sorted) {
        Optional<Snapshot> last = table.snapshotManager().latestSnapshotOfUser(commitUser);
        if (!last.isPresent()) {
            return sorted;
        }
        long committed = last.get().commitIdentifier();
        List<ManifestCommittable> result = new ArrayList<>();
        for (ManifestCommittable committable : sorted) {
            if (committable.identifier() > committed) {
                result.add(committable);
            }
        }
        return result;
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
    public Map<Long, List<Committable>> groupByCheckpoint(Collection<Committable> committables) {
        return paimon.groupByCheckpoint(committables);
    }

    @Override
    public void close() throws Exception {
        try {
            paimon.close();
        } finally {
            if (partitionDrops != null) {
                partitionDrops.close();
            }
        }
    }
}
