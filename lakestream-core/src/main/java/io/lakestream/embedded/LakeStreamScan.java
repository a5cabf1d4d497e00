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
import io.lakestream.read.BucketUnionReader;
import io.lakestream.read.ReaderStore;
import io.lakestream.read.plan.BucketRead;
import io.lakestream.read.plan.LogStop;
import io.lakestream.read.plan.UnionReadPlanner;
import io.lakestream.store.StreamStore;

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.CloseableIterator;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A bounded union read of a lake-stream table, the Flink source's bounded read without Flink: the
 * committed files of the table's latest snapshot, plus per partition-bucket the store's records
 * from that snapshot's offset to the store's end at planning (PIP-46's {@code AcquireReadView} and
 * {@code CreateQueryReaders}), merged with the table's merge engine for primary-key tables ({@link
 * io.lakestream.read.BucketMerge}, the source's own merge, through {@link BucketUnionReader}) and
 * appended for append tables; fenced records are skipped. Returns what Paimon's own read returns
 * once those records are committed.
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
     * Plans a read with the planner of every engine ({@link UnionReadPlanner}): the table's latest
     * snapshot (or the one its scan options travel to), its file splits and, per partition-bucket,
     * the store offsets to read from (the snapshot's) and up to (the store's end now while a writer
     * holds the table's lease; the snapshot's own offsets otherwise, or when reading committed).
     */
    public Plan plan() {
        FileStoreTable paimon = table.paimonTable();
        Options options = Options.fromMap(table.options());
        StreamStore store = table.store();
        LogStop logStop = LogStop.forBoundedRead(paimon, options, store, table.streamTable());
        UnionReadPlanner.Plan plan =
                new UnionReadPlanner(paimon, table.streamTable(), null).plan(store, logStop);
        return new Plan(plan.snapshotId(), plan.buckets());
    }

    /** Plans and reads the table: every row of the union, as Paimon's batch read returns rows. */
    public List<InternalRow> read() throws Exception {
        return read(plan());
    }

    /** Reads a plan: the rows of its splits and store ranges, merged per partition-bucket. */
    public List<InternalRow> read(Plan plan) throws Exception {
        FileStoreTable paimon = table.paimonTable();
        InternalRowSerializer serializer = new InternalRowSerializer(paimon.rowType());
        List<InternalRow> rows = new ArrayList<>();
        // the table's store, open as long as the table: a read opens only a reader of it
        try (ReaderStore store =
                ReaderStore.borrowing(table.streamTable(), table.options(), table.store())) {
            BucketUnionReader reader =
                    new BucketUnionReader(
                            paimon,
                            store,
                            Options.fromMap(table.options())
                                    .get(LakeStreamOptions.READ_MERGE_BUFFER_MAX_RECORDS));
            for (BucketRead bucket : plan.buckets) {
                try (CloseableIterator<InternalRow> it = reader.read(bucket)) {
                    it.forEachRemaining(row -> rows.add(inserted(serializer, row)));
                }
            }
        }
        return rows;
    }

    /** A copy of a row that a reader may reuse, as an insert: what a batch read returns. */
    private static InternalRow inserted(InternalRowSerializer serializer, InternalRow row) {
        InternalRow copy = serializer.copy(row);
        copy.setRowKind(RowKind.INSERT);
        return copy;
    }

    /**
     * What a read covers: a Paimon snapshot's file splits and, per partition-bucket, the store's
     * records from the snapshot's offset to where the read stops (the store's end when it was
     * planned, for read-uncommitted).
     */
    public static final class Plan {
        @Nullable private final Long snapshotId;
        private final List<BucketRead> buckets;

        Plan(@Nullable Long snapshotId, List<BucketRead> buckets) {
            this.snapshotId = snapshotId;
            this.buckets = buckets;
        }

        /** The Paimon snapshot read, or null when the table has none. */
        @Nullable
        public Long snapshotId() {
            return snapshotId;
        }

        /**
         * What the read reads of each partition-bucket, as the planner of every engine plans it.
         */
        public List<BucketRead> buckets() {
            return Collections.unmodifiableList(buckets);
        }

        /** The snapshot's file splits. */
        public List<DataSplit> splits() {
            List<DataSplit> splits = new ArrayList<>();
            buckets.forEach(bucket -> splits.addAll(bucket.lakeSplits()));
            return splits;
        }

        /** Per partition-bucket with records past the snapshot, the offset the read starts at. */
        public Map<PartitionBucket, Long> storeStartOffsets() {
            Map<PartitionBucket, Long> starts = new LinkedHashMap<>();
            for (BucketRead bucket : buckets) {
                if (bucket.logStopOffset() > bucket.logStartOffset()) {
                    starts.put(bucket.partitionBucket(), bucket.logStartOffset());
                }
            }
            return starts;
        }

        /** Per partition-bucket with records past the snapshot, the offset the read stops at. */
        public Map<PartitionBucket, Long> storeEndOffsets() {
            Map<PartitionBucket, Long> ends = new LinkedHashMap<>();
            for (BucketRead bucket : buckets) {
                if (bucket.logStopOffset() > bucket.logStartOffset()) {
                    ends.put(bucket.partitionBucket(), bucket.logStopOffset());
                }
            }
            return ends;
        }
    }
}
