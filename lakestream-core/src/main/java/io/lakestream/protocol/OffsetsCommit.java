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
import io.lakestream.offsets.OffsetsCleaner;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;

import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.List;
import java.util.function.Consumer;

/**
 * What a commit of sealed segments does around Paimon's own commit, as {@code docs/consistency.md}
 * ("Committer") states it: {@link #beforeCommit} gives each committable, in checkpoint order, the
 * full offsets map of the snapshot it becomes ({@link SnapshotOffsetsAssigner}) and fences the
 * records between the parent's map and a segment that starts above it (committed, then rolled back)
 * before the commit covers them; {@link #afterCommit} anchors the new snapshots, tells a store that
 * frees what Paimon holds the latest snapshot's offsets, and now and then deletes the offsets files
 * no snapshot, tag or branch needs.
 *
 * <p>The committables carry their segments in their properties ({@link SealedOffsetsProperty});
 * Paimon's commit writes the map into the snapshot atomically with the data. The Flink committer
 * and the embedded writer both commit this way.
 */
public final class OffsetsCommit {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetsCommit.class);

    /**
     * How often offsets files no longer needed are deleted. Hand-set rather than an option: a
     * cleaning lists one folder and reads the anchors of retained snapshots.
     */
    static final long CLEANUP_INTERVAL_MILLIS = 5 * 60_000L;

    /**
     * Offsets files younger than this are kept whatever refers to them: one may belong to a commit
     * under way elsewhere (enabling writes its file, then commits, within milliseconds).
     */
    static final long CLEANUP_MIN_FILE_AGE_MILLIS = 10 * 60_000L;

    private final FileStoreTable table;
    private final Consumer<List<AbortedRange>> fence;
    private final SnapshotOffsetsAssigner offsets;
    @Nullable private final Consumer<StreamOffsets> committedOffsets;
    private long lastCleanupMillis;

    /**
     * @param fence records ranges as fenced in the store, durably, before it returns
     * @param partitionDrops drops the stream partitions of partitions the table no longer has, at
     *     commits; null for a committer that never drops them
     * @param committedOffsets told the offsets of the table's latest snapshot after each commit,
     *     for a store that frees what Paimon holds ({@link
     *     io.lakestream.store.StreamStore#advanceCommittedOffsets}); null when the store needs no
     *     such word
     */
    public OffsetsCommit(
            FileStoreTable table,
            Consumer<List<AbortedRange>> fence,
            @Nullable StreamPartitionDrops partitionDrops,
            @Nullable Consumer<StreamOffsets> committedOffsets) {
        this.table = table;
        this.fence = fence;
        this.committedOffsets = committedOffsets;
        this.offsets =
                partitionDrops == null
                        ? new SnapshotOffsetsAssigner(table)
                        : new SnapshotOffsetsAssigner(table, partitionDrops::beforeCommit);
        // a failure between an earlier committer's commit and its anchor leaves a snapshot that
        // Paimon may expire before anything else anchors it
        SnapshotOffsets.anchorUnanchoredSnapshots(table);
        this.lastCleanupMillis = System.currentTimeMillis();
    }

    /**
     * Gives {@code toCommit}, sorted by identifier and about to be committed by Paimon, their
     * offsets maps, and fences what a rollback left uncovered.
     *
     * @return the table's latest snapshot id before the commit (0 when none), for {@link
     *     #afterCommit}
     */
    public long beforeCommit(List<ManifestCommittable> toCommit) {
        long before = latestSnapshotId();
        List<AbortedRange> gaps = offsets.assign(toCommit);
        if (!gaps.isEmpty()) {
            fence.accept(gaps);
            for (AbortedRange gap : gaps) {
                LOG.info(
                        "Fenced offsets [{}, {}) of {} of table {}: their records were committed "
                                + "in snapshots that a rollback removed.",
                        gap.startOffset(),
                        gap.endOffset(),
                        gap.partitionBucket(),
                        table.fullName());
            }
        }
        return before;
    }

    /** Anchors the snapshots committed after {@code latestBefore}, and the rest (see above). */
    public void afterCommit(long latestBefore) {
        SnapshotOffsets.anchorSnapshotsAfter(table, latestBefore);
        if (committedOffsets != null && latestSnapshotId() != latestBefore) {
            try {
                SnapshotOffsets.ofLatestSnapshot(table).ifPresent(committedOffsets);
            } catch (RuntimeException e) {
                // a hint: the store frees the records at the next commit
                LOG.warn(
                        "Cannot tell the stream store of table {} what its latest snapshot "
                                + "committed.",
                        table.fullName(),
                        e);
            }
        }
        long now = System.currentTimeMillis();
        if (now - lastCleanupMillis < CLEANUP_INTERVAL_MILLIS) {
            return;
        }
        lastCleanupMillis = now;
        try {
            OffsetsCleaner.Result result =
                    OffsetsCleaner.clean(table, now, CLEANUP_MIN_FILE_AGE_MILLIS);
            LOG.info(
                    "Deleted {} offsets anchors and {} offsets files of table {} that no retained "
                            + "snapshot, tag or branch needs.",
                    result.anchors,
                    result.offsetsFiles,
                    table.fullName());
        } catch (RuntimeException e) {
            // the commit happened; files left behind are deleted at a later cleaning
            LOG.warn("Cannot clean the offsets files of table {}.", table.fullName(), e);
        }
    }

    private long latestSnapshotId() {
        Long latest = table.snapshotManager().latestSnapshotId();
        return latest == null ? 0L : latest;
    }
}
