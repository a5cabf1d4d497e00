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
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.util.concurrent.ExecutorThreadFactory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The metrics of a split reader: how far behind the store each partition-bucket it follows is
 * ({@code pendingRecords}, {@code partitionBucket.<pb>.lakeStreamOffsetLag}), the fetch lag of the
 * last store batch ({@code currentFetchEventTimeLag}) and the lake rows it read from Paimon ({@code
 * lakeRecordsRead}, which a restore that skips finished lake parts leaves at zero). The gauges are
 * read by the metric reporter's thread, hence the concurrent maps.
 *
 * <p>The end of a bounded log is its stop offset, known without asking. The ends of unbounded logs
 * are asked of the store every few seconds on a thread of its own: the listing takes round trips
 * (about 20 ms on a loaded machine) that the fetcher would otherwise spend not fetching, a stall in
 * the freshness of every streaming read and on the critical path of a short bounded one.
 */
@Internal
final class ReaderLagMetrics implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReaderLagMetrics.class);

    static final String LAKE_RECORDS_READ = "lakeRecordsRead";

    /** How often the store's end offsets are asked for, for the lag metrics. */
    private static final long END_OFFSETS_REFRESH_MILLIS = 5_000;

    private final SourceReaderMetricGroup metrics;
    private final Counter lakeRecordsRead;
    private final Map<PartitionBucket, Long> nextOffsets = new ConcurrentHashMap<>();
    private final Map<PartitionBucket, Long> endOffsets = new ConcurrentHashMap<>();

    /** The tracked logs without a stop offset, whose ends only the store knows. */
    private final Map<PartitionBucket, Boolean> unbounded = new ConcurrentHashMap<>();

    private volatile long fetchEventTimeLag = -1;
    private long endOffsetsRefreshedAt;

    @Nullable private ExecutorService refresher;
    @Nullable private CompletableFuture<?> refreshing;

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

    /**
     * Registers the per-partition-bucket offset lag of a log that is now read from {@code
     * nextOffset} up to {@code stopOffset} ({@link StreamReader#NO_STOP_OFFSET} for no end).
     */
    void track(PartitionBucket pb, long nextOffset, long stopOffset) {
        if (nextOffsets.put(pb, nextOffset) == null) {
            metrics.addGroup("partitionBucket", pb.toString())
                    .gauge("lakeStreamOffsetLag", () -> offsetLag(pb));
        }
        if (stopOffset == StreamReader.NO_STOP_OFFSET) {
            unbounded.put(pb, Boolean.TRUE);
        } else {
            unbounded.remove(pb);
            endOffsets.put(pb, stopOffset);
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
        unbounded.remove(pb);
        endOffsets.remove(pb);
    }

    /** The next offset fetched of every partition-bucket whose log is read. */
    Map<PartitionBucket, Long> nextOffsets() {
        return nextOffsets;
    }

    /**
     * Starts asking the store for the end offsets of the unbounded logs read, at most every few
     * seconds and one listing at a time; returns at once.
     */
    void maybeRefreshEnds(long now, Supplier<StreamStore> store, StreamTable table) {
        if (unbounded.isEmpty()
                || now - endOffsetsRefreshedAt <= END_OFFSETS_REFRESH_MILLIS
                || (refreshing != null && !refreshing.isDone())) {
            return;
        }
        endOffsetsRefreshedAt = now;
        List<PartitionBucket> logs = new ArrayList<>(unbounded.keySet());
        if (refresher == null) {
            refresher =
                    Executors.newSingleThreadExecutor(
                            new ExecutorThreadFactory("lake-stream-reader-lag-" + table.spec()));
        }
        refreshing =
                CompletableFuture.runAsync(
                        () -> {
                            Map<PartitionBucket, Long> ends =
                                    store.get().listOffsets(table, logs, OffsetPosition.LATEST);
                            // a log untracked meanwhile keeps no end
                            ends.forEach(
                                    (pb, end) -> {
                                        if (unbounded.containsKey(pb)) {
                                            endOffsets.put(pb, end);
                                        }
                                    });
                        },
                        refresher);
        refreshing.whenComplete(
                (ignored, error) -> {
                    if (error != null) {
                        // a metric: the read itself notices a store it cannot reach
                        LOG.debug("Could not list the store's end offsets for the lag.", error);
                    }
                });
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

    @Override
    public void close() {
        if (refresher != null) {
            // a listing in flight is bounded by the store's request timeout; its result is unused
            refresher.shutdownNow();
        }
    }
}
