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

package io.lakestream.flink.source.reader;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;

import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The metrics of a split reader: how far behind the store each partition-bucket it follows is
 * ({@code pendingRecords}, {@code partitionBucket.<pb>.lakeStreamOffsetLag}), the fetch lag of the
 * last store batch ({@code currentFetchEventTimeLag}) and the lake rows it read from Paimon ({@code
 * lakeRecordsRead}, which a restore that skips finished lake parts leaves at zero). The gauges are
 * read by the metric reporter's thread, hence the concurrent maps.
 */
@Internal
final class ReaderLagMetrics {

    static final String LAKE_RECORDS_READ = "lakeRecordsRead";

    /** How often the store's end offsets are asked for, for the lag metrics. */
    private static final long END_OFFSETS_REFRESH_MILLIS = 5_000;

    private final SourceReaderMetricGroup metrics;
    private final Counter lakeRecordsRead;
    private final Map<PartitionBucket, Long> nextOffsets = new ConcurrentHashMap<>();
    private final Map<PartitionBucket, Long> endOffsets = new ConcurrentHashMap<>();
    private volatile long fetchEventTimeLag = -1;
    private long endOffsetsRefreshedAt;

    ReaderLagMetrics(SourceReaderMetricGroup metrics) {
        this.metrics = metrics;
        metrics.gauge("currentFetchEventTimeLag", () -> fetchEventTimeLag);
        metrics.setPendingRecordsGauge(this::pendingRecords);
        // the fetcher counts rows it copies, the main thread the rows of a lake batch it passes
        this.lakeRecordsRead = metrics.counter(LAKE_RECORDS_READ, new ThreadSafeSimpleCounter());
    }

    /** Counts the rows read from Paimon's files, whether emitted or skipped as emitted before. */
    Counter lakeRecordsRead() {
        return lakeRecordsRead;
    }

    /** Registers the per-partition-bucket offset lag of a log that is now read. */
    void track(PartitionBucket pb, long nextOffset) {
        if (nextOffsets.put(pb, nextOffset) == null) {
            metrics.addGroup("partitionBucket", pb.toString())
                    .gauge("lakeStreamOffsetLag", () -> offsetLag(pb));
        }
    }

    void passed(PartitionBucket pb, long offset) {
        nextOffsets.put(pb, offset + 1);
    }

    void fetched(long fetchedAt, long lastTimestamp) {
        fetchEventTimeLag = fetchedAt - lastTimestamp;
    }

    void untrack(PartitionBucket pb) {
        nextOffsets.remove(pb);
        endOffsets.remove(pb);
    }

    /** The next offset fetched of every partition-bucket whose log is read. */
    Map<PartitionBucket, Long> nextOffsets() {
        return nextOffsets;
    }

    /** Asks the store for the end offsets of the logs read, at most every few seconds. */
    void maybeRefreshEnds(long now, StreamStore store, StreamTable table) {
        if (now - endOffsetsRefreshedAt > END_OFFSETS_REFRESH_MILLIS && !nextOffsets.isEmpty()) {
            endOffsetsRefreshedAt = now;
            endOffsets.putAll(
                    store.listOffsets(
                            table, new ArrayList<>(nextOffsets.keySet()), OffsetPosition.LATEST));
        }
    }

    private long offsetLag(PartitionBucket pb) {
        Long next = nextOffsets.get(pb);
        Long end = endOffsets.get(pb);
        return next == null || end == null ? 0 : Math.max(0, end - next);
    }

    /** Records in the store beyond what this reader has fetched, as of the last refresh. */
    private long pendingRecords() {
        long pending = 0;
        for (PartitionBucket pb : nextOffsets.keySet()) {
            pending += offsetLag(pb);
        }
        return pending;
    }
}
