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

package io.lakestream.store;

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.AbortedRanges;
import io.lakestream.offsets.PartitionBucket;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A {@link StreamReader} that skips fenced records: the offsets that a failed writer attempt wrote
 * after the checkpoint its successor restored from.
 *
 * <p>When the fence log is read, so that a reader asks the store in proportion to what changes and
 * not to how often it polls:
 *
 * <ul>
 *   <li>to its end ({@link FenceLog#readNew}) when the reader is created, and once per batch of
 *       subscriptions, while the reader subscribes: a restored writer records its fence before it
 *       writes anything new, so a partition-bucket whose log is started after a fence was recorded
 *       never returns a record the fence covers;
 *   <li>to its end when a caller learns of logs it will read up to planned stop offsets ({@link
 *       #readFencesAhead}), while it does other work; subscribing those logs ({@link
 *       #subscribePlanned}) then waits for that read instead of reading to the end again. Such a
 *       log holds only records the store held when it was planned, before that read started, so it
 *       never returns a record that a fence recorded before its planning covers; a fence recorded
 *       later is a writer's that restarted after the planning, and the records it covers were in
 *       the store, not yet fenced, when the read was planned;
 *   <li>after every non-empty poll, only what the fence log has delivered without asking ({@link
 *       FenceLog#pollNew}): a fence recorded while a partition-bucket is being read is applied as
 *       soon as it reaches the reader, within the store's fetch latency. Records of the failed
 *       attempt fetched before that can be returned by a read-uncommitted reader, as records
 *       fetched before the fence was recorded always could;
 *   <li>to its end again through {@link #refreshFences}, which a read-committed reader calls before
 *       it releases records it held back.
 * </ul>
 */
public final class FencedStreamReader implements StreamReader {

    private final StreamReader reader;
    private final FenceLog fenceLog;
    private final AbortedRanges fences = new AbortedRanges();
    private long skippedRecords;

    /**
     * The thread that reads the fence log while the reader subscribes: one per reader, started at
     * its first subscription, as a reader subscribes again and again (at every new split). Every
     * read of the fence log but {@link #refreshFences} and the creation's runs on it, one at a
     * time, and {@link #poll} takes what the log delivered only while none runs.
     */
    private ExecutorService fenceReads;

    /** Reads to the end started by {@link #readFencesAhead}, not yet added to the fences. */
    private final List<AheadCall<List<AbortedRange>>> aheadReads = new ArrayList<>();

    public FencedStreamReader(StreamReader reader, FenceLog fenceLog) {
        this.reader = reader;
        this.fenceLog = fenceLog;
        fences.addAll(fenceLog.readNew());
    }

    @Override
    public void subscribe(PartitionBucket partitionBucket, long startOffset, long stopOffset) {
        subscribe(
                Collections.singletonList(
                        new StreamSubscription(partitionBucket, startOffset, stopOffset)));
    }

    /**
     * Subscribes the whole batch with one call to the reader, then reads the fence log to its end
     * once: no record of a partition-bucket started now is returned if a fence recorded before
     * covers it.
     */
    @Override
    public void subscribe(List<StreamSubscription> subscriptions) {
        if (subscriptions.isEmpty()) {
            return;
        }
        // the fence log is read while the reader subscribes: each waits on the store, neither on
        // the other, and a fence recorded before this call is listed by the read all the same
        aheadReads.add(AheadCall.start(fenceReads(), fenceLog::readNew));
        subscribeAndJoin(subscriptions);
    }

    /**
     * Starts reading the fence log to its end on the reader's fence thread, and returns: a caller
     * that has just learned of logs to read up to stop offsets planned before (a source reader
     * given splits) calls it, so that the read overlaps its other work and {@link
     * #subscribePlanned} need not make one.
     */
    public void readFencesAhead() {
        aheadReads.add(AheadCall.start(fenceReads(), fenceLog::readNew));
    }

    /**
     * Subscribes logs read up to stop offsets that were planned before the last {@link
     * #readFencesAhead} call (or before this reader was created), waiting for the reads started
     * ahead instead of reading the fence log to its end again: the fences recorded before their
     * planning are then known (see the class comment).
     */
    public void subscribePlanned(List<StreamSubscription> subscriptions) {
        for (StreamSubscription subscription : subscriptions) {
            if (subscription.stopOffset() == NO_STOP_OFFSET) {
                throw new IllegalArgumentException(
                        "A log read without end is subscribed with subscribe(): "
                                + subscription.partitionBucket());
            }
        }
        if (!subscriptions.isEmpty()) {
            subscribeAndJoin(subscriptions);
        }
    }

    private void subscribeAndJoin(List<StreamSubscription> subscriptions) {
        try {
            reader.subscribe(subscriptions);
        } catch (RuntimeException e) {
            RuntimeException readFailure = endAheadReads();
            if (readFailure != null) {
                e.addSuppressed(readFailure);
            }
            throw e;
        }
        joinAheadReads();
    }

    private ExecutorService fenceReads() {
        if (fenceReads == null) {
            fenceReads =
                    Executors.newSingleThreadExecutor(
                            task -> {
                                Thread thread = new Thread(task, "lake-stream-fence-refresh");
                                thread.setDaemon(true);
                                return thread;
                            });
        }
        return fenceReads;
    }

    /**
     * Adds the fences of every read started ahead, waiting for those still running; throws the
     * first failure of one, after all ended (none may hold the fence log after this returns).
     */
    private void joinAheadReads() {
        RuntimeException failure = endAheadReads();
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Waits for the reads started ahead, whichever way they end, and adds the fences of those that
     * succeeded (the log read past them, and no later read returns them again); returns the first
     * failure, with the others suppressed, or null.
     */
    @Nullable
    private RuntimeException endAheadReads() {
        List<AheadCall<List<AbortedRange>>> reads = new ArrayList<>(aheadReads);
        aheadReads.clear();
        RuntimeException failure = null;
        for (AheadCall<List<AbortedRange>> read : reads) {
            try {
                fences.addAll(read.join());
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        return failure;
    }

    /**
     * Adds the fences of the reads started ahead that ended; whether none is still running, so that
     * the fence log may be used on this thread.
     */
    private boolean drainEndedAheadReads() {
        while (!aheadReads.isEmpty() && aheadReads.get(0).isDone()) {
            // they run one at a time, in the order they were started
            fences.addAll(aheadReads.remove(0).join());
        }
        return aheadReads.isEmpty();
    }

    @Override
    public void unsubscribe(PartitionBucket partitionBucket) {
        reader.unsubscribe(partitionBucket);
    }

    @Override
    public List<StreamRecord> poll(Duration timeout) {
        List<StreamRecord> records = reader.poll(timeout);
        if (records.isEmpty()) {
            return records;
        }
        // only what the fence log delivered on its own: no request per poll; while a read started
        // ahead runs, the log is its thread's, and that read brings what the log delivered
        if (drainEndedAheadReads()) {
            fences.addAll(fenceLog.pollNew());
        }
        List<StreamRecord> visible = new ArrayList<>(records.size());
        for (StreamRecord record : records) {
            if (fences.isAborted(record.partitionBucket(), record.offset())) {
                skippedRecords++;
            } else {
                visible.add(record);
            }
        }
        return visible;
    }

    /** The number of fenced records this reader dropped so far. */
    public long skippedRecords() {
        return skippedRecords;
    }

    /**
     * Reads the fence log to its end, so that {@link #fences()} covers every fence recorded before
     * this call. A reader that holds records back (read-committed) calls it before it lets them go:
     * a record it fetched before its fence was recorded is covered then.
     */
    public void refreshFences() {
        joinAheadReads();
        fences.addAll(fenceLog.readNew());
    }

    /** The fences this reader knows of. */
    public AbortedRanges fences() {
        return fences;
    }

    @Override
    public List<PartitionBucket> finished() {
        return reader.finished();
    }

    @Override
    public void wakeup() {
        reader.wakeup();
    }

    @Override
    public void close() {
        if (fenceReads != null) {
            // a read started ahead may be in flight; the fence log is closed after it, and a
            // failed read fails no close
            endAheadReads();
            fenceReads.shutdown();
        }
        try {
            reader.close();
        } finally {
            fenceLog.close();
        }
    }
}
