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

package io.lakestream.read.plan;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ScanMode;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.snapshot.SnapshotReader;
import org.apache.paimon.utils.SnapshotManager;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Follows the commits of other writers: snapshots that name no offsets map (Paimon's own sink,
 * Spark, CDC actions, a job started before the table was enabled). Their rows are not in the stream
 * store, so an unbounded read returns them from Paimon, at their commit, as Paimon 1.3.1's own
 * streaming read of that snapshot returns them ({@code DataTableStreamScan}'s follow-up scanner for
 * the table's changelog producer):
 *
 * <ul>
 *   <li>{@code 'changelog-producer' = 'input'}: the changelog files of a snapshot that has any
 *       ({@code ChangelogFollowUpScanner}, {@link ScanMode#CHANGELOG});
 *   <li>every other table (append tables; primary-key tables with no changelog producer, or with
 *       {@code 'lookup'} or {@code 'full-compaction'}): the delta files of an {@code APPEND}
 *       snapshot ({@code DeltaFollowUpScanner}, {@link ScanMode#DELTA}). For {@code 'lookup'} and
 *       {@code 'full-compaction'} Paimon's read would return the changelog that a later compaction
 *       writes, mixed with the changelog of the stream store's rows; the delta is what the read
 *       returns of the stream store's own rows (the written changes, merged into a changelog by the
 *       read), so the other writer's rows get exactly the semantics of the read's own.
 * </ul>
 *
 * <p>With {@code streaming.read.snapshot.delay} a snapshot is looked at once it is that old, as
 * Paimon's {@code DataTableStreamScan} waits for it, and the snapshots after it wait behind it: the
 * rows of other writers are returned no earlier than the delay after their commit. The stream
 * store's records, which no snapshot holds yet, are not delayed.
 *
 * <p>{@code COMPACT} snapshots add no rows and are passed over, as Paimon's delta follow-up does.
 * {@code OVERWRITE} snapshots (an {@code INSERT OVERWRITE} through either catalog, a truncate, a
 * dropped or expired partition: none names an offsets map) are passed over as Paimon's streaming
 * read passes them over by default. With {@code 'streaming-read-append-overwrite'} true, an append
 * table's overwrite is followed as Paimon's {@code FollowUpScanner#getOverwriteChangesPlan} plans
 * it for an append table: its delta files, the new rows as inserts ({@link ScanMode#DELTA}). With
 * {@code 'streaming-read-overwrite'} true a primary-key table's overwrite fails the read, naming
 * the snapshot: Paimon returns deletes of the replaced rows and then the new rows, which are exact
 * only if the read has returned, at that point, exactly the store records that the overwrite's
 * parent committed in each replaced partition-bucket; a running writer's uncommitted tail, which
 * the read returns at once and Paimon after the overwrite, breaks that. So does a read that finds
 * the next snapshot to follow expired: it never skips one.
 *
 * <p>Every unbounded read plans with it (the Flink source's enumerator, the Spark micro-batch
 * stream): see {@code docs/consistency.md}, "Commits of other writers".
 */
@Experimental
public final class ForeignCommits {

    private static final Logger LOG = LoggerFactory.getLogger(ForeignCommits.class);

    /** How many snapshots one look goes through at most: a long backlog is followed in steps. */
    public static final int MAX_SNAPSHOTS_PER_LOOK = 64;

    /** The changes of one partition-bucket in one snapshot of another writer. */
    public static final class Change {
        private final PartitionBucket partitionBucket;
        private final long snapshotId;
        private final List<DataSplit> splits;

        Change(PartitionBucket partitionBucket, long snapshotId, List<DataSplit> splits) {
            this.partitionBucket = partitionBucket;
            this.snapshotId = snapshotId;
            this.splits = splits;
        }

        public PartitionBucket partitionBucket() {
            return partitionBucket;
        }

        /** The snapshot whose changes these are. */
        public long snapshotId() {
            return snapshotId;
        }

        /** The snapshot's delta or changelog files of the partition-bucket. */
        public List<DataSplit> splits() {
            return splits;
        }
    }

    /** What one look found. */
    public static final class Followed {
        private final List<Change> changes;
        private final long fromSnapshotId;
        private final long nextSnapshotId;

        Followed(List<Change> changes, long fromSnapshotId, long nextSnapshotId) {
            this.changes = changes;
            this.fromSnapshotId = fromSnapshotId;
            this.nextSnapshotId = nextSnapshotId;
        }

        /** The changes of other writers' snapshots, in snapshot order. */
        public List<Change> changes() {
            return changes;
        }

        /** The id of the first snapshot the look looked at. */
        public long fromSnapshotId() {
            return fromSnapshotId;
        }

        /** The id of the next snapshot to look at. */
        public long nextSnapshotId() {
            return nextSnapshotId;
        }
    }

    private final FileStoreTable table;
    private final UnionReadPlanner planner;
    private final boolean changelogFiles;
    private final long delayMillis;

    public ForeignCommits(UnionReadPlanner planner) {
        this.planner = planner;
        this.table = planner.table();
        Duration delay = table.coreOptions().streamingReadDelay();
        this.delayMillis = delay == null ? 0 : delay.toMillis();
        this.changelogFiles =
                !table.primaryKeys().isEmpty()
                        && table.coreOptions().changelogProducer()
                                == CoreOptions.ChangelogProducer.INPUT;
    }

    /**
     * Looks at the snapshots from {@code nextSnapshotId} up to the latest (at most {@link
     * #MAX_SNAPSHOTS_PER_LOOK}) and plans the changes of each that another writer committed.
     *
     * @throws NotFollowedException naming the snapshot, its commit user and what to do, when a
     *     snapshot cannot be followed exactly
     */
    public Followed follow(long nextSnapshotId) {
        return follow(nextSnapshotId, nextSnapshotId + MAX_SNAPSHOTS_PER_LOOK);
    }

    /**
     * Looks at the snapshots from {@code nextSnapshotId} up to the latest, and before {@code
     * untilSnapshotId}: a read that recorded how far a look went plans the same range again.
     *
     * @throws NotFollowedException naming the snapshot, its commit user and what to do, when a
     *     snapshot cannot be followed exactly
     */
    public Followed follow(long nextSnapshotId, long untilSnapshotId) {
        long next = reach(nextSnapshotId, untilSnapshotId);
        SnapshotManager snapshots = table.snapshotManager();
        List<Change> changes = new ArrayList<>();
        for (long id = nextSnapshotId; id < next; id++) {
            Snapshot snapshot = snapshots.snapshot(id);
            if (!SnapshotOffsets.ownOffsetsFile(snapshot).isPresent()) {
                changes.addAll(changesOf(snapshot));
            }
        }
        return new Followed(changes, nextSnapshotId, next);
    }

    /**
     * How far a look from {@code nextSnapshotId} goes (at most {@link #MAX_SNAPSHOTS_PER_LOOK}):
     * the id after the last committed snapshot before a gap, without planning any of them. A read
     * that records how far it will go and plans the range later ({@link #follow(long, long)}) asks
     * this first.
     *
     * @throws NotFollowedException when the next snapshot to look at expired
     */
    public long reach(long nextSnapshotId) {
        return reach(nextSnapshotId, nextSnapshotId + MAX_SNAPSHOTS_PER_LOOK);
    }

    private long reach(long nextSnapshotId, long untilSnapshotId) {
        SnapshotManager snapshots = table.snapshotManager();
        Long latest = snapshots.latestSnapshotId();
        long next = nextSnapshotId;
        while (latest != null && next <= latest && next < untilSnapshotId) {
            if (!snapshots.snapshotExists(next)) {
                Long earliest = snapshots.earliestSnapshotId();
                if (earliest != null && next < earliest) {
                    throw expired(next, earliest);
                }
                // not committed yet (an id taken but not written), or gone with a rollback
                break;
            }
            if (delayMillis > 0
                    && snapshots.snapshot(next).timeMillis()
                            > System.currentTimeMillis() - delayMillis) {
                // 'streaming.read.snapshot.delay': not yet as old as the read waits for, as
                // DataTableStreamScan#shouldDelaySnapshot; the later snapshots wait behind it
                break;
            }
            next++;
        }
        return next;
    }

    /** The splits of what {@code snapshot}, which names no offsets map, changed; see the class. */
    private List<Change> changesOf(Snapshot snapshot) {
        ScanMode mode;
        if (snapshot.commitKind() == Snapshot.CommitKind.OVERWRITE) {
            if (!table.supportStreamingReadOverwrite()) {
                LOG.info(
                        "Snapshot {} of {} overwrites (commit user {}); passed over, as Paimon's "
                                + "streaming read passes it over by default.",
                        snapshot.id(),
                        table.fullName(),
                        snapshot.commitUser());
                return Collections.emptyList();
            }
            if (!table.primaryKeys().isEmpty()) {
                throw overwriteNotFollowed(snapshot);
            }
            // 'streaming-read-append-overwrite': Paimon's overwrite changes of an append table
            // are the snapshot's new files, read as inserts; the replaced rows are not retracted
            mode = ScanMode.DELTA;
        } else if (changelogFiles) {
            if (snapshot.changelogManifestList() == null) {
                return Collections.emptyList();
            }
            mode = ScanMode.CHANGELOG;
        } else {
            if (snapshot.commitKind() != Snapshot.CommitKind.APPEND) {
                return Collections.emptyList();
            }
            mode = ScanMode.DELTA;
        }
        SnapshotReader reader = table.newSnapshotReader().withSnapshot(snapshot).withMode(mode);
        Map<PartitionBucket, List<DataSplit>> byBucket = new LinkedHashMap<>();
        for (Split split : reader.read().splits()) {
            DataSplit data = (DataSplit) split;
            if (planner.keeps(data.partition())) {
                byBucket.computeIfAbsent(
                                new PartitionBucket(data.partition(), data.bucket()),
                                pb -> new ArrayList<>())
                        .add(data);
            }
        }
        List<Change> splits = new ArrayList<>();
        for (Map.Entry<PartitionBucket, List<DataSplit>> changes : byBucket.entrySet()) {
            splits.add(new Change(changes.getKey(), snapshot.id(), changes.getValue()));
        }
        LOG.info(
                "Following snapshot {} of {}, committed by {} without lake-stream offsets: {} "
                        + "partition-buckets changed ({} files).",
                snapshot.id(),
                table.fullName(),
                snapshot.commitUser(),
                splits.size(),
                mode);
        return splits;
    }

    private NotFollowedException expired(long snapshotId, long earliest) {
        return new NotFollowedException(
                String.format(
                        "Snapshot %d of table %s expired before this unbounded read could follow "
                                + "it (the earliest snapshot is %d); its commit user is unknown. "
                                + "If another writer committed it without lake-stream offsets, "
                                + "its rows cannot be returned at their commit, and this read "
                                + "never skips a commit. Restart the query from the latest "
                                + "snapshot, and keep snapshots longer than reads lag "
                                + "('snapshot.time-retained', or a 'consumer-id').",
                        snapshotId, table.fullName(), earliest));
    }

    private NotFollowedException overwriteNotFollowed(Snapshot snapshot) {
        return new NotFollowedException(
                String.format(
                        "Snapshot %d of primary-key table %s is an overwrite committed by %s "
                                + "(an INSERT OVERWRITE, a truncate or a dropped partition), and "
                                + "the read sets '%s' = 'true': Paimon's streaming read returns "
                                + "deletes of the replaced rows and then the new rows, which "
                                + "equal Paimon's changes only where the read has returned "
                                + "exactly the stream records that the overwrite's parent "
                                + "snapshot committed (a running writer's uncommitted records "
                                + "come before them here, after them in Paimon), and this read "
                                + "never skips a commit. Restart the query from a snapshot after "
                                + "%d, or read without '%s' (overwrites are then passed over, "
                                + "as Paimon's streaming read passes them over).",
                        snapshot.id(),
                        table.fullName(),
                        snapshot.commitUser(),
                        CoreOptions.STREAMING_READ_OVERWRITE.key(),
                        snapshot.id(),
                        CoreOptions.STREAMING_READ_OVERWRITE.key()));
    }

    /** A commit of another writer that the read cannot follow exactly; a restart cannot either. */
    public static final class NotFollowedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        NotFollowedException(String message) {
            super(message);
        }
    }
}
