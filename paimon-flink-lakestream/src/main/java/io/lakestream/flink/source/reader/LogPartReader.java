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

import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.read.ReaderStore;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamSubscription;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the logs of the splits whose lake part is done, all with one fenced store reader. Splits
 * handed over are subscribed together, with one call, at the next poll. A read-committed reader
 * holds back what is not committed yet ({@link ReadCommittedHold}): once per snapshot it learns of,
 * it drops held records that fences cover and resumes paused logs; when the hold is full it pauses
 * the log that holds the most instead of stopping.
 *
 * <p>Waits on the store have a deadline: when no record arrived for the reader's store timeout, it
 * asks the store for the end of every log it reads, and fails naming the table and the store when
 * the store holds records it has not delivered (an idle log is not a failure).
 */
@Internal
final class LogPartReader {

    private static final Logger LOG = LoggerFactory.getLogger(LogPartReader.class);

    private final ReaderStore store;
    @Nullable private final ReadCommittedHold hold;
    private final ReaderLagMetrics lag;

    /** The splits whose log is subscribed, by partition-bucket. */
    private final Map<PartitionBucket, LakeStreamSplit> logSplits = new HashMap<>();

    /** Splits whose lake part is done and whose log is not subscribed yet. */
    private final List<LakeStreamSplit> toSubscribe = new ArrayList<>();

    private long lastProgressAt = System.currentTimeMillis();
    private long skippedSeen;

    /** The snapshots learned of when the hold last followed them. */
    private long advancesSeen;

    LogPartReader(
            ReaderStore store,
            @Nullable CommittedOffsets committed,
            ReaderLagMetrics lag,
            int maxHeldRecords) {
        this.store = store;
        this.hold = committed == null ? null : new ReadCommittedHold(committed, maxHeldRecords);
        this.lag = lag;
    }

    /** Hands over a split whose lake part is done; its log is subscribed at the next poll. */
    void add(LakeStreamSplit split) {
        toSubscribe.add(split);
    }

    /** Whether any log is subscribed or about to be. */
    boolean hasLogs() {
        return !logSplits.isEmpty() || !toSubscribe.isEmpty();
    }

    /**
     * Adds the records fetched within {@code timeout} to {@code batch} (zero: only what the store
     * has delivered already), and the splits whose log reached its stop offset as finished. Returns
     * the records it fetched and added; those a read-committed hold releases, which only an
     * unbounded read has, are not counted.
     */
    int poll(RecordsBySplits.Builder<LakeStreamRecord> batch, Duration timeout) {
        subscribePending();
        if (logSplits.isEmpty()) {
            return 0;
        }
        FencedStreamReader reader = store.log();
        if (hold != null) {
            followCommits(reader);
            if (hold.release(batch, this::splitId, reader)) {
                return 0;
            }
            makeRoom(reader);
        }
        int added = 0;
        List<StreamRecord> records = reader.poll(timeout);
        long fetchedAt = System.currentTimeMillis();
        // a store hands the records of one partition-bucket together, under one object: its
        // split is looked up, and its position noted, once per run of its records
        PartitionBucket runOf = null;
        String runSplitId = null;
        long runLastOffset = -1;
        for (StreamRecord record : records) {
            PartitionBucket pb = record.partitionBucket();
            if (pb != runOf) {
                passed(runOf, runLastOffset);
                runOf = pb;
                runSplitId = splitId(pb);
                runLastOffset = -1;
            }
            if (runSplitId == null || (hold != null && hold.isPaused(pb))) {
                continue;
            }
            runLastOffset = record.offset();
            if (hold == null || !hold.holds(record)) {
                batch.add(runSplitId, toLogRecord(record));
                added++;
            }
        }
        passed(runOf, runLastOffset);
        if (!records.isEmpty()) {
            lag.fetched(fetchedAt, records.get(records.size() - 1).timestamp());
        }
        for (PartitionBucket pb : reader.finished()) {
            if (hold != null) {
                hold.forget(pb);
            }
            LakeStreamSplit split = logSplits.remove(pb);
            if (split != null) {
                batch.addFinishedSplit(split.splitId());
            }
            lag.untrack(pb);
        }
        if (!records.isEmpty() || reader.skippedRecords() != skippedSeen) {
            skippedSeen = reader.skippedRecords();
            lastProgressAt = fetchedAt;
        } else if (fetchedAt - lastProgressAt > store.timeout().toMillis()) {
            checkStoreDelivers(reader);
            lastProgressAt = fetchedAt;
        }
        lag.maybeRefreshEnds(fetchedAt, store::store, store.streamTable());
        return added;
    }

    /** Ends every split whose log is read or about to be: a bounded read reached its limit. */
    void endAll(RecordsBySplits.Builder<LakeStreamRecord> batch) {
        for (LakeStreamSplit split : toSubscribe) {
            batch.addFinishedSplit(split.splitId());
        }
        toSubscribe.clear();
        for (LakeStreamSplit split : logSplits.values()) {
            store.log().unsubscribe(split.partitionBucket());
            lag.untrack(split.partitionBucket());
            batch.addFinishedSplit(split.splitId());
        }
        logSplits.clear();
    }

    /**
     * Once per snapshot learned of: drops the held records that fences cover (a tail no snapshot
     * will commit must not be held for ever) and resumes the paused logs that a commit reached.
     */
    private void followCommits(FencedStreamReader reader) {
        long advances = hold.committed().advances();
        if (advances == advancesSeen) {
            return;
        }
        advancesSeen = advances;
        if (hold.isIdle()) {
            return; // no fence log read for a reader that holds nothing
        }
        // the next writer fenced a cancelled job's tail before its first commit
        reader.refreshFences();
        hold.dropFenced(reader.fences());
        Map<PartitionBucket, Long> resumed = hold.resumable(reader.fences());
        if (resumed.isEmpty()) {
            return;
        }
        List<StreamSubscription> subscriptions = new ArrayList<>(resumed.size());
        resumed.forEach(
                (pb, from) -> {
                    LakeStreamSplit split = logSplits.get(pb);
                    if (split != null) {
                        subscriptions.add(new StreamSubscription(pb, from, split.logStopOffset()));
                        lag.track(pb, from, split.logStopOffset());
                    }
                });
        reader.subscribe(subscriptions);
        LOG.info("Resumed the logs of {} partition-buckets a commit reached.", resumed.size());
    }

    /**
     * While the hold is full, pauses the partition-bucket that holds the most: the others are
     * followed on, and memory stays bounded.
     */
    private void makeRoom(FencedStreamReader reader) {
        if (hold.isFull()) {
            hold.dropFenced(reader.fences());
        }
        while (hold.isFull()) {
            PartitionBucket pb = hold.pauseLargest();
            if (pb == null) {
                return;
            }
            reader.unsubscribe(pb);
            lag.untrack(pb);
            LOG.info(
                    "Holding {} uncommitted records; paused {} until a commit reaches it.",
                    hold.heldCount(),
                    pb);
        }
    }

    /**
     * Subscribes the logs of the splits whose lake part is done: those read without end with one
     * call, which reads the fence log to its end; those with a stop offset, planned before the
     * split reader was given them (it then started a read of the fence log to its end, see {@link
     * ReaderStore#openAhead}), with another that waits for that read instead.
     */
    private void subscribePending() {
        if (toSubscribe.isEmpty()) {
            return;
        }
        List<StreamSubscription> unbounded = new ArrayList<>();
        List<StreamSubscription> planned = new ArrayList<>();
        for (LakeStreamSplit split : toSubscribe) {
            StreamSubscription subscription =
                    new StreamSubscription(
                            split.partitionBucket(), split.nextLogOffset(), split.logStopOffset());
            if (split.logStopOffset() == StreamReader.NO_STOP_OFFSET) {
                unbounded.add(subscription);
            } else {
                planned.add(subscription);
            }
        }
        store.log().subscribePlanned(planned);
        if (!unbounded.isEmpty()) {
            store.log().subscribe(unbounded);
        }
        for (LakeStreamSplit split : toSubscribe) {
            logSplits.put(split.partitionBucket(), split);
            lag.track(split.partitionBucket(), split.nextLogOffset(), split.logStopOffset());
        }
        toSubscribe.clear();
        lastProgressAt = System.currentTimeMillis();
    }

    /**
     * After a store timeout without records: fails when a log read holds records beyond what was
     * fetched (less fenced ones) that the store did not deliver. A bounded log has them by
     * definition; an unbounded one is asked for its end.
     */
    private void checkStoreDelivers(FencedStreamReader reader) {
        List<PartitionBucket> unbounded = new ArrayList<>();
        for (LakeStreamSplit split : logSplits.values()) {
            if (hold != null && hold.isPaused(split.partitionBucket())) {
                continue; // not fetched on purpose
            }
            if (split.logStopOffset() == StreamReader.NO_STOP_OFFSET) {
                unbounded.add(split.partitionBucket());
            }
        }
        Map<PartitionBucket, Long> ends =
                unbounded.isEmpty()
                        ? new HashMap<>()
                        : store.store()
                                .listOffsets(store.streamTable(), unbounded, OffsetPosition.LATEST);
        reader.refreshFences();
        for (LakeStreamSplit split : logSplits.values()) {
            PartitionBucket pb = split.partitionBucket();
            if (hold != null && hold.isPaused(pb)) {
                continue;
            }
            long next = lag.nextOffsets().getOrDefault(pb, split.nextLogOffset());
            long end = ends.getOrDefault(pb, split.logStopOffset());
            if (reader.fences().nextValidOffset(pb, next) < end) {
                throw store.timedOut(
                        String.format(
                                "%s holds records up to offset %d, none arrived from offset %d",
                                pb, end, next));
            }
        }
    }

    /** Notes that the log of {@code pb} was read up to {@code lastOffset}, if it was read. */
    private void passed(@Nullable PartitionBucket pb, long lastOffset) {
        if (pb != null && lastOffset >= 0) {
            lag.passed(pb, lastOffset);
        }
    }

    @Nullable
    private String splitId(PartitionBucket pb) {
        LakeStreamSplit split = logSplits.get(pb);
        return split == null ? null : split.splitId();
    }

    static LakeStreamRecord toLogRecord(StreamRecord record) {
        return LakeStreamRecord.log(record.row(), record.offset(), record.timestamp());
    }
}
