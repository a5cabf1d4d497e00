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

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamSubscription;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.WriterLeaseLog;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stream store of one process for split reader tests: a log per partition-bucket that tests
 * append to, a fence log they record fences in, a reader that records how it is subscribed, and a
 * switch that makes the store stop delivering records (an unreachable store) while it still answers
 * offset queries.
 */
final class InMemoryLogStore implements StreamStore {

    final Map<PartitionBucket, List<InternalRow>> logs = new HashMap<>();

    /** Every batch the reader was subscribed with, in order. */
    final List<List<StreamSubscription>> subscribeCalls = new ArrayList<>();

    volatile boolean delivering = true;

    /** How many times the store's end offsets were listed. */
    final AtomicInteger endListings = new AtomicInteger();

    /** When set, a listing of end offsets waits until it is counted down: a slow store. */
    volatile CountDownLatch endListingGate;

    /** The fence log: fences that tests record, read in order. */
    final List<AbortedRange> fences = new java.util.concurrent.CopyOnWriteArrayList<>();

    void append(PartitionBucket pb, InternalRow row) {
        logs.computeIfAbsent(pb, k -> new ArrayList<>()).add(row);
    }

    private long end(PartitionBucket pb) {
        return logs.getOrDefault(pb, Collections.emptyList()).size();
    }

    @Override
    public StreamReader createReader(StreamTable table) {
        return new Reader();
    }

    @Override
    public FenceLog openFenceLog(StreamTable table) {
        return new FenceLog() {
            @Override
            public void recordAll(List<AbortedRange> ranges) {
                throw new UnsupportedOperationException();
            }

            private int read;

            @Override
            public List<AbortedRange> readNew() {
                List<AbortedRange> fresh = new ArrayList<>(fences.subList(read, fences.size()));
                read += fresh.size();
                return fresh;
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public Map<PartitionBucket, Long> listOffsets(
            StreamTable table,
            Collection<PartitionBucket> partitionBuckets,
            OffsetPosition position) {
        if (position == OffsetPosition.LATEST) {
            endListings.incrementAndGet();
            CountDownLatch gate = endListingGate;
            if (gate != null) {
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
        Map<PartitionBucket, Long> offsets = new HashMap<>();
        for (PartitionBucket pb : partitionBuckets) {
            offsets.put(pb, position == OffsetPosition.EARLIEST ? 0L : end(pb));
        }
        return offsets;
    }

    @Override
    public void close() {}

    /** Reads the logs; records each subscribe call, a single one as a batch of one. */
    private final class Reader implements StreamReader {

        private final Map<PartitionBucket, long[]> positions = new LinkedHashMap<>();
        private final List<PartitionBucket> finished = new ArrayList<>();

        @Override
        public void subscribe(PartitionBucket partitionBucket, long startOffset, long stopOffset) {
            subscribe(
                    Collections.singletonList(
                            new StreamSubscription(partitionBucket, startOffset, stopOffset)));
        }

        @Override
        public void subscribe(List<StreamSubscription> subscriptions) {
            subscribeCalls.add(new ArrayList<>(subscriptions));
            for (StreamSubscription s : subscriptions) {
                positions.put(s.partitionBucket(), new long[] {s.startOffset(), s.stopOffset()});
            }
        }

        @Override
        public void unsubscribe(PartitionBucket partitionBucket) {
            positions.remove(partitionBucket);
        }

        @Override
        public List<StreamRecord> poll(Duration timeout) {
            List<StreamRecord> records = new ArrayList<>();
            if (!delivering) {
                sleep(timeout);
                return records;
            }
            List<PartitionBucket> done = new ArrayList<>();
            for (Map.Entry<PartitionBucket, long[]> entry : positions.entrySet()) {
                PartitionBucket pb = entry.getKey();
                long[] position = entry.getValue();
                List<InternalRow> log = logs.getOrDefault(pb, Collections.emptyList());
                while (position[0] < log.size() && position[0] < position[1]) {
                    records.add(
                            new StreamRecord(pb, position[0], 1_000L, log.get((int) position[0])));
                    position[0]++;
                }
                if (position[0] >= position[1]) {
                    done.add(pb);
                }
            }
            for (PartitionBucket pb : done) {
                positions.remove(pb);
                finished.add(pb);
            }
            if (records.isEmpty()) {
                sleep(timeout);
            }
            return records;
        }

        private void sleep(Duration timeout) {
            try {
                Thread.sleep(Math.min(timeout.toMillis(), 10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public List<PartitionBucket> finished() {
            List<PartitionBucket> result = new ArrayList<>(finished);
            finished.clear();
            return result;
        }

        @Override
        public void wakeup() {}

        @Override
        public void close() {}
    }

    @Override
    public StreamTable provision(StreamTableSpec spec) {
        throw new UnsupportedOperationException();
    }

    @Override
    public StreamTable get(StreamTableSpec spec) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean drop(Identifier paimonTable, StreamTableOwner owner) {
        throw new UnsupportedOperationException();
    }

    @Override
    public StreamWriter createWriter(StreamTable table) {
        throw new UnsupportedOperationException();
    }

    @Override
    public WriterLeaseLog openWriterLeaseLog(StreamTable table) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<BinaryRow> listPartitions(StreamTable table) {
        throw new UnsupportedOperationException();
    }
}
