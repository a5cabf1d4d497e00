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

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.read.BoundedMergeReader;
import io.lakestream.read.BucketMerge;
import io.lakestream.read.ReaderStore;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;

import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.TableRead;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Reads {@link LakeStreamSplit}s: the lake part of one split at a time ({@link LakePartReader}),
 * then that partition-bucket's log, where it joins the logs of the splits read before ({@link
 * LogPartReader}). A split's log is subscribed only once its lake part is done, so a key's
 * committed row always comes before its newer changes. While lake parts are read, every fetch also
 * takes what the subscribed logs have delivered, without waiting: a partition-bucket that switched
 * to its log is served while the others still read their lake part.
 *
 * <p>For a bounded read of a primary-key table the split's log part is read first and merged into
 * the lake rows with Paimon's merge function ({@link BoundedMergeReader}, {@link BucketMerge}), so
 * the read returns what Paimon will return once those records are committed (invariant 7).
 */
@Internal
final class LakeStreamSplitReader implements SplitReader<LakeStreamRecord, LakeStreamSplit> {

    private static final int LAKE_BATCH_SIZE = 1024;

    private static final Duration LOG_POLL_TIMEOUT = Duration.ofMillis(100);

    private final boolean mergeBoundedPrimaryKeys;
    private final Deque<LakeStreamSplit> lakeQueue = new ArrayDeque<>();
    private final ReaderStore store;
    private final LakePartReader lake;
    private final BoundedMergeReader boundedMerge;
    private final LogPartReader logs;
    private final ReaderLagMetrics lagMetrics;

    /** The rows after which this reader ends every split; {@link Long#MAX_VALUE} for none. */
    private final long limit;

    /** The rows handed over so far, counted against the limit. */
    private long handedOver;

    LakeStreamSplitReader(
            FileStoreTable table,
            StreamTable streamTable,
            Map<String, String> storeOptions,
            @Nullable Predicate filter,
            @Nullable int[] lakeProjection,
            @Nullable CommittedOffsets committed,
            SourceReaderMetricGroup metrics,
            long limit) {
        this(
                table,
                streamTable,
                storeOptions,
                filter,
                lakeProjection,
                committed,
                metrics,
                limit,
                () ->
                        StreamStoreLoader.create(
                                storeOptions, LakeStreamSplitReader.class.getClassLoader()));
    }

    /**
     * With the store {@code storeFactory} opens when a log is first read.
     *
     * @param limit the rows after which every split of a bounded read ends ({@code LIMIT}
     *     push-down), or {@link Long#MAX_VALUE}
     */
    LakeStreamSplitReader(
            FileStoreTable table,
            StreamTable streamTable,
            Map<String, String> storeOptions,
            @Nullable Predicate filter,
            @Nullable int[] lakeProjection,
            @Nullable CommittedOffsets committed,
            SourceReaderMetricGroup metrics,
            long limit,
            Supplier<StreamStore> storeFactory) {
        this.limit = limit;
        ReaderLagMetrics readerMetrics = new ReaderLagMetrics(metrics);
        this.lagMetrics = readerMetrics;
        this.store = new ReaderStore(streamTable, storeOptions, storeFactory);
        this.logs =
                new LogPartReader(
                        store,
                        committed,
                        readerMetrics,
                        Options.fromMap(storeOptions)
                                .get(LakeStreamOptions.READ_COMMITTED_MAX_HELD_RECORDS));
        this.boundedMerge =
                new BoundedMergeReader(
                        table,
                        store,
                        Options.fromMap(storeOptions)
                                .get(LakeStreamOptions.READ_MERGE_BUFFER_MAX_RECORDS));
        this.mergeBoundedPrimaryKeys = !table.primaryKeys().isEmpty();
        ReadBuilder read = table.newReadBuilder();
        if (filter != null) {
            read.withFilter(filter);
        }
        if (lakeProjection != null) {
            read.withProjection(lakeProjection);
        }
        InternalRowSerializer lakeRowSerializer =
                new InternalRowSerializer(
                        lakeProjection == null
                                ? table.rowType()
                                : table.rowType().project(lakeProjection));
        TableRead tableRead = read.newRead();
        // append rows that the filter rejects are dropped here; a primary-key table's filter has
        // partition and key conjuncts only (ReadFilter), which skip whole keys, and the emitter
        // tests the whole filter on merged rows
        TableRead lakeRead = table.primaryKeys().isEmpty() ? tableRead.executeFilter() : tableRead;
        this.lake =
                new LakePartReader(lakeRead, lakeRowSerializer, readerMetrics.lakeRecordsRead());
    }

    @Override
    public RecordsWithSplitIds<LakeStreamRecord> fetch() throws IOException {
        RecordsBySplits.Builder<LakeStreamRecord> batch = new RecordsBySplits.Builder<>();
        LakeRowBatch lakeRows = null;
        if (handedOver < limit) {
            lakeRows = fetch(batch);
        }
        if (handedOver >= limit) {
            // every row the limit asks for is on its way: the splits end here, unread files
            // unopened; the planner's LIMIT above the source cuts what was read beyond it
            endAll(batch);
        }
        return lakeRows == null ? batch.build() : lakeRows.after(batch.build());
    }

    /**
     * Adds what this fetch reads to {@code batch}; returns the batch of uncopied lake rows that
     * follows it, if the lake part being read is {@link LakePartReader#batched() batched}.
     */
    @Nullable
    private LakeRowBatch fetch(RecordsBySplits.Builder<LakeStreamRecord> batch) throws IOException {
        if (!lake.isReading() && lakeQueue.isEmpty()) {
            handedOver += logs.poll(batch, LOG_POLL_TIMEOUT);
            return null;
        }
        if (logs.hasLogs()) {
            // the logs of buckets that switched already are not kept waiting for the lake
            // backlog: take what they delivered, without blocking
            handedOver += logs.poll(batch, Duration.ZERO);
        }
        // lake parts that end early (a restored split whose lake part is done has none left) share
        // a batch, so that their logs are subscribed together at the next fetch
        int room = (int) Math.min(LAKE_BATCH_SIZE, limit - handedOver);
        while (room > 0 && (lake.isReading() || !lakeQueue.isEmpty())) {
            if (!lake.isReading()) {
                startLake(lakeQueue.poll());
            }
            LakeStreamSplit split = lake.split();
            if (lake.batched()) {
                LakeRowBatch rows = lake.nextBatch();
                if (rows != null || lake.isReading()) {
                    // a batch of rows, or a wake-up: the fetch ends here
                    return rows;
                }
                finishLake(split, batch);
                room--;
                continue;
            }
            int added = lake.read(batch, room);
            handedOver += added;
            room -= added;
            if (!lake.isReading()) {
                finishLake(split, batch);
                room--;
            }
        }
        return null;
    }

    /**
     * Ends every split of this reader, those being read and those not started, for a bounded read
     * whose limit was reached. A primary-key split's rows are merged before they are counted, so
     * each counted row is a row of the read.
     */
    private void endAll(RecordsBySplits.Builder<LakeStreamRecord> batch) throws IOException {
        if (lake.isReading()) {
            batch.addFinishedSplit(lake.split().splitId());
            lake.stop();
        }
        for (LakeStreamSplit split : lakeQueue) {
            batch.addFinishedSplit(split.splitId());
        }
        lakeQueue.clear();
        logs.endAll(batch);
    }

    private void startLake(LakeStreamSplit split) {
        BucketMerge merge = null;
        // another writer's changes are emitted as Paimon's streaming read returns them, unmerged
        if (split.isBounded() && mergeBoundedPrimaryKeys && !split.isFollowed()) {
            merge =
                    boundedMerge.read(
                            split.partitionBucket(), split.nextLogOffset(), split.logStopOffset());
        }
        // rows counted against a limit are copied: the fetcher counts them as it reads them
        lake.start(split, merge, merge == null && limit == Long.MAX_VALUE);
    }

    private void finishLake(
            LakeStreamSplit split, RecordsBySplits.Builder<LakeStreamRecord> batch) {
        if (lake.merging()
                || (split.isBounded() && split.nextLogOffset() >= split.logStopOffset())) {
            batch.addFinishedSplit(split.splitId());
        } else {
            // the split's state drops its lake part at the next checkpoint, so a restore goes
            // straight to the log; the lake-finished record comes before any record of the log
            batch.add(split.splitId(), LakeStreamRecord.lakeFinished(lake.emitted()));
            logs.add(split);
        }
    }

    @Override
    public void handleSplitsChanges(SplitsChange<LakeStreamSplit> splitsChanges) {
        if (!(splitsChanges instanceof SplitsAddition)) {
            throw new UnsupportedOperationException(
                    "Unsupported split change " + splitsChanges.getClass().getSimpleName());
        }
        lakeQueue.addAll(splitsChanges.splits());
        for (LakeStreamSplit split : splitsChanges.splits()) {
            if (!split.isBounded() || split.nextLogOffset() < split.logStopOffset()) {
                // the store is connected while lake parts are read, not after the first one
                store.openAhead();
                break;
            }
        }
    }

    @Override
    public void wakeUp() {
        lake.wakeUp();
        store.wakeUp();
    }

    @Override
    public void close() throws Exception {
        try {
            lake.close();
        } finally {
            try {
                lagMetrics.close();
            } finally {
                store.close();
            }
        }
    }
}
