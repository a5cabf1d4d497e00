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

import io.lakestream.flink.offsets.PartitionBucket;
import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.flink.store.FencedStreamReader;
import io.lakestream.flink.store.OffsetPosition;
import io.lakestream.flink.store.StreamRecord;
import io.lakestream.flink.store.StreamStore;
import io.lakestream.flink.store.StreamStoreLoader;
import io.lakestream.flink.store.StreamTable;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.reader.RecordReaderIterator;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
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
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads {@link LakeStreamSplit}s: the lake part of one split at a time with Paimon's table read,
 * then that partition-bucket's log with the store's fenced reader, where it joins the logs of the
 * splits read before. A split's log is subscribed only once its lake part is done, so a key's
 * committed row always comes before its newer changes.
 *
 * <p>For a bounded read of a primary-key table the split's log part is read first and merged into
 * the lake rows with Paimon's merge function ({@link BucketMerge}), so the read returns what Paimon
 * will return once those records are committed (invariant 7).
 */
@Internal
final class LakeStreamSplitReader implements SplitReader<LakeStreamRecord, LakeStreamSplit> {

    private static final int LAKE_BATCH_SIZE = 1024;

    /** How often the store's end offsets are asked for, for the lag metrics. */
    private static final long END_OFFSETS_REFRESH_MILLIS = 5_000;

    private static final Duration LOG_POLL_TIMEOUT = Duration.ofMillis(100);

    private final FileStoreTable table;
    private final StreamTable streamTable;
    private final Map<String, String> storeOptions;
    private final boolean mergeBoundedPrimaryKeys;
    private final TableRead lakeRead;
    private final InternalRowSerializer lakeRowSerializer;

    private final Deque<LakeStreamSplit> lakeQueue = new ArrayDeque<>();
    private final Map<PartitionBucket, String> logSplits = new HashMap<>();

    /** Splits whose lake part is done and whose log is not subscribed yet. */
    private final List<LakeStreamSplit> toSubscribe = new ArrayList<>();

    @Nullable private StreamStore store;
    @Nullable private FencedStreamReader log;

    @Nullable private LakeStreamSplit current;
    @Nullable private Iterator<InternalRow> currentRows;
    @Nullable private RecordReaderIterator<InternalRow> currentLakeReader;
    private int currentLakeSplit;
    private long currentEmitted;
    @Nullable private BucketMerge currentMerge;

    /** How many records a read-committed reader holds back before it stops fetching. */
    private static final int MAX_HELD_RECORDS = 100_000;

    @Nullable private final CommittedOffsets committed;
    private final Map<PartitionBucket, ArrayDeque<StreamRecord>> held = new HashMap<>();
    private int heldCount;

    private final SourceReaderMetricGroup metrics;
    private final Map<PartitionBucket, Long> nextOffsets = new ConcurrentHashMap<>();
    private final Map<PartitionBucket, Long> endOffsets = new ConcurrentHashMap<>();
    private volatile long fetchEventTimeLag = -1;
    private long endOffsetsRefreshedAt;

    LakeStreamSplitReader(
            FileStoreTable table,
            StreamTable streamTable,
            Map<String, String> storeOptions,
            @Nullable Predicate filter,
            @Nullable int[] lakeProjection,
            @Nullable CommittedOffsets committed,
            SourceReaderMetricGroup metrics) {
        this.committed = committed;
        this.metrics = metrics;
        metrics.gauge("currentFetchEventTimeLag", () -> fetchEventTimeLag);
        metrics.setPendingRecordsGauge(this::pendingRecords);
        this.table = table;
        this.streamTable = streamTable;
        this.storeOptions = storeOptions;
        this.mergeBoundedPrimaryKeys = !table.primaryKeys().isEmpty();
        ReadBuilder read = table.newReadBuilder();
        if (filter != null) {
            read.withFilter(filter);
        }
        if (lakeProjection != null) {
            read.withProjection(lakeProjection);
        }
        this.lakeRowSerializer =
                new InternalRowSerializer(
                        lakeProjection == null
                                ? table.rowType()
                                : table.rowType().project(lakeProjection));
        TableRead tableRead = read.newRead();
        // append rows that the filter rejects are dropped here; a primary-key table's filter has
        // partition and key conjuncts only (ReadFilter), which skip whole keys, and the emitter
        // tests the whole filter on merged rows
        this.lakeRead = table.primaryKeys().isEmpty() ? tableRead.executeFilter() : tableRead;
    }

    @Override
    public RecordsWithSplitIds<LakeStreamRecord> fetch() throws IOException {
        if (current == null && !lakeQueue.isEmpty()) {
            startLake(lakeQueue.poll());
        }
        if (current != null) {
            return fetchLake();
        }
        subscribePending();
        if (!logSplits.isEmpty()) {
            return fetchLog();
        }
        return new RecordsBySplits.Builder<LakeStreamRecord>().build();
    }

    /** Subscribes the logs of the splits whose lake part is done. */
    private void subscribePending() {
        for (LakeStreamSplit split : toSubscribe) {
            log().subscribe(split.partitionBucket(), split.nextLogOffset(), split.logStopOffset());
            logSplits.put(split.partitionBucket(), split.splitId());
            trackLag(split.partitionBucket(), split.nextLogOffset());
        }
        toSubscribe.clear();
    }

    private void startLake(LakeStreamSplit split) throws IOException {
        current = split;
        currentLakeSplit = 0;
        currentEmitted = 0;
        currentMerge = null;
        if (split.isBounded() && mergeBoundedPrimaryKeys) {
            // merged whether or not the partition-bucket has lake rows: the log alone holds
            // deletes and partial rows that only the merge turns into the table's rows
            currentMerge = BucketMerge.of(table);
            readChanges(split, currentMerge);
        } else if (split.lakeFinished()) {
            currentRows = null;
        }
    }

    /** Reads the split's whole log part into {@code merge}, skipping fenced records. */
    private void readChanges(LakeStreamSplit split, BucketMerge merge) {
        if (split.nextLogOffset() >= split.logStopOffset()) {
            return;
        }
        FencedStreamReader reader = log();
        PartitionBucket pb = split.partitionBucket();
        reader.subscribe(pb, split.nextLogOffset(), split.logStopOffset());
        boolean finished = false;
        while (!finished) {
            for (StreamRecord record : reader.poll(LOG_POLL_TIMEOUT)) {
                merge.addChange(record.row());
            }
            finished = reader.finished().contains(pb);
        }
    }

    private RecordsWithSplitIds<LakeStreamRecord> fetchLake() throws IOException {
        LakeStreamSplit split = current;
        RecordsBySplits.Builder<LakeStreamRecord> batch = new RecordsBySplits.Builder<>();
        String splitId = split.splitId();
        int added = 0;
        while (added < LAKE_BATCH_SIZE) {
            InternalRow row = nextLakeRow(split);
            if (row == null) {
                break;
            }
            currentEmitted++;
            if (currentEmitted > split.lakeRecordsEmitted()) {
                // Paimon's readers reuse their row objects; a batch holds many rows
                InternalRow copy = lakeRowSerializer.copy(row);
                if (currentMerge != null) {
                    // a merged bounded read returns rows as inserts, whatever kind Paimon kept
                    copy.setRowKind(org.apache.paimon.types.RowKind.INSERT);
                }
                batch.add(splitId, LakeStreamRecord.lake(copy, currentEmitted));
                added++;
            }
        }
        if (added < LAKE_BATCH_SIZE) {
            // the lake part is done
            closeLakeReader();
            current = null;
            currentRows = null;
            if (currentMerge != null
                    || (split.isBounded() && split.nextLogOffset() >= split.logStopOffset())) {
                batch.addFinishedSplit(splitId);
            } else {
                // the split's state drops its lake part at the next checkpoint, so a restore
                // goes straight to the log; the log is subscribed at the next fetch
                batch.add(splitId, LakeStreamRecord.lakeFinished(currentEmitted));
                toSubscribe.add(split);
            }
        }
        return batch.build();
    }

    /** The next row of the current split's lake part (merged when merging), or null at its end. */
    @Nullable
    private InternalRow nextLakeRow(LakeStreamSplit split) throws IOException {
        while (true) {
            if (currentRows != null && currentRows.hasNext()) {
                InternalRow row = currentRows.next();
                if (currentMerge == null || currentLakeSplit > split.lakeSplits().size()) {
                    return row;
                }
                InternalRow merged = currentMerge.mergeLake(row);
                if (merged != null) {
                    return merged;
                }
                continue;
            }
            closeLakeReader();
            if (split.lakeFinished() && currentMerge == null) {
                return null;
            }
            if (currentLakeSplit < split.lakeSplits().size()) {
                DataSplit next = split.lakeSplits().get(currentLakeSplit++);
                RecordReader<InternalRow> reader = lakeRead.createReader(next);
                currentLakeReader = new RecordReaderIterator<>(reader);
                currentRows = currentLakeReader;
            } else if (currentMerge != null && currentLakeSplit == split.lakeSplits().size()) {
                // after the last lake split: the keys that only the store has
                currentLakeSplit++;
                currentRows = currentMerge.remaining();
            } else {
                return null;
            }
        }
    }

    private void closeLakeReader() throws IOException {
        if (currentLakeReader != null) {
            try {
                currentLakeReader.close();
            } catch (Exception e) {
                throw new IOException(e);
            }
            currentLakeReader = null;
        }
    }

    private RecordsWithSplitIds<LakeStreamRecord> fetchLog() {
        FencedStreamReader reader = log();
        RecordsBySplits.Builder<LakeStreamRecord> batch = new RecordsBySplits.Builder<>();
        if (committed != null && releaseCommitted(batch)) {
            return batch.build();
        }
        if (heldCount >= MAX_HELD_RECORDS) {
            // back-pressure: wait for a commit instead of fetching more
            sleepQuietly(LOG_POLL_TIMEOUT.toMillis());
            return batch.build();
        }
        List<StreamRecord> records = reader.poll(LOG_POLL_TIMEOUT);
        long fetchedAt = System.currentTimeMillis();
        for (StreamRecord record : records) {
            PartitionBucket pb = record.partitionBucket();
            String splitId = logSplits.get(pb);
            if (splitId == null) {
                continue;
            }
            nextOffsets.put(pb, record.offset() + 1);
            if (committed != null
                    && (held.containsKey(pb) || record.offset() >= committed.of(pb))) {
                // read-committed: not committed yet; kept in offset order until it is
                held.computeIfAbsent(pb, k -> new ArrayDeque<>()).add(record);
                heldCount++;
            } else {
                batch.add(splitId, toLogRecord(record));
            }
        }
        if (!records.isEmpty()) {
            fetchEventTimeLag = fetchedAt - records.get(records.size() - 1).timestamp();
        }
        List<PartitionBucket> finished = reader.finished();
        for (PartitionBucket pb : finished) {
            String splitId = logSplits.remove(pb);
            if (splitId != null) {
                batch.addFinishedSplit(splitId);
            }
            nextOffsets.remove(pb);
            endOffsets.remove(pb);
        }
        if (fetchedAt - endOffsetsRefreshedAt > END_OFFSETS_REFRESH_MILLIS
                && !nextOffsets.isEmpty()) {
            endOffsetsRefreshedAt = fetchedAt;
            endOffsets.putAll(
                    store.listOffsets(
                            streamTable,
                            new ArrayList<>(nextOffsets.keySet()),
                            OffsetPosition.LATEST));
        }
        return batch.build();
    }

    private static LakeStreamRecord toLogRecord(StreamRecord record) {
        return LakeStreamRecord.log(record.row(), record.offset(), record.timestamp());
    }

    /** Moves held records that are committed now into {@code batch}; returns whether any moved. */
    private boolean releaseCommitted(RecordsBySplits.Builder<LakeStreamRecord> batch) {
        boolean released = false;
        boolean fencesRefreshed = false;
        Iterator<Map.Entry<PartitionBucket, ArrayDeque<StreamRecord>>> entries =
                held.entrySet().iterator();
        while (entries.hasNext()) {
            Map.Entry<PartitionBucket, ArrayDeque<StreamRecord>> entry = entries.next();
            long committedOffset = committed.of(entry.getKey());
            String splitId = logSplits.get(entry.getKey());
            ArrayDeque<StreamRecord> queue = entry.getValue();
            while (!queue.isEmpty() && queue.peek().offset() < committedOffset) {
                if (!fencesRefreshed) {
                    // a held record may have been fetched before a restarted writer fenced it;
                    // the fence was recorded before the commit that now covers its offset
                    log().refreshFences();
                    fencesRefreshed = true;
                }
                StreamRecord record = queue.poll();
                heldCount--;
                if (!log().fences().isAborted(record.partitionBucket(), record.offset())) {
                    batch.add(splitId, toLogRecord(record));
                    released = true;
                }
            }
            if (queue.isEmpty()) {
                entries.remove();
            }
        }
        return released;
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Registers the per-partition-bucket offset lag of a log that is now read. */
    private void trackLag(PartitionBucket pb, long nextOffset) {
        if (nextOffsets.put(pb, nextOffset) == null) {
            metrics.addGroup("partitionBucket", pb.toString())
                    .gauge("lakeStreamOffsetLag", () -> offsetLag(pb));
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

    private FencedStreamReader log() {
        if (log == null) {
            store = StreamStoreLoader.create(storeOptions, getClass().getClassLoader());
            log =
                    new FencedStreamReader(
                            store.createReader(streamTable), store.openFenceLog(streamTable));
        }
        return log;
    }

    @Override
    public void handleSplitsChanges(SplitsChange<LakeStreamSplit> splitsChanges) {
        if (!(splitsChanges instanceof SplitsAddition)) {
            throw new UnsupportedOperationException(
                    "Unsupported split change " + splitsChanges.getClass().getSimpleName());
        }
        lakeQueue.addAll(splitsChanges.splits());
    }

    @Override
    public void wakeUp() {
        if (log != null) {
            log.wakeup();
        }
    }

    @Override
    public void close() throws Exception {
        closeLakeReader();
        try {
            if (log != null) {
                log.close();
            }
        } finally {
            if (store != null) {
                store.close();
            }
        }
    }
}
