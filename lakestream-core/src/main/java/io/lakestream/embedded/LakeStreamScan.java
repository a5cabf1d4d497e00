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

package io.lakestream.embedded;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.read.BoundedMergeReader;
import io.lakestream.read.BucketMerge;
import io.lakestream.read.ReaderStore;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.RowKind;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A bounded union read of a lake-stream table, the Flink source's bounded read without Flink: the
 * committed files of the table's latest snapshot, plus per partition-bucket the store's records
 * from that snapshot's offset to the store's end at planning (PIP-46's {@code AcquireReadView} and
 * {@code CreateQueryReaders}), merged with the table's merge engine for primary-key tables ({@link
 * BucketMerge}, the source's own merge) and appended for append tables; fenced records are skipped.
 * Returns what Paimon's own read returns once those records are committed.
 *
 * <p>With {@code 'lake-stream.read.isolation' = 'read-committed'} it reads the snapshot alone.
 */
@Experimental
public final class LakeStreamScan {

    private final LakeStreamTable table;

    LakeStreamScan(LakeStreamTable table) {
        this.table = table;
    }

    /**
     * Plans a read: the table's latest snapshot, its file splits and, per partition-bucket, the
     * store offsets to read from (the snapshot's) and up to (the store's end now).
     */
    public Plan plan() {
        FileStoreTable paimon = table.paimonTable();
        Snapshot snapshot = paimon.snapshotManager().latestSnapshot();
        List<DataSplit> splits = new ArrayList<>();
        StreamOffsets tiered = StreamOffsets.empty();
        FileStoreTable pinned = paimon;
        if (snapshot != null) {
            pinned =
                    paimon.copy(
                            Collections.singletonMap(
                                    CoreOptions.SCAN_SNAPSHOT_ID.key(),
                                    String.valueOf(snapshot.id())));
            for (Split split : pinned.newReadBuilder().newScan().plan().splits()) {
                splits.add((DataSplit) split);
            }
            tiered = SnapshotOffsets.ofSnapshot(paimon, snapshot).orElse(StreamOffsets.empty());
        }
        Map<PartitionBucket, Long> starts = new LinkedHashMap<>();
        Map<PartitionBucket, Long> ends = new LinkedHashMap<>();
        boolean committedOnly =
                Options.fromMap(table.options()).get(LakeStreamOptions.READ_ISOLATION)
                        == LakeStreamOptions.ReadIsolation.READ_COMMITTED;
        if (!committedOnly) {
            StreamStore store = table.store();
            Set<PartitionBucket> pbs =
                    new LinkedHashSet<>(store.listPartitionBuckets(table.streamTable()));
            pbs.addAll(tiered.asMap().keySet());
            if (!pbs.isEmpty()) {
                Map<PartitionBucket, Long> latest =
                        store.listOffsets(table.streamTable(), pbs, OffsetPosition.LATEST);
                for (PartitionBucket pb : pbs) {
                    long start = tiered.offsetOr(pb, 0L);
                    long end = latest.getOrDefault(pb, start);
                    if (end > start) {
                        starts.put(pb, start);
                        ends.put(pb, end);
                    }
                }
            }
        }
        return new Plan(snapshot == null ? null : snapshot.id(), pinned, splits, starts, ends);
    }

    /** Plans and reads the table: every row of the union, as Paimon's batch read returns rows. */
    public List<InternalRow> read() throws Exception {
        return read(plan());
    }

    /** Reads a plan: the rows of its splits and store ranges, merged per partition-bucket. */
    public List<InternalRow> read(Plan plan) throws Exception {
        FileStoreTable paimon = table.paimonTable();
        boolean primaryKey = !paimon.primaryKeys().isEmpty();
        InternalRowSerializer serializer = new InternalRowSerializer(paimon.rowType());
        Map<PartitionBucket, List<DataSplit>> splitsByBucket = new LinkedHashMap<>();
        for (DataSplit split : plan.splits) {
            splitsByBucket
                    .computeIfAbsent(
                            new PartitionBucket(split.partition(), split.bucket()),
                            pb -> new ArrayList<>())
                    .add(split);
        }
        Set<PartitionBucket> pbs = new LinkedHashSet<>(splitsByBucket.keySet());
        pbs.addAll(plan.storeStarts.keySet());
        TableRead lakeRead = plan.pinnedTable.newReadBuilder().newRead();
        List<InternalRow> rows = new ArrayList<>();
        // the table's store, open as long as the table: a read opens only a reader of it
        try (ReaderStore store =
                ReaderStore.borrowing(table.streamTable(), table.options(), table.store())) {
            BoundedMergeReader storeRead =
                    new BoundedMergeReader(
                            paimon,
                            store,
                            Options.fromMap(table.options())
                                    .get(LakeStreamOptions.READ_MERGE_BUFFER_MAX_RECORDS));
            for (PartitionBucket pb : pbs) {
                List<DataSplit> splits = splitsByBucket.getOrDefault(pb, Collections.emptyList());
                long start = plan.storeStarts.getOrDefault(pb, 0L);
                long end = plan.storeEnds.getOrDefault(pb, start);
                if (primaryKey) {
                    BucketMerge merge = storeRead.read(pb, start, end);
                    for (DataSplit split : splits) {
                        readLake(
                                lakeRead,
                                split,
                                row -> {
                                    InternalRow merged = merge.mergeLake(row);
                                    if (merged != null) {
                                        rows.add(inserted(serializer, merged));
                                    }
                                });
                    }
                    for (Iterator<InternalRow> it = merge.remaining(); it.hasNext(); ) {
                        rows.add(inserted(serializer, it.next()));
                    }
                } else {
                    for (DataSplit split : splits) {
                        readLake(lakeRead, split, row -> rows.add(inserted(serializer, row)));
                    }
                    storeRead.forEachRecord(
                            pb, start, end, record -> rows.add(inserted(serializer, record.row())));
                }
            }
        }
        return rows;
    }

    private static void readLake(TableRead read, DataSplit split, Consumer<InternalRow> action)
            throws Exception {
        try (RecordReader<InternalRow> reader = read.createReader(split)) {
            reader.forEachRemaining(action::accept);
        }
    }

    /** A copy of a row that a reader may reuse, as an insert: what a batch read returns. */
    private static InternalRow inserted(InternalRowSerializer serializer, InternalRow row) {
        InternalRow copy = serializer.copy(row);
        copy.setRowKind(RowKind.INSERT);
        return copy;
    }

    /**
     * What a read covers: a Paimon snapshot's file splits and, per partition-bucket, the store's
     * records from the snapshot's offset to the store's end when it was planned.
     */
    public static final class Plan {
        @Nullable private final Long snapshotId;
        private final FileStoreTable pinnedTable;
        private final List<DataSplit> splits;
        private final Map<PartitionBucket, Long> storeStarts;
        private final Map<PartitionBucket, Long> storeEnds;

        Plan(
                @Nullable Long snapshotId,
                FileStoreTable pinnedTable,
                List<DataSplit> splits,
                Map<PartitionBucket, Long> storeStarts,
                Map<PartitionBucket, Long> storeEnds) {
            this.snapshotId = snapshotId;
            this.pinnedTable = pinnedTable;
            this.splits = splits;
            this.storeStarts = storeStarts;
            this.storeEnds = storeEnds;
        }

        /** The Paimon snapshot read, or null when the table has none. */
        @Nullable
        public Long snapshotId() {
            return snapshotId;
        }

        /** The snapshot's file splits. */
        public List<DataSplit> splits() {
            return Collections.unmodifiableList(splits);
        }

        /** Per partition-bucket with records past the snapshot, the offset the read starts at. */
        public Map<PartitionBucket, Long> storeStartOffsets() {
            return Collections.unmodifiableMap(storeStarts);
        }

        /** Per partition-bucket with records past the snapshot, the store's end at planning. */
        public Map<PartitionBucket, Long> storeEndOffsets() {
            return Collections.unmodifiableMap(storeEnds);
        }
    }
}
