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
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.manifest.PartitionEntry;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.FileNotFoundException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Drops the stream partitions of partitions that the table no longer has, and takes their offsets
 * out of the offsets map of the snapshot being committed ("Partitions" in {@code
 * docs/consistency.md}). Paimon's own partition list of the latest snapshot is the truth, whoever
 * dropped or expired a partition: this project's catalog, Paimon's catalog, a procedure, Spark, or
 * the partition expiry of Paimon's committer.
 *
 * <p>The committer calls {@link #beforeCommit} with the parent map right before it advances the map
 * by a commit's sealed segments. Dropping a stream partition and removing its offsets go together:
 * a partition created again later starts its logs at offset 0, and a map that still held the old
 * offsets would make readers skip the new records and the committer refuse them as going back.
 */
public final class StreamPartitionDrops implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamPartitionDrops.class);

    /** The longest time between two checks; listing a snapshot's partitions reads its manifests. */
    static final long MAX_CHECK_INTERVAL_MILLIS = 60_000L;

    /** Past this many new snapshots, a commit checks without looking at them one by one. */
    private static final int MAX_SNAPSHOTS_LOOKED_AT = 100;

    /** What becomes of a partition that the table's latest snapshot does not have. */
    enum Action {
        /** The stream partition is kept, and its offsets with it. */
        KEEP,
        /** The stream partition is gone or started again: only its offsets are removed. */
        FORGET_OFFSETS,
        /** The stream partition is dropped and its offsets are removed. */
        DROP
    }

    private final FileStoreTable table;
    private final StreamTable streamTable;
    private final Supplier<StreamStore> storeFactory;
    private final long delayMillis;
    private final LongSupplier clock;

    /** When this committer first found each partition missing from the table. */
    private final Map<BinaryRow, Long> missingSince = new HashMap<>();

    private long lastCheckMillis;
    private boolean checkedOnce;

    /** The latest snapshot at the last check. */
    private long checkedSnapshotId;

    @Nullable private StreamStore store;

    /**
     * @param storeFactory opens the store at the first check; {@link #close} closes it
     * @param delay how long a partition must have been missing, from the first check that found it
     *     missing, before its stream partition is dropped
     */
    public StreamPartitionDrops(
            FileStoreTable table,
            StreamTable streamTable,
            Supplier<StreamStore> storeFactory,
            Duration delay,
            LongSupplier clock) {
        this.table = table;
        this.streamTable = streamTable;
        this.storeFactory = storeFactory;
        this.delayMillis = delay.toMillis();
        this.clock = clock;
    }

    /**
     * The rule for one partition that the table's latest snapshot does not have.
     *
     * @param inStore whether the store has the partition
     * @param written whether the commit under way seals records of it (it comes back)
     * @param ends the store's end offset of each of its buckets
     * @param delayPassed whether it has been missing for the drop delay
     */
    static Action decide(
            BinaryRow partition,
            int numBuckets,
            boolean inStore,
            boolean written,
            StreamOffsets parent,
            Map<PartitionBucket, Long> ends,
            boolean delayPassed) {
        if (!inStore) {
            // dropped already (by a commit that then failed, or by another party): nothing of
            // it is left to read from those offsets
            return Action.FORGET_OFFSETS;
        }
        boolean covered = true;
        boolean committed = false;
        for (int bucket = 0; bucket < numBuckets; bucket++) {
            PartitionBucket pb = new PartitionBucket(partition, bucket);
            committed |= parent.contains(pb);
            long tiered = parent.offsetOr(pb, 0L);
            long end = ends.getOrDefault(pb, 0L);
            if (end < tiered) {
                // offsets of one log never go back: the store holds a partition created again
                // after a drop whose map was never committed, and its records are all new
                return Action.FORGET_OFFSETS;
            }
            covered &= end == tiered;
        }
        if (written || !covered || !committed || !delayPassed) {
            // records that no snapshot holds yet, a partition that a writer has just created and
            // not written yet, or readers that may still be behind
            return Action.KEEP;
        }
        return Action.DROP;
    }

    /**
     * Drops the stream partitions that may go and returns {@code parent} without the offsets of the
     * partitions dropped or found gone. Checks at the first commit, at every commit after a
     * snapshot that overwrote data (a drop or expiry of partitions is one), and otherwise at most
     * once per {@link #MAX_CHECK_INTERVAL_MILLIS}; in between it returns {@code parent}. A failure
     * to drop keeps the partition and its offsets, for the next check.
     *
     * @param sealed the segments the commit under way seals
     */
    public StreamOffsets beforeCommit(StreamOffsets parent, StreamOffsets sealed) {
        if (!streamTable.spec().isPartitioned()) {
            return parent;
        }
        long now = clock.getAsLong();
        Long latest = table.snapshotManager().latestSnapshotId();
        long latestId = latest == null ? 0L : latest;
        if (checkedOnce
                && now - lastCheckMillis < MAX_CHECK_INTERVAL_MILLIS
                && !overwroteSince(checkedSnapshotId, latestId)) {
            return parent;
        }
        checkedOnce = true;
        lastCheckMillis = now;
        checkedSnapshotId = latestId;
        try {
            return reconcile(parent, sealed, now);
        } catch (RuntimeException e) {
            // the commit goes on with the offsets as they were; the next check tries again
            LOG.warn(
                    "Cannot drop the stream partitions of partitions that table {} no longer has.",
                    table.fullName(),
                    e);
            return parent;
        }
    }

    /**
     * Whether a snapshot after {@code fromId}, up to {@code toId}, overwrote data: every drop and
     * expiry of a partition is such a snapshot, so a drop is followed at the next commit rather
     * than at the next periodic check. Only the snapshot files are read, a few per commit.
     */
    private boolean overwroteSince(long fromId, long toId) {
        if (toId - fromId > MAX_SNAPSHOTS_LOOKED_AT) {
            return true;
        }
        SnapshotManager snapshots = table.snapshotManager();
        for (long id = fromId + 1; id <= toId; id++) {
            try {
                if (snapshots.tryGetSnapshot(id).commitKind() == Snapshot.CommitKind.OVERWRITE) {
                    return true;
                }
            } catch (FileNotFoundException e) {
                // expired already: it may have been a drop too
                return true;
            }
        }
        return false;
    }

    private StreamOffsets reconcile(StreamOffsets parent, StreamOffsets sealed, long now) {
        Set<BinaryRow> live = livePartitions();
        Set<BinaryRow> inStore = new HashSet<>(store().listPartitions(streamTable));
        Set<BinaryRow> gone = new LinkedHashSet<>();
        for (PartitionBucket pb : parent.asMap().keySet()) {
            if (!live.contains(pb.partition())) {
                gone.add(pb.partition());
            }
        }
        for (BinaryRow partition : inStore) {
            if (!live.contains(partition)) {
                gone.add(partition);
            }
        }
        // a partition that is back starts its delay again when it goes again
        missingSince.keySet().retainAll(gone);
        if (gone.isEmpty()) {
            return parent;
        }
        Set<BinaryRow> written = new HashSet<>();
        for (PartitionBucket pb : sealed.asMap().keySet()) {
            written.add(pb.partition());
        }
        int numBuckets = streamTable.spec().numBuckets();
        List<PartitionBucket> stored = new ArrayList<>();
        for (BinaryRow partition : gone) {
            if (inStore.contains(partition)) {
                for (int bucket = 0; bucket < numBuckets; bucket++) {
                    stored.add(new PartitionBucket(partition, bucket));
                }
            }
        }
        Map<PartitionBucket, Long> ends =
                stored.isEmpty()
                        ? Collections.emptyMap()
                        : store().listOffsets(streamTable, stored, OffsetPosition.LATEST);
        Set<BinaryRow> removed = new HashSet<>();
        for (BinaryRow partition : gone) {
            long since = missingSince.computeIfAbsent(partition, p -> now);
            Action action =
                    decide(
                            partition,
                            numBuckets,
                            inStore.contains(partition),
                            written.contains(partition),
                            parent,
                            ends,
                            now - since >= delayMillis);
            if (action == Action.DROP && !drop(partition)) {
                continue;
            }
            if (action != Action.KEEP) {
                removed.add(partition);
                missingSince.remove(partition);
            }
        }
        if (removed.isEmpty()) {
            return parent;
        }
        Map<PartitionBucket, Long> kept = new HashMap<>(parent.asMap());
        kept.keySet().removeIf(pb -> removed.contains(pb.partition()));
        LOG.info(
                "Table {} no longer has {} partitions of its stream table; the next snapshot's "
                        + "offsets map leaves them out.",
                table.fullName(),
                removed.size());
        return StreamOffsets.of(kept);
    }

    private boolean drop(BinaryRow partition) {
        try {
            store().dropPartition(streamTable, partition);
            return true;
        } catch (RuntimeException e) {
            LOG.warn(
                    "Cannot drop a stream partition of table {} that the table no longer has; "
                            + "it is kept until the next check.",
                    table.fullName(),
                    e);
            return false;
        }
    }

    /** The partitions that hold data in the table's latest snapshot. */
    private Set<BinaryRow> livePartitions() {
        Long latest = table.snapshotManager().latestSnapshotId();
        Set<BinaryRow> live = new HashSet<>();
        if (latest == null) {
            return live;
        }
        for (PartitionEntry entry :
                table.newSnapshotReader().withSnapshot(latest).partitionEntries()) {
            live.add(entry.partition());
        }
        return live;
    }

    private StreamStore store() {
        if (store == null) {
            store = storeFactory.get();
        }
        return store;
    }

    /** Closes the store opened by the factory, if any. */
    @Override
    public void close() {
        if (store != null) {
            store.close();
            store = null;
        }
    }
}
