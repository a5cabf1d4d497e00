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

package io.lakestream.read.lookup;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.read.BoundedMergeReader;
import io.lakestream.read.BucketMerge;
import io.lakestream.read.BucketUnionReader;
import io.lakestream.read.ReaderStore;
import io.lakestream.read.plan.BucketRead;
import io.lakestream.read.plan.LogStop;
import io.lakestream.read.plan.UnionReadPlanner;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;

import org.apache.paimon.Snapshot;
import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.codegen.CodeGenUtils;
import org.apache.paimon.codegen.Projection;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.CloseableIterator;
import org.apache.paimon.utils.SnapshotManager;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The rows of a primary-key table in lake-stream mode as a lookup join sees them: what a bounded
 * union read returns (the latest snapshot's rows merged with the store's records past its offsets,
 * up to the store's end for read-uncommitted or the snapshot's own offsets for read-committed),
 * held in memory by primary key and kept up to date record by record.
 *
 * <p>{@link #refresh} keeps the cache equal to a bounded read planned at that moment:
 *
 * <ul>
 *   <li>Each store record is merged into its key's row once, with the table's merge engine ({@link
 *       BucketMerge#mergeInto}), from the offset the cache has read to the one a bounded read would
 *       stop at now. A partition-bucket the cache has not read yet starts at the offset recorded by
 *       the snapshot it last loaded (0 when that snapshot has none): its records since then are in
 *       no row of the cache, committed or not.
 *   <li>Snapshots committed by the lake-stream writer ({@code APPEND} with an offsets map) and
 *       compactions commit records the cache has merged, or will merge from the store: they change
 *       nothing in it. Any other snapshot (another writer's rows, an overwrite, a dropped
 *       partition, a schema change, a rollback, an expired gap) and any fence that covers records
 *       it may have merged make it load the table again, as a bounded read plans it now; so does a
 *       read whose stop lies below what the cache read (the writer's lease ran out: its tail is no
 *       longer readable), and any error of the incremental step.
 * </ul>
 *
 * <p>Memory is bounded by {@link LakeStreamOptions#LOOKUP_CACHE_MAX_ROWS}: past it the cache
 * empties itself and says so ({@link #overflowed}); the caller then looks up committed rows
 * instead, never a part of the table.
 */
@Experimental
public final class UnionLookupCache implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(UnionLookupCache.class);

    private final FileStoreTable table;
    private final StreamTable streamTable;
    private final UnionReadPlanner planner;
    private final ReaderStore store;
    private final boolean readCommitted;
    private final Duration leaseTimeout;
    @Nullable private LogStop logStop;
    private final BucketUnionReader unionReader;
    private final BoundedMergeReader storeReader;
    private final long maxRows;
    private final long maxBufferedChanges;
    private final InternalRowSerializer rowSerializer;
    private final Projection primaryKey;
    @Nullable private final Projection joinKey;

    private final Map<BinaryRow, BinaryRow> rowsByKey = new HashMap<>();
    @Nullable private final Map<BinaryRow, Set<BinaryRow>> keysByJoinKey;
    private final Rows rows = new Rows();

    /** Per partition-bucket, the next store offset to merge. */
    private final Map<PartitionBucket, Long> positions = new HashMap<>();

    /** The offsets of the snapshot last loaded: where a partition-bucket not read yet starts. */
    private StreamOffsets loadedOffsets = StreamOffsets.empty();

    private boolean loaded;
    @Nullable private Long seenSnapshotId;
    private StreamOffsets seenOffsets = StreamOffsets.empty();
    private long loadedSchemaId;
    private long knownFences;
    private boolean overflowed;
    private long loads;

    /**
     * @param table the table, as the lookup plans it
     * @param filter conjuncts on partition and primary-key columns at most (see {@code
     *     ReadFilter#beforeMerge}), or null
     * @param joinKeyFields the names of the columns a lookup gives, in this order
     * @param options the read's options: isolation, store timeouts, the bounds
     * @param storeFactory opens the stream store on first use; the cache closes it
     */
    public UnionLookupCache(
            FileStoreTable table,
            StreamTable streamTable,
            @Nullable Predicate filter,
            List<String> joinKeyFields,
            Map<String, String> options,
            Supplier<StreamStore> storeFactory) {
        if (table.primaryKeys().isEmpty()) {
            throw new IllegalArgumentException(
                    "Table " + table.fullName() + " has no primary key to look rows up by.");
        }
        Options conf = Options.fromMap(options);
        this.table = table;
        this.streamTable = streamTable;
        this.planner = new UnionReadPlanner(table, streamTable, filter);
        this.store = new ReaderStore(streamTable, options, storeFactory);
        this.maxRows = conf.get(LakeStreamOptions.LOOKUP_CACHE_MAX_ROWS);
        this.maxBufferedChanges = conf.get(LakeStreamOptions.READ_MERGE_BUFFER_MAX_RECORDS);
        this.unionReader = new BucketUnionReader(table, store, maxBufferedChanges);
        this.storeReader = new BoundedMergeReader(table, store, maxBufferedChanges);
        this.readCommitted =
                conf.get(LakeStreamOptions.READ_ISOLATION)
                        == LakeStreamOptions.ReadIsolation.READ_COMMITTED;
        this.leaseTimeout = conf.get(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT);
        this.rowSerializer = new InternalRowSerializer(table.rowType());
        this.primaryKey = CodeGenUtils.newProjection(table.rowType(), table.primaryKeys());
        boolean byPrimaryKey = joinKeyFields.equals(table.primaryKeys());
        this.joinKey =
                byPrimaryKey ? null : CodeGenUtils.newProjection(table.rowType(), joinKeyFields);
        this.keysByJoinKey = byPrimaryKey ? null : new HashMap<>();
    }

    /**
     * Brings the cache up to what a bounded read planned now returns: merges the store records
     * written since the last refresh, or loads the table again where the snapshots or fences
     * committed since then change more than the records merged (see the class).
     */
    public void refresh() {
        if (overflowed) {
            return;
        }
        try {
            if (!loaded) {
                load();
                return;
            }
            store.log().refreshFences();
            String reason = reloadReason();
            if (reason != null) {
                LOG.info("Loading the lookup cache of {} again: {}.", table.fullName(), reason);
                load();
                return;
            }
            try {
                if (!mergeNewRecords()) {
                    LOG.info(
                            "Loading the lookup cache of {} again: records it merged are no "
                                    + "longer readable (the writer's lease ran out).",
                            table.fullName());
                    load();
                }
            } catch (TooManyRows e) {
                throw e;
            } catch (RuntimeException e) {
                LOG.warn(
                        "Loading the lookup cache of {} again after an error of its incremental "
                                + "refresh.",
                        table.fullName(),
                        e);
                load();
            }
        } catch (TooManyRows e) {
            overflow();
        }
    }

    /** The rows whose join-key columns equal {@code key}: whole rows of the table. */
    public List<InternalRow> get(BinaryRow key) {
        if (keysByJoinKey == null) {
            BinaryRow row = rowsByKey.get(key);
            return row == null ? Collections.emptyList() : Collections.singletonList(row);
        }
        Set<BinaryRow> keys = keysByJoinKey.get(key);
        if (keys == null) {
            return Collections.emptyList();
        }
        List<InternalRow> result = new ArrayList<>(keys.size());
        for (BinaryRow pk : keys) {
            result.add(rowsByKey.get(pk));
        }
        return result;
    }

    /** Whether the table outgrew {@link LakeStreamOptions#LOOKUP_CACHE_MAX_ROWS}: see the class. */
    public boolean overflowed() {
        return overflowed;
    }

    /** The rows held. */
    public long size() {
        return rowsByKey.size();
    }

    /** How many times the cache loaded the table, the first load included. */
    public long loads() {
        return loads;
    }

    /** The latest snapshot whose committed rows the cache holds, or null for none. */
    @Nullable
    public Long snapshotId() {
        return seenSnapshotId;
    }

    @Override
    public void close() {
        store.close();
    }

    /** Where a bounded read planned now stops: the isolation level; opens the store. */
    private LogStop logStop() {
        if (logStop == null) {
            logStop =
                    readCommitted
                            ? LogStop.snapshotOffsets()
                            : LogStop.storeEnds(store.store(), streamTable, leaseTimeout);
        }
        return logStop;
    }

    /** Empties the cache and loads what a bounded read planned now returns. */
    private void load() {
        clear();
        knownFences = store.log().fences().widenings();
        UnionReadPlanner.Plan plan = planner.plan(store.store(), logStop());
        Map<PartitionBucket, Long> starts = new HashMap<>();
        for (BucketRead bucket : plan.buckets()) {
            try (CloseableIterator<InternalRow> it = unionReader.read(bucket)) {
                while (it.hasNext()) {
                    InternalRow row = it.next();
                    rows.put(primaryKey.apply(row).copy(), row);
                }
            } catch (TooManyRows e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(
                        String.format(
                                "Cannot load the lookup cache of table %s from %s: %s",
                                table.fullName(), bucket, e.getMessage()),
                        e);
            }
            starts.put(bucket.partitionBucket(), bucket.logStartOffset());
            positions.put(
                    bucket.partitionBucket(),
                    Math.max(bucket.logStartOffset(), bucket.logStopOffset()));
        }
        loadedOffsets = StreamOffsets.of(starts);
        seenSnapshotId = plan.snapshotId();
        Snapshot snapshot =
                seenSnapshotId == null ? null : table.snapshotManager().snapshot(seenSnapshotId);
        seenOffsets = snapshot == null ? StreamOffsets.empty() : offsetsOf(snapshot);
        loadedSchemaId = snapshot == null ? table.schema().id() : snapshot.schemaId();
        loaded = true;
        loads++;
        LOG.info(
                "Loaded the lookup cache of {}: {} rows, snapshot {} and the store's records "
                        + "past it.",
                table.fullName(),
                rowsByKey.size(),
                seenSnapshotId);
    }

    /**
     * Why the snapshots and fences since the last refresh change more than the store records the
     * cache merges, or null when they do not.
     */
    @Nullable
    private String reloadReason() {
        if (store.log().fences().widenings() != knownFences) {
            return "a fence was recorded, which may cover records it merged";
        }
        SnapshotManager snapshots = table.snapshotManager();
        Long latest = snapshots.latestSnapshotId();
        if (Objects.equals(latest, seenSnapshotId)) {
            return null;
        }
        long from = seenSnapshotId == null ? 0 : seenSnapshotId;
        if (latest == null || latest < from) {
            return "the table was rolled back to snapshot " + latest;
        }
        for (long id = from + 1; id <= latest; id++) {
            if (!snapshots.snapshotExists(id)) {
                return "snapshot " + id + " expired before the cache looked at it";
            }
            Snapshot snapshot = snapshots.snapshot(id);
            if (snapshot.schemaId() != loadedSchemaId) {
                return "snapshot " + id + " has another schema";
            }
            if (!recordsOnly(snapshot)) {
                return String.format(
                        "snapshot %d is a %s commit of %s",
                        id, snapshot.commitKind(), snapshot.commitUser());
            }
            seenSnapshotId = id;
            seenOffsets = offsetsOf(snapshot);
        }
        return null;
    }

    private StreamOffsets offsetsOf(Snapshot snapshot) {
        return SnapshotOffsets.ofSnapshot(table, snapshot).orElse(StreamOffsets.empty());
    }

    /**
     * Whether {@code snapshot} commits nothing but store records (the lake-stream writer's {@code
     * APPEND} with its offsets map) or the same rows compacted.
     */
    private static boolean recordsOnly(Snapshot snapshot) {
        switch (snapshot.commitKind()) {
            case COMPACT:
            case ANALYZE:
                return true;
            case APPEND:
                return SnapshotOffsets.ownOffsetsFile(snapshot).isPresent();
            default:
                return false;
        }
    }

    /**
     * Merges each partition-bucket's records from the cache's position to where a bounded read
     * planned now stops. False, merging nothing, when a stop lies below a position.
     */
    private boolean mergeNewRecords() {
        StreamOffsets committed = seenOffsets;
        Set<PartitionBucket> partitionBuckets = new LinkedHashSet<>(positions.keySet());
        for (PartitionBucket pb : committed.asMap().keySet()) {
            if (planner.keeps(pb.partition())) {
                partitionBuckets.add(pb);
            }
        }
        partitionBuckets.addAll(
                planner.partitionBuckets(store.store().listPartitions(streamTable)));
        Map<PartitionBucket, Long> stops = logStop().stopOffsets(committed, partitionBuckets);
        Map<PartitionBucket, long[]> ranges = new HashMap<>();
        for (PartitionBucket pb : partitionBuckets) {
            long position = positions.getOrDefault(pb, loadedOffsets.offsetOr(pb, 0L));
            long stop = stops.getOrDefault(pb, committed.offsetOr(pb, 0L));
            if (stop < position) {
                return false;
            }
            ranges.put(pb, new long[] {position, stop});
        }
        for (Map.Entry<PartitionBucket, long[]> range : ranges.entrySet()) {
            long[] r = range.getValue();
            if (r[1] > r[0]) {
                merge(range.getKey(), r[0], r[1]);
            }
            positions.put(range.getKey(), r[1]);
        }
        return true;
    }

    /** Merges one partition-bucket's records into the cache, a bounded batch at a time. */
    private void merge(PartitionBucket pb, long start, long stop) {
        BucketMerge merge = BucketMerge.of(table);
        storeReader.forEachRecord(
                pb,
                start,
                stop,
                record -> {
                    merge.addChange(record.row());
                    if (merge.bufferedChanges() >= maxBufferedChanges) {
                        merge.mergeInto(rows);
                    }
                });
        merge.mergeInto(rows);
    }

    private void overflow() {
        clear();
        overflowed = true;
        LOG.warn(
                "The lookup cache of table {} would hold more than {} rows, the limit of option "
                        + "'{}': lookups of it read its committed rows, as Paimon's lookup does. "
                        + "Raise the option to look up rows within a second of their write.",
                table.fullName(),
                maxRows,
                LakeStreamOptions.LOOKUP_CACHE_MAX_ROWS.key());
    }

    private void clear() {
        rowsByKey.clear();
        if (keysByJoinKey != null) {
            keysByJoinKey.clear();
        }
        positions.clear();
        loadedOffsets = StreamOffsets.empty();
        loaded = false;
    }

    /** The cache's rows as the merge updates them, with the join-key index beside them. */
    private final class Rows implements BucketMerge.KeyedRows {

        @Nullable
        @Override
        public InternalRow get(BinaryRow key) {
            return rowsByKey.get(key);
        }

        @Override
        public void put(BinaryRow key, InternalRow row) {
            BinaryRow copy = rowSerializer.toBinaryRow(row).copy();
            BinaryRow old = rowsByKey.put(key, copy);
            if (old == null && rowsByKey.size() > maxRows) {
                throw new TooManyRows();
            }
            if (keysByJoinKey != null) {
                if (old != null) {
                    unindex(key, old);
                }
                keysByJoinKey
                        .computeIfAbsent(joinKey.apply(copy).copy(), k -> new HashSet<>(2))
                        .add(key);
            }
        }

        @Override
        public void remove(BinaryRow key) {
            BinaryRow old = rowsByKey.remove(key);
            if (old != null && keysByJoinKey != null) {
                unindex(key, old);
            }
        }

        private void unindex(BinaryRow key, BinaryRow row) {
            BinaryRow join = joinKey.apply(row);
            Set<BinaryRow> keys = keysByJoinKey.get(join);
            if (keys != null) {
                keys.remove(key);
                if (keys.isEmpty()) {
                    keysByJoinKey.remove(join);
                }
            }
        }
    }

    /** The cache reached its bound. */
    private static final class TooManyRows extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooManyRows() {
            super(null, null, false, false);
        }
    }
}
