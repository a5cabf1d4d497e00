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

import io.lakestream.offsets.AbortedRanges;
import io.lakestream.read.plan.BucketRead;
import io.lakestream.read.plan.LogStop;
import io.lakestream.read.plan.ReadStart;
import io.lakestream.read.plan.UnionReadPlanner;
import io.lakestream.store.FenceLog;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;

import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * The number of rows a bounded read of an append table returns, from metadata alone: {@code
 * COUNT(*)} without reading a row. It plans the read exactly as the enumerator plans it (same
 * snapshot, same partition pruning, same log start and stop offsets) and adds, per
 * partition-bucket, Paimon's row count of its data splits (as Paimon's own {@code COUNT(*)}
 * push-down takes it: {@link DataSplit#mergedRowCount()}, deletion vectors subtracted) and the
 * store records in {@code [start, stop)} that no fence covers. Each store record of an append table
 * is one row of the read, and a log's offsets are consecutive, so that is exactly what the union
 * read returns.
 */
@Internal
public final class PlannedRowCount {

    private PlannedRowCount() {}

    /**
     * Counts the rows of a bounded read of {@code table}, or returns empty when the count is not
     * exact from metadata: a primary-key table (its store records merge into keys), or a data split
     * whose row count Paimon does not know (as Paimon's push-down refuses it).
     *
     * @param partitionFilter conjuncts on partition columns only, on the table's row, or null
     * @param lakeOnly {@code lake-stream.read.lake-only}: the snapshot alone
     * @param readCommitted {@code read-committed}: the snapshot alone
     * @param storeSupplier opened only when the read includes the store's tail
     */
    public static OptionalLong count(
            FileStoreTable table,
            StreamTable streamTable,
            @Nullable Predicate partitionFilter,
            boolean lakeOnly,
            boolean readCommitted,
            Duration writerLeaseTimeout,
            Supplier<StreamStore> storeSupplier) {
        if (!table.primaryKeys().isEmpty()) {
            return OptionalLong.empty();
        }
        UnionReadPlanner planner = new UnionReadPlanner(table, streamTable, partitionFilter, true);
        // the reads that return one snapshot exactly, as LakeStreamSplitEnumerator#create decides
        if (lakeOnly || readCommitted || ReadStart.travelsInTime(table.options())) {
            return count(planner.plan(null, LogStop.snapshotOffsets()), new AbortedRanges());
        }
        try (StreamStore store = storeSupplier.get()) {
            UnionReadPlanner.Plan plan =
                    planner.plan(store, LogStop.storeEnds(store, streamTable, writerLeaseTimeout));
            // the fences after the ends, as a reader reads them when it starts after planning: a
            // fence recorded in between covers records below the ends that the read skips. A read
            // of no store record (no live writer: every log stops at the snapshot's offsets, where
            // it starts) has no fence to read
            AbortedRanges fences = new AbortedRanges();
            if (readsStoreRecords(plan)) {
                try (FenceLog log = store.openFenceLog(streamTable)) {
                    fences.addAll(log.readNew());
                }
            }
            return count(plan, fences);
        }
    }

    private static boolean readsStoreRecords(UnionReadPlanner.Plan plan) {
        for (BucketRead split : plan.buckets()) {
            if (split.logStopOffset() > split.logStartOffset()) {
                return true;
            }
        }
        return false;
    }

    private static OptionalLong count(UnionReadPlanner.Plan plan, AbortedRanges fences) {
        long count = 0;
        for (BucketRead split : plan.buckets()) {
            for (DataSplit data : split.lakeSplits()) {
                if (!data.mergedRowCountAvailable()) {
                    return OptionalLong.empty();
                }
                count += data.mergedRowCount();
            }
            long start = split.logStartOffset();
            long stop = split.logStopOffset();
            if (stop > start) {
                count += stop - start - fences.countAborted(split.partitionBucket(), start, stop);
            }
        }
        return OptionalLong.of(count);
    }
}
