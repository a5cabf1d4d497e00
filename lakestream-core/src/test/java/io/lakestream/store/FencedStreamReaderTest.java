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
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.testutils.Await;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests for {@link FencedStreamReader}, on an in-memory reader and fence log. */
class FencedStreamReaderTest {

    private static final Duration TIMEOUT = Duration.ofMillis(10);

    private static final PartitionBucket B0 = PartitionBucket.ofUnpartitioned(0);
    private static final PartitionBucket B1 = PartitionBucket.ofUnpartitioned(1);
    private static final PartitionBucket P1_B0 = new PartitionBucket(partition(1), 0);

    private final InMemoryReader source = new InMemoryReader();
    private final InMemoryFenceLog fenceLog = new InMemoryFenceLog();

    @Test
    void dropsRecordsInsideFencesAndKeepsTheOthers() {
        fenceLog.record(new AbortedRange(B0, 2, 5));
        fenceLog.record(new AbortedRange(B1, 0, 1));
        FencedStreamReader reader = new FencedStreamReader(source, fenceLog);
        List<StreamRecord> batch = new ArrayList<>();
        batch.addAll(records(B0, 0, 7));
        batch.addAll(records(B1, 0, 3));
        // same bucket number as the fenced B0, but another partition
        batch.addAll(records(P1_B0, 2, 5));
        source.batches.add(batch);

        List<StreamRecord> visible = reader.poll(TIMEOUT);

        assertThat(offsetsPerBucket(visible))
                .containsExactly(
                        Map.entry(B0, List.of(0L, 1L, 5L, 6L)),
                        Map.entry(B1, List.of(1L, 2L)),
                        Map.entry(P1_B0, List.of(2L, 3L, 4L)));
        assertThat(reader.skippedRecords()).isEqualTo(4);
        // records that pass are handed on as they are
        assertThat(visible.get(0)).isSameAs(batch.get(0));
    }

    @Test
    void fenceRecordedBetweenTwoPollsHidesTheRecordsOfTheSecondPoll() {
        FencedStreamReader reader = new FencedStreamReader(source, fenceLog);
        source.batches.add(records(B0, 0, 4));
        source.batches.add(records(B0, 4, 8));

        List<StreamRecord> first = reader.poll(TIMEOUT);
        fenceLog.record(new AbortedRange(B0, 3, 6));
        fenceLog.delivered = 1;
        List<StreamRecord> second = reader.poll(TIMEOUT);

        // offset 3 was returned before the fence existed; a later poll cannot take it back
        assertThat(offsets(first)).containsExactly(0L, 1L, 2L, 3L);
        assertThat(offsets(second)).containsExactly(6L, 7L);
        assertThat(reader.skippedRecords()).isEqualTo(2);
        assertThat(reader.fences().isAborted(B0, 3)).isTrue();
    }

    @Test
    void skippedRecordsAddUpOverPolls() {
        fenceLog.record(new AbortedRange(B0, 0, 3));
        FencedStreamReader reader = new FencedStreamReader(source, fenceLog);
        assertThat(reader.skippedRecords()).isZero();
        source.batches.add(records(B0, 0, 2));
        source.batches.add(List.of());
        source.batches.add(records(B0, 2, 5));

        assertThat(reader.poll(TIMEOUT)).isEmpty();
        assertThat(reader.skippedRecords()).isEqualTo(2);
        assertThat(reader.poll(TIMEOUT)).isEmpty();
        assertThat(reader.skippedRecords()).isEqualTo(2);
        assertThat(offsets(reader.poll(TIMEOUT))).containsExactly(3L, 4L);
        assertThat(reader.skippedRecords()).isEqualTo(3);
    }

    @Test
    void delegatesSubscriptionsAndWakeupsToTheReader() {
        FencedStreamReader reader = new FencedStreamReader(source, fenceLog);

        reader.subscribe(B0, 5, StreamReader.NO_STOP_OFFSET);
        reader.subscribe(B1, 0, 10);
        reader.unsubscribe(B0);
        reader.wakeup();
        source.finished.add(B1);

        assertThat(source.subscriptions).containsExactly(Map.entry(B1, List.of(0L, 10L)));
        assertThat(source.wakeups).isEqualTo(1);
        assertThat(reader.finished()).containsExactly(B1);
    }

    @Test
    void closeClosesTheReaderAndTheFenceLog() {
        FencedStreamReader reader = new FencedStreamReader(source, fenceLog);

        reader.close();

        assertThat(source.closed).isTrue();
        assertThat(fenceLog.closed).isTrue();
    }

    @Test
    void closeClosesTheFenceLogEvenWhenTheReaderFailsToClose() {
        source.failOnClose = true;
        FencedStreamReader reader = new FencedStreamReader(source, fenceLog);

        assertThatThrownBy(reader::close)
                .isInstanceOf(StreamStoreException.class)
                .hasMessage("reader close failed");
        assertThat(fenceLog.closed).isTrue();
    }

    /**
     * Polls ask the fence log only for what it delivered on its own; the log is read to its end
     * when the reader starts, once per batch of subscriptions and when a read-committed reader
     * refreshes: requests in proportion to change, not to polls.
     */
    @Test
    void pollsReadOnlyDeliveredFencesAndSubscriptionsReadTheLogToItsEnd() {
        FencedStreamReader reader = new FencedStreamReader(source, fenceLog);
        assertThat(fenceLog.readNewCalls).isEqualTo(1);
        for (int i = 0; i < 100; i++) {
            source.batches.add(records(B0, i, i + 1));
        }
        for (int i = 0; i < 50; i++) {
            assertThat(reader.poll(TIMEOUT)).hasSize(1);
        }
        assertThat(fenceLog.readNewCalls).isEqualTo(1);

        // recorded but not yet delivered: a running reader may still return those records
        fenceLog.record(new AbortedRange(B0, 50, 60));
        assertThat(offsets(reader.poll(TIMEOUT))).containsExactly(50L);
        // delivered: applied from the next poll on, without a request
        fenceLog.delivered = 1;
        assertThat(reader.poll(TIMEOUT)).isEmpty();
        assertThat(fenceLog.readNewCalls).isEqualTo(1);

        // a log started after a fence was recorded never returns what the fence covers
        fenceLog.record(new AbortedRange(B1, 0, 2));
        reader.subscribe(
                List.of(
                        new StreamSubscription(B1, 0, 5),
                        new StreamSubscription(P1_B0, 0, StreamReader.NO_STOP_OFFSET)));
        assertThat(fenceLog.readNewCalls).isEqualTo(2);
        assertThat(source.subscriptions).containsKeys(B1, P1_B0);
        source.batches.addFirst(records(B1, 0, 5));
        assertThat(offsets(reader.poll(TIMEOUT))).containsExactly(2L, 3L, 4L);

        reader.refreshFences();
        assertThat(fenceLog.readNewCalls).isEqualTo(3);
    }

    /**
     * The fence log is read while the reader subscribes, not after: a subscription waits on the
     * store, and so does the fence read.
     */
    @Test
    void theFenceLogIsReadWhileTheReaderSubscribes() {
        FencedStreamReader reader = new FencedStreamReader(source, fenceLog);
        CountDownLatch fenceReadStarted = new CountDownLatch(1);
        fenceLog.readStarted = fenceReadStarted;
        source.subscribingWaitsFor = fenceReadStarted;
        fenceLog.record(new AbortedRange(B1, 0, 2));

        reader.subscribe(List.of(new StreamSubscription(B1, 0, 5)));

        assertThat(source.subscriptions).containsKeys(B1);
        source.batches.add(records(B1, 0, 5));
        assertThat(offsets(reader.poll(TIMEOUT))).containsExactly(2L, 3L, 4L);
    }

    /**
     * Logs planned before a read of the fence log started ahead are subscribed without a read of
     * their own, with every fence recorded before that read; a log read without end is not
     * subscribed that way.
     */
    @Test
    void plannedLogsWaitForTheReadStartedAheadInsteadOfReadingTheLogAgain() {
        FencedStreamReader reader = new FencedStreamReader(source, fenceLog);
        // recorded after the reader was created, before the split reader was given the split
        fenceLog.record(new AbortedRange(B1, 0, 2));
        reader.readFencesAhead();
        reader.subscribePlanned(List.of(new StreamSubscription(B1, 0, 5)));
        assertThat(fenceLog.readNewCalls).isEqualTo(2);
        source.batches.add(records(B1, 0, 5));
        assertThat(offsets(reader.poll(TIMEOUT))).containsExactly(2L, 3L, 4L);

        // a second planned batch after the same read asks nothing more
        reader.subscribePlanned(List.of(new StreamSubscription(B0, 0, 5)));
        assertThat(fenceLog.readNewCalls).isEqualTo(2);
        assertThat(source.subscriptions).containsKeys(B0, B1);

        assertThatThrownBy(
                        () ->
                                reader.subscribePlanned(
                                        List.of(
                                                new StreamSubscription(
                                                        P1_B0, 0, StreamReader.NO_STOP_OFFSET))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(P1_B0.toString());
        reader.close();
        assertThat(fenceLog.closed).isTrue();
    }

    /**
     * While a read started ahead runs, a poll leaves the fence log to it; once it ended, the poll
     * takes its fences without asking.
     */
    @Test
    void aPollLeavesTheFenceLogToAReadStartedAhead() throws Exception {
        FencedStreamReader reader = new FencedStreamReader(source, fenceLog);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        fenceLog.readStarted = started;
        fenceLog.readWaitsFor = release;
        fenceLog.record(new AbortedRange(B0, 1, 2));
        fenceLog.delivered = 1;
        reader.readFencesAhead();
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        source.batches.add(records(B0, 0, 1));
        assertThat(offsets(reader.poll(TIMEOUT))).containsExactly(0L);
        assertThat(fenceLog.pollNewCalls).isZero();

        release.countDown();
        Await.until(() -> fenceLog.readNewCalls == 2, "the read started ahead to end");
        source.batches.add(records(B0, 1, 3));
        assertThat(offsets(reader.poll(TIMEOUT))).containsExactly(2L);
        assertThat(fenceLog.pollNewCalls).isEqualTo(1);
        reader.close();
    }

    private static List<StreamRecord> records(
            PartitionBucket partitionBucket, long fromOffset, long toOffset) {
        return LongStream.range(fromOffset, toOffset)
                .mapToObj(
                        offset ->
                                new StreamRecord(
                                        partitionBucket,
                                        offset,
                                        1_000L + offset,
                                        GenericRow.of(offset)))
                .collect(Collectors.toList());
    }

    private static List<Long> offsets(List<StreamRecord> records) {
        return records.stream().map(StreamRecord::offset).collect(Collectors.toList());
    }

    private static Map<PartitionBucket, List<Long>> offsetsPerBucket(List<StreamRecord> records) {
        Map<PartitionBucket, List<Long>> offsets = new LinkedHashMap<>();
        for (StreamRecord record : records) {
            offsets.computeIfAbsent(record.partitionBucket(), pb -> new ArrayList<>())
                    .add(record.offset());
        }
        return offsets;
    }

    private static BinaryRow partition(int value) {
        return new InternalRowSerializer(DataTypes.INT()).toBinaryRow(GenericRow.of(value)).copy();
    }

    /** Returns one prepared batch per poll, then nothing. */
    private static final class InMemoryReader implements StreamReader {
        final Deque<List<StreamRecord>> batches = new ArrayDeque<>();
        final Map<PartitionBucket, List<Long>> subscriptions = new LinkedHashMap<>();
        final List<PartitionBucket> finished = new ArrayList<>();
        int wakeups;
        boolean failOnClose;
        boolean closed;

        /** When set, a subscription waits for it: a store call that takes a while. */
        volatile CountDownLatch subscribingWaitsFor;

        @Override
        public void subscribe(PartitionBucket partitionBucket, long startOffset, long stopOffset) {
            CountDownLatch waitFor = subscribingWaitsFor;
            if (waitFor != null) {
                try {
                    if (!waitFor.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException(
                                "the fence log was not read while the reader subscribed");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            subscriptions.put(partitionBucket, List.of(startOffset, stopOffset));
        }

        @Override
        public void unsubscribe(PartitionBucket partitionBucket) {
            subscriptions.remove(partitionBucket);
        }

        @Override
        public List<StreamRecord> poll(Duration timeout) {
            List<StreamRecord> batch = batches.poll();
            return batch == null ? List.of() : batch;
        }

        @Override
        public List<PartitionBucket> finished() {
            List<PartitionBucket> result = new ArrayList<>(finished);
            finished.clear();
            return result;
        }

        @Override
        public void wakeup() {
            wakeups++;
        }

        @Override
        public void close() {
            closed = true;
            if (failOnClose) {
                throw new StreamStoreException("reader close failed");
            }
        }
    }

    /**
     * A fence log of one process: recorded fences are seen by the next {@link #readNew}, and by
     * {@link #pollNew} once {@link #delivered} (as a store's subscription delivers them later).
     */
    private static final class InMemoryFenceLog implements FenceLog {
        final List<AbortedRange> recorded = new ArrayList<>();
        int readUpTo;
        int delivered;
        volatile int readNewCalls;
        boolean closed;

        int pollNewCalls;

        /** When set, a read to the log's end waits for it once it started. */
        volatile CountDownLatch readWaitsFor;

        @Override
        public List<AbortedRange> pollNew() {
            pollNewCalls++;
            int upTo = Math.max(readUpTo, Math.min(delivered, recorded.size()));
            List<AbortedRange> news = new ArrayList<>(recorded.subList(readUpTo, upTo));
            readUpTo = upTo;
            return news;
        }

        @Override
        public void recordAll(List<AbortedRange> ranges) {
            recorded.addAll(ranges);
        }

        /** Counted down when a read to the log's end starts. */
        volatile CountDownLatch readStarted;

        @Override
        public List<AbortedRange> readNew() {
            if (readStarted != null) {
                readStarted.countDown();
            }
            if (readWaitsFor != null) {
                try {
                    if (!readWaitsFor.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never let the read end");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            List<AbortedRange> news;
            synchronized (this) {
                news = new ArrayList<>(recorded.subList(readUpTo, recorded.size()));
                readUpTo = recorded.size();
            }
            readNewCalls++;
            return news;
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
