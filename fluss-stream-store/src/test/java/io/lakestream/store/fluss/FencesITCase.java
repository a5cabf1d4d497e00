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

package io.lakestream.store.fluss;

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamSubscription;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.testutils.Await;

import org.apache.paimon.bucket.DefaultBucketFunction;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static io.lakestream.store.fluss.FlussStreamRoundTripITCase.partition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fences across store instances, each with its own Fluss connection as separate processes have
 * them: what one records, another sees (through a fence log opened before or after), a fenced
 * reader skips exactly the fenced offsets of the fenced partition-bucket, and dropping the stream
 * table drops its fences.
 */
@ExtendWith(SharedFlussCluster.class)
class FencesITCase {

    private static final int BUCKETS = 2;

    /** The store of the restored writer, which records the fences. */
    private static StreamStore writingStore;

    /** The store of another process, which reads them. */
    private static StreamStore readingStore;

    @BeforeAll
    static void open() {
        writingStore = SharedFlussCluster.newStore();
        readingStore = SharedFlussCluster.newStore();
    }

    @AfterAll
    static void close() {
        writingStore.close();
        readingStore.close();
    }

    private static StreamTableSpec spec(String table) {
        return new StreamTableSpec(
                Identifier.create("fences_it", table),
                RowType.of(
                        new org.apache.paimon.types.DataType[] {
                            DataTypes.INT().notNull(),
                            DataTypes.STRING(),
                            DataTypes.STRING().notNull()
                        },
                        new String[] {"id", "attempt", "dt"}),
                Collections.singletonList("dt"),
                Collections.singletonList("id"),
                Collections.emptyList(),
                BUCKETS);
    }

    /** The first {@code count} ids that Paimon (and so the store) puts into {@code bucket}. */
    private static List<Integer> idsOfBucket(int bucket, int count) {
        List<Integer> ids = new ArrayList<>();
        for (int id = 0; ids.size() < count; id++) {
            BinaryRow key = new BinaryRow(1);
            BinaryRowWriter writer = new BinaryRowWriter(key);
            writer.writeInt(0, id);
            writer.complete();
            if (new DefaultBucketFunction().bucket(key, BUCKETS) == bucket) {
                ids.add(id);
            }
        }
        return ids;
    }

    /**
     * Writes {@code count} rows of one attempt to a partition-bucket, from its {@code from}th id.
     */
    private static void write(
            StreamWriter writer, PartitionBucket pb, int from, int count, String attempt) {
        List<Integer> ids = idsOfBucket(pb.bucket(), from + count);
        String dt = pb.partition().getString(0).toString();
        for (int i = from; i < from + count; i++) {
            writer.write(
                    pb,
                    GenericRow.of(
                            ids.get(i),
                            BinaryString.fromString(attempt),
                            BinaryString.fromString(dt)));
        }
    }

    /**
     * A failover: the first attempt writes 10 rows, its checkpoint covers them, it writes 5 more
     * and fails; the restored writer fences [10, 15) and writes 5 rows of its own. Another process
     * then reads with a fenced reader from offset 0.
     */
    @Test
    void aFencedReaderOfAnotherStoreSkipsExactlyTheFencedOffsets() {
        StreamTable table = writingStore.provision(spec("failover"));
        PartitionBucket fenced = new PartitionBucket(partition("a"), 0);
        PartitionBucket sameBucketOtherPartition = new PartitionBucket(partition("b"), 0);
        PartitionBucket otherBucketSamePartition = new PartitionBucket(partition("a"), 1);
        List<PartitionBucket> all =
                Arrays.asList(fenced, sameBucketOtherPartition, otherBucketSamePartition);
        try (StreamWriter writer = writingStore.createWriter(table);
                FenceLog fences = writingStore.openFenceLog(table)) {
            for (PartitionBucket pb : all) {
                write(writer, pb, 0, 10, "first");
            }
            assertThat(writer.flush()).containsOnly(ends(all, 10L));
            // the first attempt goes on past its last checkpoint, then fails
            for (PartitionBucket pb : all) {
                write(writer, pb, 10, 5, "failed");
            }
            assertThat(writer.flush()).containsOnly(ends(all, 15L));
            // the restored writer fences what the failed attempt wrote to its bucket
            fences.record(new AbortedRange(fenced, 10, 15));
            for (PartitionBucket pb : all) {
                write(writer, pb, 15, 5, "restored");
            }
            assertThat(writer.flush()).containsOnly(ends(all, 20L));
        }

        StreamTable seenByReader = readingStore.get(spec("failover"));
        assertThat(seenByReader).isEqualTo(table);
        Map<PartitionBucket, List<Long>> offsets = new HashMap<>();
        Map<PartitionBucket, List<String>> attempts = new HashMap<>();
        long skipped;
        try (FencedStreamReader reader =
                new FencedStreamReader(
                        readingStore.createReader(seenByReader),
                        readingStore.openFenceLog(seenByReader))) {
            for (PartitionBucket pb : all) {
                reader.subscribe(pb, 0, 20);
            }
            int finished = 0;
            long deadline = System.currentTimeMillis() + 60_000;
            while (finished < all.size() && System.currentTimeMillis() < deadline) {
                for (StreamRecord record : reader.poll(Duration.ofMillis(200))) {
                    offsets.computeIfAbsent(record.partitionBucket(), k -> new ArrayList<>())
                            .add(record.offset());
                    attempts.computeIfAbsent(record.partitionBucket(), k -> new ArrayList<>())
                            .add(record.row().getString(1).toString());
                }
                finished += reader.finished().size();
            }
            assertThat(finished).as("partition-buckets read to their end").isEqualTo(all.size());
            skipped = reader.skippedRecords();
        }

        assertThat(offsets.get(fenced))
                .containsExactlyElementsOf(
                        concat(LongStream.range(0, 10), LongStream.range(15, 20)));
        assertThat(attempts.get(fenced)).doesNotContain("failed").hasSize(15);
        // the same offsets of the same bucket of another partition, and of another bucket of the
        // same partition, are not fenced
        for (PartitionBucket pb :
                Arrays.asList(sameBucketOtherPartition, otherBucketSamePartition)) {
            assertThat(offsets.get(pb))
                    .as("offsets of %s", pb)
                    .containsExactlyElementsOf(concat(LongStream.range(0, 20)));
            assertThat(attempts.get(pb)).as("attempts of %s", pb).contains("failed");
        }
        assertThat(skipped).isEqualTo(5);
    }

    /**
     * A fence log opened by another store before a fence is recorded sees it on its next {@code
     * readNew}, after all older fences on its first call; a fence log of a store created after the
     * fences were recorded sees them all. Every fence keeps its partition and bucket.
     */
    @Test
    void fencesRecordedByOneStoreAreSeenByFenceLogsOfOthersOpenedBeforeAndAfter() {
        StreamTable table = writingStore.provision(spec("shared_fences"));
        AbortedRange older = new AbortedRange(new PartitionBucket(partition("a"), 0), 10, 15);
        AbortedRange recordedWhileOpen =
                new AbortedRange(new PartitionBucket(partition("b"), 1), 3, 4);
        AbortedRange recordedAfterFirstRead =
                new AbortedRange(new PartitionBucket(partition("a"), 1), 100, 250);
        try (FenceLog recorder = writingStore.openFenceLog(table)) {
            recorder.record(older);
            try (FenceLog openEarly = readingStore.openFenceLog(readingStore.get(table.spec()))) {
                recorder.record(recordedWhileOpen);
                assertThat(openEarly.readNew()).containsExactly(older, recordedWhileOpen);
                assertThat(openEarly.readNew()).as("nothing new").isEmpty();
                recorder.record(recordedAfterFirstRead);
                List<AbortedRange> incremental = openEarly.readNew();
                assertThat(incremental).containsExactly(recordedAfterFirstRead);
                // the partition came back as the Paimon partition row it was recorded with
                assertThat(incremental.get(0).partitionBucket().partition().getString(0))
                        .hasToString("a");
                assertThat(openEarly.readNew()).as("nothing new").isEmpty();
            }
        }
        try (StreamStore openedAfterwards = SharedFlussCluster.newStore();
                FenceLog late = openedAfterwards.openFenceLog(openedAfterwards.get(table.spec()))) {
            List<AbortedRange> all = late.readNew();
            assertThat(all).containsExactly(older, recordedWhileOpen, recordedAfterFirstRead);
            assertThat(
                            all.stream()
                                    .map(r -> r.partitionBucket().partition().getString(0))
                                    .map(Object::toString)
                                    .collect(Collectors.toList()))
                    .containsExactly("a", "b", "a");
            assertThat(late.readNew()).isEmpty();
        }
    }

    /**
     * A restored writer records the fences of all its partition-buckets with one call: when it
     * returns, a fence log of another store sees every one of them, in order, with its partition
     * and bucket; an empty call records nothing.
     */
    @Test
    void fencesRecordedInOneCallAreAllSeenInOrderByAnotherStore() {
        StreamTable table = writingStore.provision(spec("fences_in_one_call"));
        List<AbortedRange> ranges = new ArrayList<>();
        for (String dt : Arrays.asList("a", "b", "c")) {
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                ranges.add(
                        new AbortedRange(
                                new PartitionBucket(partition(dt), bucket),
                                10L * bucket,
                                10L * bucket + dt.charAt(0)));
            }
        }
        try (FenceLog recorder = writingStore.openFenceLog(table)) {
            recorder.recordAll(Collections.emptyList());
            recorder.recordAll(ranges);
        }
        try (FenceLog reader = readingStore.openFenceLog(readingStore.get(table.spec()))) {
            List<AbortedRange> seen = reader.readNew();
            assertThat(seen).containsExactlyElementsOf(ranges);
            assertThat(
                            seen.stream()
                                    .map(r -> r.partitionBucket().partition().getString(0))
                                    .map(Object::toString)
                                    .collect(Collectors.toList()))
                    .containsExactly("a", "a", "b", "b", "c", "c");
            assertThat(reader.readNew()).isEmpty();
        }
    }

    /**
     * A fence log of another store that is open when a fence is recorded delivers it to {@code
     * pollNew}, which never waits on the cluster: readers re-read fences only when the log grew.
     * What {@code pollNew} returned is not returned again by {@code readNew}.
     */
    @Test
    void aFenceRecordedWhileAFenceLogIsOpenReachesItsPollNew() throws Exception {
        StreamTable table = writingStore.provision(spec("fence_signal"));
        AbortedRange range = new AbortedRange(new PartitionBucket(partition("a"), 1), 4, 9);
        try (FenceLog recorder = writingStore.openFenceLog(table);
                FenceLog open = readingStore.openFenceLog(readingStore.get(table.spec()))) {
            assertThat(open.readNew()).isEmpty();
            long start = System.nanoTime();
            assertThat(open.pollNew()).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("a poll of a log that did not grow waits for nothing")
                    .isLessThan(Duration.ofMillis(100));
            recorder.record(range);
            List<AbortedRange> polled = new ArrayList<>();
            Await.until(
                    () -> polled.addAll(open.pollNew()) || !polled.isEmpty(),
                    "the open fence log delivers the recorded fence");
            assertThat(polled).containsExactly(range);
            assertThat(open.pollNew()).isEmpty();
            assertThat(open.readNew()).isEmpty();
        }
    }

    /**
     * One batched subscription starts partition-buckets of several partitions at their offsets,
     * finishes empty ranges at once, keeps a partition that does not exist yet pending until it is
     * written, and skips a fence recorded before it; a start offset outside what the store holds
     * fails the batch naming the partition-bucket, or for a bounded range the first poll.
     */
    @Test
    void aBatchOfSubscriptionsStartsEveryPartitionBucketAtItsOffset() throws Exception {
        StreamTable table = writingStore.provision(spec("batched_subscribe"));
        PartitionBucket a0 = new PartitionBucket(partition("a"), 0);
        PartitionBucket a1 = new PartitionBucket(partition("a"), 1);
        PartitionBucket b0 = new PartitionBucket(partition("b"), 0);
        PartitionBucket b1 = new PartitionBucket(partition("b"), 1);
        PartitionBucket c0 = new PartitionBucket(partition("c"), 0);
        try (StreamWriter writer = writingStore.createWriter(table);
                FenceLog fences = writingStore.openFenceLog(table)) {
            for (PartitionBucket pb : Arrays.asList(a0, a1, b0, b1)) {
                write(writer, pb, 0, 10, "first");
            }
            writer.flush();
            fences.record(new AbortedRange(a0, 3, 5));
        }
        StreamTable seen = readingStore.get(table.spec());
        Map<PartitionBucket, List<Long>> offsets = new HashMap<>();
        try (FencedStreamReader reader =
                        new FencedStreamReader(
                                readingStore.createReader(seen), readingStore.openFenceLog(seen));
                StreamWriter writer = writingStore.createWriter(table)) {
            reader.subscribe(
                    Arrays.asList(
                            new StreamSubscription(a0, 0, 10),
                            new StreamSubscription(a1, 2, 10),
                            new StreamSubscription(b0, 0, StreamReader.NO_STOP_OFFSET),
                            new StreamSubscription(b1, 10, 10),
                            new StreamSubscription(c0, 0, StreamReader.NO_STOP_OFFSET)));
            List<PartitionBucket> finished = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 60_000;
            boolean cWritten = false;
            while (System.currentTimeMillis() < deadline
                    && offsets.getOrDefault(c0, List.of()).size() < 3) {
                for (StreamRecord record : reader.poll(Duration.ofMillis(200))) {
                    offsets.computeIfAbsent(record.partitionBucket(), k -> new ArrayList<>())
                            .add(record.offset());
                }
                finished.addAll(reader.finished());
                if (!cWritten && offsets.getOrDefault(b0, List.of()).size() == 10) {
                    write(writer, c0, 0, 3, "first");
                    writer.flush();
                    cWritten = true;
                }
            }
            assertThat(finished).containsExactlyInAnyOrder(a0, a1, b1);
            assertThat(offsets.get(a0))
                    .containsExactlyElementsOf(
                            concat(LongStream.range(0, 3), LongStream.range(5, 10)));
            assertThat(offsets.get(a1)).containsExactlyElementsOf(concat(LongStream.range(2, 10)));
            assertThat(offsets.get(b0)).containsExactlyElementsOf(concat(LongStream.range(0, 10)));
            assertThat(offsets.get(c0)).containsExactly(0L, 1L, 2L);
            assertThat(offsets).doesNotContainKey(b1);

            assertThatThrownBy(
                            () ->
                                    reader.subscribe(
                                            Arrays.asList(
                                                    new StreamSubscription(a1, 0, 10),
                                                    new StreamSubscription(
                                                            b1, 11, StreamReader.NO_STOP_OFFSET))))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("Offset 11 of " + b1)
                    .hasMessageContaining("out of range");
        }
        // a bounded range is started unchecked: the store's fetch refuses it, and the poll fails
        // as the subscription would have, naming the partition-bucket and what the store holds
        try (StreamReader reader = readingStore.createReader(seen)) {
            reader.subscribe(Collections.singletonList(new StreamSubscription(b1, 12, 20)));
            assertThatThrownBy(
                            () -> {
                                long deadline = System.currentTimeMillis() + 60_000;
                                while (System.currentTimeMillis() < deadline) {
                                    reader.poll(Duration.ofMillis(200));
                                }
                            })
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("Offset 12 of " + b1)
                    .hasMessageContaining("out of range: the store holds offsets [0, 10)");
        }
    }

    @Test
    void droppingTheStreamTableDropsItsFences() {
        StreamTable table = writingStore.provision(spec("dropped"));
        AbortedRange range = new AbortedRange(new PartitionBucket(partition("a"), 0), 0, 7);
        try (FenceLog fences = writingStore.openFenceLog(table)) {
            fences.record(range);
        }
        try (FenceLog fences = readingStore.openFenceLog(readingStore.get(table.spec()))) {
            assertThat(fences.readNew()).containsExactly(range);
        }

        assertThat(writingStore.drop(table.spec().identifier(), null)).isTrue();
        StreamTable recreated = writingStore.provision(spec("dropped"));
        assertThat(recreated.storeTableId()).isNotEqualTo(table.storeTableId());
        try (FenceLog fences = readingStore.openFenceLog(readingStore.get(table.spec()))) {
            assertThat(fences.readNew()).as("fences of the re-provisioned table").isEmpty();
        }
        // the fences of the old incarnation are not reachable through its stale handle either
        assertThatThrownBy(() -> readingStore.openFenceLog(table))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("was dropped and created again");
    }

    private static Map.Entry<PartitionBucket, Long>[] ends(List<PartitionBucket> pbs, long end) {
        @SuppressWarnings("unchecked")
        Map.Entry<PartitionBucket, Long>[] entries = new Map.Entry[pbs.size()];
        for (int i = 0; i < pbs.size(); i++) {
            entries[i] = Map.entry(pbs.get(i), end);
        }
        return entries;
    }

    private static List<Long> concat(LongStream... ranges) {
        return Arrays.stream(ranges).flatMap(LongStream::boxed).collect(Collectors.toList());
    }
}
