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
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.AheadCall;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.partition.PartitionPredicate;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plans a union read, the one planner of every engine (Flink's source, the embedded scan, Spark):
 * picks where it starts ({@link ReadStart}: the Paimon snapshot, its state or only the changes
 * after it, and the log offsets), plans the snapshot's data splits with Paimon's own scan (filter
 * and partition pruning included), and makes one {@link BucketRead} per partition-bucket of the
 * snapshot, of its offsets map and of the stream store. A partition-bucket's log always starts at
 * the offset the snapshot recorded for it, whether or not the filter left lake splits for it: it
 * never starts from the earliest offset because a predicate pruned its lake part. See "Readers" in
 * {@code docs/consistency.md}.
 */
public final class UnionReadPlanner {

    private static final Logger LOG = LoggerFactory.getLogger(UnionReadPlanner.class);

    /** What the planner found: the snapshot and what to read of each partition-bucket. */
    public static final class Plan {
        @Nullable private final Long snapshotId;
        private final List<BucketRead> buckets;
        private final long changesAfter;

        Plan(@Nullable Long snapshotId, List<BucketRead> buckets, long changesAfter) {
            this.snapshotId = snapshotId;
            this.buckets = buckets;
            this.changesAfter = changesAfter;
        }

        /** The snapshot read, or null when the table has none (or the read starts after all). */
        @Nullable
        public Long snapshotId() {
            return snapshotId;
        }

        /** A read per partition-bucket. */
        public List<BucketRead> buckets() {
            return buckets;
        }

        /** The last snapshot whose changes the read does not return as changes. */
        public long changesAfter() {
            return changesAfter;
        }
    }

    private final FileStoreTable table;
    private final StreamTable streamTable;
    @Nullable private final Predicate filter;
    @Nullable private final PartitionPredicate partitionFilter;
    private final boolean bounded;

    /** A planner of a bounded read of {@code table}, filtered by {@code filter} when not null. */
    public UnionReadPlanner(
            FileStoreTable table, StreamTable streamTable, @Nullable Predicate filter) {
        this(table, streamTable, filter, true);
    }

    /**
     * @param bounded whether the read ends; it decides how Paimon's scan options pick the start
     *     (see {@link ReadStart})
     */
    public UnionReadPlanner(
            FileStoreTable table,
            StreamTable streamTable,
            @Nullable Predicate filter,
            boolean bounded) {
        this.table = table;
        this.bounded = bounded;
        this.streamTable = streamTable;
        this.filter = filter;
        Predicate onPartitions =
                filter == null || table.partitionKeys().isEmpty() ? null : partitionPart(filter);
        this.partitionFilter =
                onPartitions == null
                        ? null
                        : PartitionPredicate.fromPredicate(
                                table.schema().logicalPartitionType(), onPartitions);
    }

    /**
     * The conjuncts of {@code filter} on partition columns only, on the partition row's fields, or
     * null.
     */
    @Nullable
    private Predicate partitionPart(Predicate filter) {
        return PredicateBuilder.splitAndByPartition(
                        filter,
                        PredicateBuilder.fieldIdxToPartitionIdx(
                                table.rowType(), table.partitionKeys()))
                .getLeft()
                .stream()
                .reduce(PredicateBuilder::and)
                .orElse(null);
    }

    public StreamTable streamTable() {
        return streamTable;
    }

    public FileStoreTable table() {
        return table;
    }

    /** Whether the read keeps the partition. */
    public boolean keeps(BinaryRow partition) {
        return partitionFilter == null || partitionFilter.test(partition);
    }

    /**
     * Plans the read.
     *
     * @param store the stream store, or null for a read of the lake alone
     * @param logStop per partition-bucket: the log's stop offset for a bounded read, given the
     *     snapshot's offsets and the store; null for an unbounded read
     */
    public Plan plan(@Nullable StreamStore store, @Nullable LogStop logStop) {
        return plan(store, logStop, ReadStart.resolve(table, bounded));
    }

    /**
     * Plans the read from {@code readStart} instead of where the table's scan options start it: the
     * start of a read that resumes a Paimon consumer ({@link ReadStart#consumerResume}).
     */
    public Plan plan(@Nullable StreamStore store, @Nullable LogStop logStop, ReadStart readStart) {
        Snapshot snapshot = readStart.snapshot();
        // the store's part is decided while Paimon plans: both wait on I/O most of the time. The
        // stop is decided first (whether a writer is live): the store's partitions are listed only
        // when a log may read past the snapshot's offsets (Fluss's coordinator reads each
        // partition from ZooKeeper, about 0.3-0.5 s at 1,000)
        StreamOffsets offsets = readStart.logOffsets();
        AheadCall<StorePart> storePart =
                store == null
                        ? null
                        : AheadCall.start(
                                "lake-stream-plan-" + table.fullName(),
                                () -> decideStorePart(store, logStop, offsets));
        Map<PartitionBucket, List<DataSplit>> lake = new LinkedHashMap<>();
        if (snapshot != null && readStart.readsState()) {
            // every file the snapshot commits, level 0 included: the store part starts above
            // all of them
            for (DataSplit data :
                    LakePartPlanner.plan(
                            table,
                            snapshot,
                            readStart.scanOptions(),
                            readStart.filesCreatedSince(),
                            filter)) {
                if (store != null) {
                    // a read of the lake alone merges nothing with the store's buckets
                    BucketLayoutCheck.check(streamTable, snapshot.id(), data);
                }
                lake.computeIfAbsent(
                                new PartitionBucket(data.partition(), data.bucket()),
                                pb -> new ArrayList<>())
                        .add(data);
            }
        }
        Set<PartitionBucket> all = new LinkedHashSet<>(lake.keySet());
        for (PartitionBucket pb : offsets.asMap().keySet()) {
            if (keeps(pb.partition())) {
                all.add(pb);
            }
        }
        LogStop decided = logStop;
        Map<PartitionBucket, Long> stops = null;
        if (store != null) {
            StorePart part = storePart.join();
            all.addAll(partitionBuckets(part.partitions));
            decided = part.stop;
            stops = part.stops;
        }
        if (decided != null) {
            stops = stopsOf(decided, offsets, all, stops);
        }
        List<BucketRead> splits = new ArrayList<>();
        for (PartitionBucket pb : all) {
            long start = offsets.offsetOr(pb, 0L);
            long stop = stops == null ? StreamReader.NO_STOP_OFFSET : stops.getOrDefault(pb, start);
            splits.add(
                    new BucketRead(
                            pb, lake.getOrDefault(pb, Collections.emptyList()), start, stop));
        }
        LOG.info(
                "Planned {} partition-buckets of {} from snapshot {} ({} with lake data).",
                splits.size(),
                table.fullName(),
                snapshot == null ? "none" : snapshot.id(),
                lake.size());
        return new Plan(snapshot == null ? null : snapshot.id(), splits, readStart.changesAfter());
    }

    /**
     * The store's part of one plan, decided on the planner's ahead thread while Paimon's part is
     * planned: whether a writer is live (the stop), the store's partitions when a log may read past
     * the snapshot, and then the stop offsets of every partition-bucket known before Paimon's plan
     * (the snapshot's and the store's), so that a read beside a live writer lists the store's ends
     * off the planning thread too.
     */
    private StorePart decideStorePart(
            StreamStore store, @Nullable LogStop logStop, StreamOffsets offsets) {
        LogStop stop = logStop == null ? null : logStop.atPlanning();
        if (stop == null || stop.beyondSnapshot()) {
            List<BinaryRow> partitions = store.listPartitions(streamTable);
            Map<PartitionBucket, Long> stops = null;
            if (stop != null) {
                Set<PartitionBucket> known = new LinkedHashSet<>(partitionBuckets(partitions));
                for (PartitionBucket pb : offsets.asMap().keySet()) {
                    if (keeps(pb.partition())) {
                        known.add(pb);
                    }
                }
                stops = stop.stopOffsets(offsets, known);
            }
            return new StorePart(stop, partitions, stops);
        }
        return new StorePart(stop, Collections.emptyList(), null);
    }

    /**
     * The stop offsets of {@code all}: those listed ahead in {@code ahead} (null when none were),
     * and {@code stop}'s offsets of the rest, asked now (a partition-bucket only Paimon's plan
     * knows: files of a writer that never wrote the store).
     */
    private static Map<PartitionBucket, Long> stopsOf(
            LogStop stop,
            StreamOffsets offsets,
            Set<PartitionBucket> all,
            @Nullable Map<PartitionBucket, Long> ahead) {
        if (ahead == null) {
            return stop.stopOffsets(offsets, all);
        }
        List<PartitionBucket> rest = new ArrayList<>();
        for (PartitionBucket pb : all) {
            if (!ahead.containsKey(pb)) {
                rest.add(pb);
            }
        }
        if (rest.isEmpty()) {
            return ahead;
        }
        Map<PartitionBucket, Long> stops = new HashMap<>(ahead);
        stops.putAll(stop.stopOffsets(offsets, rest));
        return stops;
    }

    /** The store's part of one plan: where its logs stop, and its partitions where they count. */
    private static final class StorePart {
        @Nullable final LogStop stop;
        final List<BinaryRow> partitions;

        /** The stop offsets listed ahead, or null when the stop lists none (or there is none). */
        @Nullable final Map<PartitionBucket, Long> stops;

        private StorePart(
                @Nullable LogStop stop,
                List<BinaryRow> partitions,
                @Nullable Map<PartitionBucket, Long> stops) {
            this.stop = stop;
            this.partitions = partitions;
            this.stops = stops;
        }
    }

    /**
     * The lake part of snapshot {@code snapshotId} per partition-bucket, planned as {@link #plan}
     * plans the lake part of its start snapshot (every level, the filter's pruning): a read that
     * recorded which snapshot it started from plans the same splits again.
     */
    public Map<PartitionBucket, List<DataSplit>> lakeSplitsOf(long snapshotId) {
        Snapshot snapshot = table.snapshotManager().snapshot(snapshotId);
        Map<PartitionBucket, List<DataSplit>> lake = new LinkedHashMap<>();
        for (DataSplit data :
                LakePartPlanner.plan(
                        table,
                        snapshot,
                        ReadStart.snapshotScanOptions(snapshotId),
                        ReadStart.filesCreatedSince(table),
                        filter)) {
            BucketLayoutCheck.check(streamTable, snapshotId, data);
            lake.computeIfAbsent(
                            new PartitionBucket(data.partition(), data.bucket()),
                            pb -> new ArrayList<>())
                    .add(data);
        }
        return lake;
    }

    /** Every bucket of each of {@code partitions} that the read keeps. */
    public List<PartitionBucket> partitionBuckets(Collection<BinaryRow> partitions) {
        List<PartitionBucket> result = new ArrayList<>();
        for (BinaryRow partition : partitions) {
            if (keeps(partition)) {
                for (int bucket = 0; bucket < streamTable.spec().numBuckets(); bucket++) {
                    result.add(new PartitionBucket(partition, bucket));
                }
            }
        }
        return result;
    }
}
