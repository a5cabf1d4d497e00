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

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamTable;

import org.apache.paimon.data.BinaryRow;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps, per partition-bucket a write subtask owns, the store end offset it expects: the end it
 * found on start plus the records it wrote since. Because each partition-bucket has one writer, the
 * end offsets the store reports at a flush must equal these; a larger one means that another job
 * writes the same table, which would break the offsets of every snapshot, so it fails the job.
 *
 * <p>{@link #recordWritten} runs once per record, so it allocates nothing once a partition-bucket
 * has been seen: counts are primitive longs in an array per partition indexed by bucket, the
 * partition is looked up by the content of Paimon's reused partition row (no lookup key is built),
 * and the partition-bucket it returns is the same object every time. Boxed offsets appear only at a
 * seal, once per partition-bucket written.
 */
public final class SealedSegmentTracker {

    private final StreamTable table;
    private final Map<PartitionBucket, Long> endOffsets;

    /**
     * Per partition-bucket, where its next segment starts: the end sealed at the previous barrier,
     * or the offset fenced from at start; absent for partition-buckets new to the store (offset 0).
     */
    private final Map<PartitionBucket, Long> segmentStarts;

    /** Per partition written by this subtask, its counters; keyed by a copy of the partition. */
    private final Map<BinaryRow, PartitionCounts> partitions = new HashMap<>();

    /** The partition of the previous record: rows of one partition often follow each other. */
    private PartitionCounts lastPartition;

    /**
     * @param startOffsets the store's end of each owned partition-bucket on start, after fencing
     * @param fencedFrom the offset from which each owned partition-bucket was fenced, or its end
     *     when nothing was: where its first segment starts
     */
    public SealedSegmentTracker(
            StreamTable table,
            Map<PartitionBucket, Long> startOffsets,
            Map<PartitionBucket, Long> fencedFrom) {
        this.table = table;
        // read by metric gauges from the reporter thread
        this.endOffsets = new ConcurrentHashMap<>(startOffsets);
        this.segmentStarts = new HashMap<>(fencedFrom);
    }

    /**
     * Returns where the segments that end at {@code sealed} start, and makes those ends the starts
     * of the next segments. Called once per barrier, after {@link #checkSealed}.
     */
    public Map<PartitionBucket, Long> takeSegmentStarts(Map<PartitionBucket, Long> sealed) {
        Map<PartitionBucket, Long> starts = new HashMap<>();
        for (Map.Entry<PartitionBucket, Long> end : sealed.entrySet()) {
            starts.put(end.getKey(), segmentStarts.getOrDefault(end.getKey(), 0L));
            segmentStarts.put(end.getKey(), end.getValue());
        }
        return starts;
    }

    /**
     * Counts one record written to a partition-bucket and returns the partition-bucket, as a key
     * that stays valid after Paimon reuses {@code partition}; the same object for the same
     * partition-bucket every time.
     */
    public PartitionBucket recordWritten(BinaryRow partition, int bucket) {
        PartitionCounts counts = lastPartition;
        // compares content: Paimon overwrites the same partition row object in place
        if (counts == null || !PartitionBucket.samePartition(counts.partition, partition)) {
            counts = partitions.get(partition);
            if (counts == null) {
                counts = new PartitionCounts(partition.copy(), table.spec().numBuckets());
                partitions.put(counts.partition, counts);
            }
            lastPartition = counts;
        }
        return counts.add(bucket);
    }

    /**
     * Checks the end offsets a flush reported against the expected ones, adopts them, and returns
     * the number of records sealed. Nothing is adopted when a check fails.
     */
    public long checkSealed(Map<PartitionBucket, Long> sealed) {
        long records = 0;
        Map<PartitionBucket, Long> adopted = new HashMap<>();
        for (PartitionCounts counts : partitions.values()) {
            for (int bucket = 0; bucket < counts.written.length; bucket++) {
                long written = counts.written[bucket];
                if (written == 0) {
                    continue;
                }
                PartitionBucket pb = counts.keys[bucket];
                records += written;
                long expected = endOffsets.getOrDefault(pb, 0L) + written;
                Long actual = sealed.get(pb);
                if (actual != null && actual < expected && actual == written) {
                    // the log holds exactly what was written since the previous barrier: its
                    // partition was dropped (every record committed) and the writer created it
                    // anew for these records, a new log from offset 0
                    adopted.put(pb, actual);
                    segmentStarts.put(pb, 0L);
                    continue;
                }
                if (actual == null || actual != expected) {
                    throw new IllegalStateException(
                            unexpectedEnd(pb, endOffsets.getOrDefault(pb, 0L), expected, actual));
                }
                adopted.put(pb, expected);
            }
        }
        endOffsets.putAll(adopted);
        for (PartitionCounts counts : partitions.values()) {
            Arrays.fill(counts.written, 0L);
        }
        return records;
    }

    /**
     * Says what an unexpected end offset means. A larger one is the only trace a foreign writer
     * leaves, and the writer is often not another job: a task of this job's earlier attempt, on a
     * TaskManager cut off from the JobManager, keeps appending after this attempt fenced and
     * started, until its TaskManager notices the lost JobManager and cancels it.
     */
    private String unexpectedEnd(
            PartitionBucket pb, long sealedBefore, long expected, Long actual) {
        String where =
                String.format(
                        "The stream store reports end offset %s for %s of table %s, but this "
                                + "writer expected %d (sealed at %d at the previous barrier, plus "
                                + "%d records written since)",
                        actual,
                        table.spec().describe(pb),
                        table.spec(),
                        expected,
                        sealedBefore,
                        expected - sealedBefore);
        if (actual == null) {
            return where + ": the store did not report the partition-bucket after a flush.";
        }
        if (actual < expected) {
            return where
                    + String.format(
                            ": the store holds %d records fewer than this writer wrote, so it lost "
                                    + "acknowledged records, or the stream table was dropped and "
                                    + "created again while the job ran.",
                            expected - actual);
        }
        return where
                + String.format(
                        ": %d of the records in [%d, %d) were appended by another writer "
                                + "after this attempt fenced the partition-bucket and started "
                                + "writing. Another job (or another sink) may write the same "
                                + "table, or a task of an earlier attempt of this job still runs: "
                                + "a TaskManager cut off from the JobManager writes on until it "
                                + "notices, within Flink's 'heartbeat.timeout', and cancels its "
                                + "tasks. One writer per partition-bucket may write. The job "
                                + "restarts from its last checkpoint, which fences these "
                                + "records; nothing past that checkpoint was committed. If it "
                                + "fails this way again, CALL sys.lake_stream_status shows which "
                                + "job holds the table's writer lease.",
                        actual - expected, sealedBefore, actual);
    }

    public Map<PartitionBucket, Long> endOffsets() {
        return endOffsets;
    }

    public int size() {
        return endOffsets.size();
    }

    /** The counters of one partition, indexed by bucket. */
    private static final class PartitionCounts {

        private final BinaryRow partition;
        private PartitionBucket[] keys;
        private long[] written;

        private PartitionCounts(BinaryRow partition, int numBuckets) {
            this.partition = partition;
            this.keys = new PartitionBucket[numBuckets];
            this.written = new long[numBuckets];
        }

        private PartitionBucket add(int bucket) {
            if (bucket >= written.length) {
                // not expected for a fixed-bucket table; grown rather than refused, because the
                // count is only bookkeeping and the flush check names any mismatch
                keys = Arrays.copyOf(keys, bucket + 1);
                written = Arrays.copyOf(written, bucket + 1);
            }
            PartitionBucket key = keys[bucket];
            if (key == null) {
                key = new PartitionBucket(partition, bucket);
                keys[bucket] = key;
            }
            written[bucket]++;
            return key;
        }
    }
}
