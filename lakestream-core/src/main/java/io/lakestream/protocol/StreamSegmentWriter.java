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

package io.lakestream.protocol;

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamWriter;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowKind;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The store side of one writer of a dual write, as {@code docs/consistency.md} ("Writer") states
 * it: on {@link #start}, every partition-bucket the writer owns whose store end is past the offset
 * it was restored to (on a fresh start, past the table's tiered offset) is fenced, never below the
 * tiered offset of the table's latest snapshot, and the logs of a process-local store continue at
 * the offsets Paimon and the restored state hold; then {@link #write} sends each row Paimon wrote
 * to its partition-bucket's log, and {@link #seal} flushes the store and returns the segment
 * written since the previous seal, checked against what this writer wrote.
 *
 * <p>An engine's write operator calls it (the Flink sink from {@code prepareSnapshotPreBarrier}),
 * and so does the embedded writer; the engine keeps the writer lease, which must be held before
 * {@link #start} fences anything, and the restored end offsets in its own state.
 */
public final class StreamSegmentWriter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamSegmentWriter.class);

    private final StreamStore store;
    private final StreamTable streamTable;
    private final StreamWriter writer;
    private final SealedSegmentTracker tracker;

    /**
     * End offsets that a {@link #flush} between two seals reported: the store's writer reports a
     * partition-bucket once per flush, and the next seal must still see it.
     */
    private final Map<PartitionBucket, Long> flushedSinceSeal = new HashMap<>();

    private StreamSegmentWriter(
            StreamStore store,
            StreamTable streamTable,
            StreamWriter writer,
            SealedSegmentTracker tracker) {
        this.store = store;
        this.streamTable = streamTable;
        this.writer = writer;
        this.tracker = tracker;
    }

    /**
     * Fences what earlier attempts left in the partition-buckets this writer owns and opens the
     * store's writer. Call it while holding the table's writer lease.
     *
     * @param table the Paimon table, whose latest snapshot's offsets are the floor of every fence
     * @param restoredEndOffsets the end offsets of the last seal the engine's state holds; empty on
     *     a fresh start
     * @param owns whether this writer owns a partition-bucket (one writer per partition-bucket)
     */
    public static StreamSegmentWriter start(
            StreamStore store,
            StreamTable streamTable,
            FileStoreTable table,
            Map<PartitionBucket, Long> restoredEndOffsets,
            Predicate<PartitionBucket> owns) {
        StreamWriter writer = store.createWriter(streamTable);
        try {
            Map<PartitionBucket, Long> fencedFrom = new HashMap<>();
            Map<PartitionBucket, Long> ends =
                    fenceOwned(
                            store,
                            streamTable,
                            writer,
                            table,
                            restoredEndOffsets,
                            owns,
                            fencedFrom);
            return new StreamSegmentWriter(
                    store,
                    streamTable,
                    writer,
                    new SealedSegmentTracker(streamTable, ends, fencedFrom));
        } catch (RuntimeException e) {
            writer.close();
            throw e;
        }
    }

    private static Map<PartitionBucket, Long> fenceOwned(
            StreamStore store,
            StreamTable streamTable,
            StreamWriter writer,
            FileStoreTable table,
            Map<PartitionBucket, Long> restored,
            Predicate<PartitionBucket> owns,
            Map<PartitionBucket, Long> fencedFrom) {
        int numBuckets = streamTable.spec().numBuckets();
        Set<PartitionBucket> owned = new LinkedHashSet<>();
        for (BinaryRow partition : store.listPartitions(streamTable)) {
            for (int bucket = 0; bucket < numBuckets; bucket++) {
                PartitionBucket pb = new PartitionBucket(partition, bucket);
                if (owns.test(pb)) {
                    owned.add(pb);
                }
            }
        }
        StreamOffsets tiered =
                SnapshotOffsets.ofLatestSnapshot(table).orElse(StreamOffsets.empty());
        if (store.isProcessLocal()) {
            // the store's logs started empty with this process: the partition-buckets to continue
            // are those the restored state and the table's snapshots know, not the store's
            Set<PartitionBucket> known = new HashSet<>(restored.keySet());
            known.addAll(tiered.asMap().keySet());
            for (PartitionBucket pb : known) {
                if (pb.bucket() < numBuckets && owns.test(pb)) {
                    owned.add(pb);
                }
            }
        }
        if (owned.isEmpty()) {
            return new HashMap<>();
        }
        Map<PartitionBucket, Long> ends =
                new HashMap<>(store.listOffsets(streamTable, owned, OffsetPosition.LATEST));
        if (store.isProcessLocal()) {
            continueLogs(store, streamTable, writer, owned, ends, restored, tiered);
        }
        List<AbortedRange> toFence = new ArrayList<>();
        for (PartitionBucket pb : owned) {
            long end = ends.get(pb);
            long base = FenceBase.of(restored.get(pb), tiered.offsetOr(pb, 0L), end);
            fencedFrom.put(pb, Math.min(base, end));
            if (end < base) {
                throw new IllegalStateException(
                        String.format(
                                "The stream store holds %d records of %s of table %s, fewer "
                                        + "than the %d that were committed: the stream table "
                                        + "lost records.",
                                end, streamTable.spec().describe(pb), streamTable.spec(), base));
            }
            if (end > base) {
                toFence.add(new AbortedRange(pb, base, end));
            }
        }
        if (!toFence.isEmpty()) {
            // all fences of this start in one call: one request and one wait for durability
            // instead of one per partition-bucket; it returns only once every reader can see
            // them, so they are durable before this writer writes its first record
            try (FenceLog fences = store.openFenceLog(streamTable)) {
                fences.recordAll(toFence);
            }
            for (AbortedRange fence : toFence) {
                LOG.info(
                        "Fenced offsets [{}, {}) of {} of table {} before writing again.",
                        fence.startOffset(),
                        fence.endOffset(),
                        streamTable.spec().describe(fence.partitionBucket()),
                        streamTable.spec());
            }
        }
        return ends;
    }

    /**
     * Tells each log of a process-local store that ends below the offset this writer writes from to
     * continue there (see {@link StreamWriter#continueAt}), and updates {@code ends} to the store's
     * ends after that.
     */
    private static void continueLogs(
            StreamStore store,
            StreamTable streamTable,
            StreamWriter writer,
            Set<PartitionBucket> owned,
            Map<PartitionBucket, Long> ends,
            Map<PartitionBucket, Long> restored,
            StreamOffsets tiered) {
        List<PartitionBucket> continued = new ArrayList<>();
        for (PartitionBucket pb : owned) {
            // not FenceBase's rule for a log that is shorter than the restored offset (a dropped
            // and recreated partition): a log of this process is short because it is new, and
            // the restored committer may commit the restored offsets after this writer started
            Long restoredEnd = restored.get(pb);
            long base = Math.max(restoredEnd == null ? 0L : restoredEnd, tiered.offsetOr(pb, 0L));
            if (ends.get(pb) < base) {
                writer.continueAt(pb, base);
                continued.add(pb);
            }
        }
        if (!continued.isEmpty()) {
            ends.putAll(store.listOffsets(streamTable, continued, OffsetPosition.LATEST));
            LOG.info(
                    "Continued {} logs of table {} in this process's stream store at the offsets "
                            + "that Paimon's snapshots and the writer's state hold.",
                    continued.size(),
                    streamTable.spec());
        }
    }

    /**
     * Sends a row Paimon wrote, with the kind Paimon wrote it with, to the log of its
     * partition-bucket, where it is readable at once.
     */
    public void write(BinaryRow partition, int bucket, RowKind kind, InternalRow row) {
        writer.write(tracker.recordWritten(partition, bucket), kind, row);
    }

    /**
     * Flushes the store without sealing: every row written so far is then readable by readers of
     * any process. The segment stays open; the next {@link #seal} covers these rows as well.
     *
     * @throws io.lakestream.store.StreamStoreException when a record could not be written
     */
    public void flush() {
        flushedSinceSeal.putAll(writer.flush());
    }

    /**
     * Flushes the store and returns the segment written since the previous seal (partition-buckets
     * written since, with where their segment starts and ends), or null when nothing was written.
     *
     * @param subtask the writer's index among the engine's writers of the table
     * @param beforeCheck run after the flush and before the check, where the engine checks that it
     *     still holds the writer lease: offsets reach the committer only while the writer does
     * @throws IllegalStateException when a log ends past what this writer wrote: another writer
     *     writes the table
     */
    public Sealed seal(int subtask, Runnable beforeCheck) {
        flush();
        Map<PartitionBucket, Long> sealed = new HashMap<>(flushedSinceSeal);
        flushedSinceSeal.clear();
        beforeCheck.run();
        long records = tracker.checkSealed(sealed);
        Map<PartitionBucket, Long> starts = tracker.takeSegmentStarts(sealed);
        return new Sealed(
                new SealedSegment(subtask, StreamOffsets.of(starts), StreamOffsets.of(sealed)),
                records);
    }

    /** The store end offset of every owned partition-bucket, as of the last seal or start. */
    public Map<PartitionBucket, Long> endOffsets() {
        return tracker.endOffsets();
    }

    /** How many partition-buckets this writer owns and has seen. */
    public int ownedPartitionBuckets() {
        return tracker.size();
    }

    @Override
    public void close() {
        writer.close();
    }

    /** What one seal returns: the segment and how many records it holds. */
    public static final class Sealed {
        private final SealedSegment segment;
        private final long records;

        Sealed(SealedSegment segment, long records) {
            this.segment = segment;
            this.records = records;
        }

        /** The segment: empty end offsets when nothing was written since the previous seal. */
        public SealedSegment segment() {
            return segment;
        }

        /** The records written since the previous seal. */
        public long records() {
            return records;
        }

        /** Whether a partition-bucket was written since the previous seal. */
        public boolean isEmpty() {
            return segment.endOffsets().asMap().isEmpty();
        }
    }
}
