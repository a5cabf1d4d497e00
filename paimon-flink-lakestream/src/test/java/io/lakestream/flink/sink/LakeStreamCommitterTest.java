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
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;

import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchWriteBuilder;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static io.lakestream.flink.sink.CommitterHarness.map;
import static io.lakestream.flink.sink.CommitterHarness.mapsCommittedBy;
import static io.lakestream.flink.sink.CommitterHarness.offsets;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LakeStreamCommitter} driven as Paimon 1.3.1's {@code CommitterOperator} drives it,
 * asserting the offsets map of every snapshot: each is its parent's map plus the segments sealed in
 * exactly the checkpoints it commits.
 */
class LakeStreamCommitterTest {

    @TempDir Path warehouse;

    private FileStoreTable table() throws Exception {
        return CommitterHarness.createTable(warehouse, Collections.emptyMap());
    }

    @Test
    void checkpointsInOrderAdvanceTheMap() throws Exception {
        FileStoreTable table = table();
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            job.open();
            job.sealed(1, 0, offsets(0, 5));
            job.snapshot(1);
            job.notifyComplete(1);
            job.sealed(2, 1, offsets(1, 3));
            job.snapshot(2);
            job.notifyComplete(2);

            assertThat(mapsCommittedBy(table, job.commitUser))
                    .containsExactly(map(0, 5), map(0, 5, 1, 3));
        }
    }

    /**
     * A segment that starts where its parent's offset is needs no fence: what the writer fenced
     * itself on start (between the start and the store's end then) is already fenced.
     */
    @Test
    void segmentsThatContinueTheirParentFenceNothing() throws Exception {
        FileStoreTable table = table();
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            job.open();
            job.sealed(1, 0, offsets(0, 0), offsets(0, 5));
            job.snapshot(1);
            job.notifyComplete(1);
            job.sealed(2, 0, offsets(0, 5), offsets(0, 9));
            job.snapshot(2);
            job.notifyComplete(2);

            assertThat(job.fenced).isEmpty();
            assertThat(mapsCommittedBy(table, job.commitUser))
                    .containsExactly(map(0, 5), map(0, 9));
        }
    }

    /**
     * {@code rollback_to} removes the snapshot of checkpoint 2 while the job writes on: the records
     * of checkpoint 2 ([5, 9)) are in no snapshot any more. The next commit starts its segment at 9
     * on top of the rolled-back-to map (5): the committer fences [5, 9) before the new snapshot's
     * offsets cover it, so the union read never returns what Paimon no longer holds.
     */
    @Test
    void rollbackBehindCommittedCheckpointsFencesTheirRecordsBeforeTheNextCommit()
            throws Exception {
        FileStoreTable table = table();
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            job.open();
            job.sealed(1, 0, offsets(0, 0), offsets(0, 5));
            job.snapshot(1);
            job.notifyComplete(1);
            long first = table.snapshotManager().latestSnapshotId();
            job.sealed(2, 0, offsets(0, 5), offsets(0, 9));
            job.snapshot(2);
            job.notifyComplete(2);

            table.rollbackTo(first);
            job.sealed(3, 0, offsets(0, 9), offsets(0, 12));
            job.snapshot(3);
            job.notifyComplete(3);

            assertThat(job.fenced)
                    .containsExactly(new AbortedRange(PartitionBucket.ofUnpartitioned(0), 5L, 9L));
            assertThat(SnapshotOffsets.ofLatestSnapshot(table)).contains(map(0, 12));
        }
    }

    /**
     * A restored job whose restored checkpoint was rolled back, and whose state holds a pending
     * checkpoint: the pending one is committed on top of the rolled-back-to snapshot, and the
     * records of the rolled-back checkpoint between them are fenced first.
     */
    @Test
    void restoreAfterARollbackFencesTheRolledBackRecordsBeforeThePendingCommit() throws Exception {
        FileStoreTable table = table();
        OperatorSubtaskState state;
        String commitUser;
        long first;
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            commitUser = job.commitUser;
            job.open();
            job.sealed(1, 0, offsets(0, 0), offsets(0, 5));
            job.snapshot(1);
            job.notifyComplete(1);
            first = table.snapshotManager().latestSnapshotId();
            job.sealed(2, 0, offsets(0, 5), offsets(0, 9));
            job.snapshot(2);
            job.notifyComplete(2);
            job.sealed(3, 0, offsets(0, 9), offsets(0, 14));
            state = job.snapshot(3);
        }
        table.rollbackTo(first);

        try (CommitterHarness restored = CommitterHarness.sameJob(table, commitUser)) {
            assertThatThrownBy(() -> restored.initializeState(state))
                    .hasMessageContaining("This exception is intentionally thrown");
            assertThat(restored.fenced)
                    .containsExactly(new AbortedRange(PartitionBucket.ofUnpartitioned(0), 5L, 9L));
            assertThat(SnapshotOffsets.ofLatestSnapshot(table)).contains(map(0, 14));
        }
    }

    /**
     * Checkpoint 15 is aborted before its barrier reaches the committer, so the committer polls the
     * committables of 15 and 16 together and Paimon's {@code groupByCheckpoint} (a {@code HashMap})
     * hands them over as [16, 15]. The snapshots still follow checkpoint order.
     */
    @Test
    void checkpointAbortedBeforeTheCommitterIsCombinedInCheckpointOrder() throws Exception {
        FileStoreTable table = table();
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            job.open();
            job.sealed(15, 0, offsets(0, 10, 1, 4));
            job.sealed(16, 0, offsets(0, 20));
            job.snapshot(16);
            job.notifyComplete(16);

            assertThat(mapsCommittedBy(table, job.commitUser))
                    .containsExactly(map(0, 10, 1, 4), map(0, 20, 1, 4));
        }
    }

    /** Checkpoint 15 reached the committer's state but never completed; 16 commits both. */
    @Test
    void checkpointAbortedAfterTheCommitterIsCommittedWithTheNextOne() throws Exception {
        FileStoreTable table = table();
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            job.open();
            job.sealed(15, 0, offsets(0, 10, 1, 4));
            job.snapshot(15);
            job.sealed(16, 0, offsets(0, 20));
            job.snapshot(16);
            job.notifyComplete(16);

            assertThat(mapsCommittedBy(table, job.commitUser))
                    .containsExactly(map(0, 10, 1, 4), map(0, 20, 1, 4));
        }
    }

    /**
     * Subtask 0 ends its input (identifier {@code Long.MAX_VALUE}) while subtask 1 writes on. Its
     * segment joins only the final commit, which holds its data; the snapshots before do not claim
     * its records.
     */
    @Test
    void endOfInputSegmentJoinsOnlyTheFinalCommit() throws Exception {
        FileStoreTable table = table();
        long end = BatchWriteBuilder.COMMIT_IDENTIFIER;
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            job.open();
            job.sealed(end, 0, offsets(0, 7));
            job.sealed(3, 1, offsets(1, 2));
            job.snapshot(3);
            job.notifyComplete(3);
            job.sealed(4, 1, offsets(1, 5));
            job.snapshot(4);
            job.notifyComplete(4);
            assertThat(mapsCommittedBy(table, job.commitUser))
                    .containsExactly(map(1, 2), map(1, 5));
            assertThat(job.leaseReleases).hasValue(0);

            job.sealed(end, 1, offsets(1, 6));
            job.endInput();
            job.snapshot(5);
            job.notifyComplete(5);

            assertThat(mapsCommittedBy(table, job.commitUser))
                    .containsExactly(map(1, 2), map(1, 5), map(0, 7, 1, 6));
            assertThat(job.leaseReleases).hasValue(1);
        }
    }

    /**
     * A restore finds committables in the committer's state that were never committed: they are
     * committed with the map they would have had, the restore fails on purpose (Paimon's
     * restore-and-fail), and the next restore from the same state commits nothing twice.
     */
    @Test
    void restoreCommitsPendingCheckpointsOnceWithTheirMaps() throws Exception {
        FileStoreTable table = table();
        String commitUser;
        OperatorSubtaskState state;
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            commitUser = job.commitUser;
            job.open();
            job.sealed(1, 0, offsets(0, 5));
            job.snapshot(1);
            job.notifyComplete(1);
            job.sealed(2, 0, offsets(0, 9, 1, 1));
            job.snapshot(2);
            job.sealed(3, 1, offsets(1, 4));
            state = job.snapshot(3);
            // the job fails before checkpoints 2 and 3 are known to be complete
        }

        try (CommitterHarness restored = CommitterHarness.sameJob(table, commitUser)) {
            assertThatThrownBy(() -> restored.initializeState(state))
                    .hasMessageContaining("This exception is intentionally thrown");
        }
        List<StreamOffsets> afterRestore = mapsCommittedBy(table, commitUser);
        assertThat(afterRestore).containsExactly(map(0, 5), map(0, 9, 1, 1), map(0, 9, 1, 4));

        try (CommitterHarness again = CommitterHarness.sameJob(table, commitUser)) {
            again.initializeState(state);
            again.open();
            again.sealed(4, 0, offsets(0, 12));
            again.snapshot(4);
            again.notifyComplete(4);
        }
        assertThat(mapsCommittedBy(table, commitUser))
                .containsExactly(map(0, 5), map(0, 9, 1, 1), map(0, 9, 1, 4), map(0, 12, 1, 4));
    }

    @Test
    void commitThatMovesAnOffsetBackIsRefused() throws Exception {
        FileStoreTable table = table();
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            job.open();
            job.sealed(1, 0, offsets(0, 50));
            job.snapshot(1);
            job.notifyComplete(1);
            job.sealed(2, 0, offsets(0, 10));
            job.snapshot(2);
            assertThatThrownBy(() -> job.notifyComplete(2))
                    .hasMessageContaining("db.t")
                    .hasMessageContaining("back from 50 to 10");
        }
        assertThat(SnapshotOffsets.ofLatestSnapshot(table)).contains(map(0, 50));
    }

    /**
     * Other writers commit (a compaction job, a batch job, another engine) and Paimon expires the
     * last snapshot that recorded offsets: the chain leads to its map through its anchor, and the
     * next job's committer advances it.
     */
    @Test
    void chainSurvivesExpiryOfTheLastSnapshotWithOffsets() throws Exception {
        FileStoreTable table =
                CommitterHarness.createTable(
                        warehouse,
                        Map.of(
                                "snapshot.num-retained.min", "10",
                                "snapshot.num-retained.max", "10"));
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            job.open();
            job.sealed(1, 0, offsets(0, 5, 1, 2));
            job.snapshot(1);
            job.notifyComplete(1);
        }
        long lakeStreamSnapshot = table.snapshotManager().latestSnapshotId();
        for (int i = 0; i < 12; i++) {
            CommitterHarness.commitWithoutOffsets(table, 3);
        }
        assertThat(table.snapshotManager().snapshotExists(lakeStreamSnapshot)).isFalse();

        assertThat(SnapshotOffsets.ofLatestSnapshot(table)).contains(map(0, 5, 1, 2));

        try (CommitterHarness next = CommitterHarness.newJob(table)) {
            next.open();
            next.sealed(1, 1, offsets(1, 8));
            next.snapshot(1);
            next.notifyComplete(1);
            assertThat(mapsCommittedBy(table, next.commitUser)).containsExactly(map(0, 5, 1, 8));
        }
    }

    /** The sealed segments travel in the committer's state, never into a snapshot. */
    @Test
    void snapshotsCarryTheOffsetsFileOnly() throws Exception {
        FileStoreTable table = table();
        try (CommitterHarness job = CommitterHarness.newJob(table)) {
            job.open();
            job.sealed(1, 0, offsets(0, 5));
            job.snapshot(1);
            job.notifyComplete(1);
        }
        long latest = table.snapshotManager().latestSnapshotId();
        assertThat(table.snapshotManager().snapshot(latest).properties())
                .containsOnlyKeys(SnapshotOffsets.OFFSETS_PROPERTY);
    }
}
