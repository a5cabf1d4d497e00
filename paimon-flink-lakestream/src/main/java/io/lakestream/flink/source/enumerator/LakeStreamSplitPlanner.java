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

package io.lakestream.flink.source.enumerator;

import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.protocol.WriterLeases;
import io.lakestream.store.OffsetPosition;
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

import org.apache.flink.annotation.Internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plans the splits of a read: picks where it starts ({@link ReadStart}: the Paimon snapshot, its
 * state or only the changes after it, and the log offsets), plans the snapshot's data splits with
 * Paimon's own scan (filter and partition pruning included), and makes one {@link LakeStreamSplit}
 * per partition-bucket of the snapshot, of its offsets map and of the stream store. A
 * partition-bucket's log always starts at the offset the snapshot recorded for it, whether or not
 * the filter left lake splits for it: it never starts from the earliest offset because a predicate
 * pruned its lake part.
 */
@Internal
final class LakeStreamSplitPlanner {

    private static final Logger LOG = LoggerFactory.getLogger(LakeStreamSplitPlanner.class);

    /** What the planner found: the snapshot and a split per partition-bucket. */
    static final class Plan {
        @Nullable final Long snapshotId;
        final List<LakeStreamSplit> splits;

        /** The last snapshot whose changes the read does not return as changes. */
        final long changesAfter;

        Plan(@Nullable Long snapshotId, List<LakeStreamSplit> splits, long changesAfter) {
            this.snapshotId = snapshotId;
            this.splits = splits;
            this.changesAfter = changesAfter;
        }
    }

    private final FileStoreTable table;
    private final StreamTable streamTable;
    @Nullable private final Predicate filter;
    @Nullable private final PartitionPredicate partitionFilter;
    private final boolean bounded;

    LakeStreamSplitPlanner(
            FileStoreTable table, StreamTable streamTable, @Nullable Predicate filter) {
        this(table, streamTable, filter, true);
    }

    /**
     * @param bounded whether the read ends; it decides how Paimon's scan options pick the start
     *     (see {@link ReadStart})
     */
    LakeStreamSplitPlanner(
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

    StreamTable streamTable() {
        return streamTable;
    }

    FileStoreTable table() {
        return table;
    }

    /** Whether the read keeps the partition. */
    boolean keeps(BinaryRow partition) {
        return partitionFilter == null || partitionFilter.test(partition);
    }

    /**
     * Plans the read.
     *
     * @param store the stream store, or null for a read of the lake alone
     * @param logStop per partition-bucket: the log's stop offset for a bounded read, given the
     *     snapshot's offsets and the store; null for an unbounded read
     */
    Plan plan(@Nullable StreamStore store, @Nullable LogStop logStop) {
        ReadStart readStart = ReadStart.resolve(table, bounded);
        Snapshot snapshot = readStart.snapshot();
        Map<PartitionBucket, List<DataSplit>> lake = new LinkedHashMap<>();
        StreamOffsets offsets = readStart.logOffsets();
        if (snapshot != null && readStart.readsState()) {
            // every file the snapshot commits, level 0 included: the store part starts above
            // all of them
            for (DataSplit data :
                    LakePartPlanner.plan(table, snapshot, readStart.scanOptions(), filter)) {
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
        if (store != null) {
            all.addAll(partitionBuckets(store.listPartitions(streamTable)));
        }
        Map<PartitionBucket, Long> stops =
                logStop == null ? null : logStop.stopOffsets(offsets, all);
        List<LakeStreamSplit> splits = new ArrayList<>();
        for (PartitionBucket pb : all) {
            long start = offsets.offsetOr(pb, 0L);
            long stop = stops == null ? StreamReader.NO_STOP_OFFSET : stops.getOrDefault(pb, start);
            splits.add(
                    LakeStreamSplit.of(
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

    /** Every bucket of each of {@code partitions} that the read keeps. */
    List<PartitionBucket> partitionBuckets(Collection<BinaryRow> partitions) {
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

    /** Where the log of each partition-bucket of a bounded read stops. */
    interface LogStop {
        Map<PartitionBucket, Long> stopOffsets(
                StreamOffsets snapshotOffsets, Collection<PartitionBucket> partitionBuckets);

        /**
         * Read-uncommitted: up to the records the store holds at planning while a sink job holds
         * the table's writer lease; with no live lease, up to the snapshot's own offsets. Records
         * above the latest snapshot's offsets that no running job writes are no job's uncommitted
         * tail: a stopped job left them (the next writer fences them) or a rollback removed the
         * snapshots that held them. Paimon's read holds neither, and neither does this one.
         */
        static LogStop storeEnds(StreamStore store, StreamTable table, Duration leaseTimeout) {
            return (offsets, pbs) -> {
                if (!WriterLeases.isLive(store, table, leaseTimeout)) {
                    return offsets.asMap();
                }
                return store.listOffsets(table, pbs, OffsetPosition.LATEST);
            };
        }

        /** Up to the snapshot's own offsets: nothing beyond what it committed. */
        static LogStop snapshotOffsets() {
            return (offsets, pbs) -> offsets.asMap();
        }
    }
}
