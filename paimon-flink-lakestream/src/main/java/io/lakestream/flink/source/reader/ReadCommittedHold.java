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

import io.lakestream.offsets.AbortedRanges;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.StreamRecord;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;

import javax.annotation.Nullable;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The store records a read-committed reader fetched but may not return yet: those at or above the
 * committed offset of their partition-bucket, kept in offset order until a commit covers them.
 *
 * <p>A record that a fence covers is dropped whatever the committed offset: no snapshot ever
 * commits it (the tail of a cancelled job, fenced by the next writer's start, in a partition-bucket
 * no job writes again). The hold keeps at most {@code maxHeld} records ({@code
 * lake-stream.read.committed.max-held-records}): when full, the partition-bucket holding the most
 * is <em>paused</em>: its records are dropped and its log is to be unsubscribed, and it resumes,
 * from the first record dropped, once a commit covers a record there that no fence covers. So
 * memory stays bounded and a full hold never stops the reader from following the other
 * partition-buckets; a paused one costs a second read of what it had fetched.
 */
@Internal
final class ReadCommittedHold {

    private final CommittedOffsets committed;
    private final int maxHeld;
    private final Map<PartitionBucket, ArrayDeque<StreamRecord>> held = new HashMap<>();

    /** Paused partition-buckets and the offset each resumes from. */
    private final Map<PartitionBucket, Long> paused = new LinkedHashMap<>();

    private int heldCount;

    ReadCommittedHold(CommittedOffsets committed, int maxHeld) {
        this.committed = committed;
        this.maxHeld = maxHeld;
    }

    /** Whether {@code record} must wait for a commit; if so it is held. */
    boolean holds(StreamRecord record) {
        PartitionBucket pb = record.partitionBucket();
        if (held.containsKey(pb) || record.offset() >= committed.of(pb)) {
            held.computeIfAbsent(pb, k -> new ArrayDeque<>()).add(record);
            heldCount++;
            return true;
        }
        return false;
    }

    CommittedOffsets committed() {
        return committed;
    }

    boolean isFull() {
        return heldCount >= maxHeld;
    }

    int heldCount() {
        return heldCount;
    }

    /** Whether nothing is held and no log is paused: a new snapshot then has nothing to drop. */
    boolean isIdle() {
        return heldCount == 0 && paused.isEmpty();
    }

    /** Whether the log of {@code pb} is paused; records of it still arriving are ignored. */
    boolean isPaused(PartitionBucket pb) {
        return paused.containsKey(pb);
    }

    /** Drops every held record that {@code fences} cover: no commit will ever release it. */
    void dropFenced(AbortedRanges fences) {
        Iterator<Map.Entry<PartitionBucket, ArrayDeque<StreamRecord>>> entries =
                held.entrySet().iterator();
        while (entries.hasNext()) {
            Map.Entry<PartitionBucket, ArrayDeque<StreamRecord>> entry = entries.next();
            ArrayDeque<StreamRecord> queue = entry.getValue();
            int before = queue.size();
            queue.removeIf(record -> fences.isAborted(entry.getKey(), record.offset()));
            heldCount -= before - queue.size();
            if (queue.isEmpty()) {
                entries.remove();
            }
        }
    }

    /**
     * Pauses the partition-bucket that holds the most records: drops them and returns it, for its
     * log to be unsubscribed; null when nothing is held.
     */
    @Nullable
    PartitionBucket pauseLargest() {
        PartitionBucket largest = null;
        int most = 0;
        for (Map.Entry<PartitionBucket, ArrayDeque<StreamRecord>> entry : held.entrySet()) {
            if (entry.getValue().size() > most) {
                most = entry.getValue().size();
                largest = entry.getKey();
            }
        }
        if (largest != null) {
            ArrayDeque<StreamRecord> queue = held.remove(largest);
            paused.put(largest, queue.peek().offset());
            heldCount -= queue.size();
        }
        return largest;
    }

    /**
     * The paused partition-buckets that a commit has reached, each with the offset its log resumes
     * from (past what {@code fences} cover), no longer paused once returned.
     */
    Map<PartitionBucket, Long> resumable(AbortedRanges fences) {
        Map<PartitionBucket, Long> resumed = new LinkedHashMap<>();
        Iterator<Map.Entry<PartitionBucket, Long>> entries = paused.entrySet().iterator();
        while (entries.hasNext()) {
            Map.Entry<PartitionBucket, Long> entry = entries.next();
            long from = fences.nextValidOffset(entry.getKey(), entry.getValue());
            if (committed.of(entry.getKey()) > from) {
                resumed.put(entry.getKey(), from);
                entries.remove();
            }
        }
        return resumed;
    }

    /** Forgets {@code pb}: its split is finished or gone. */
    void forget(PartitionBucket pb) {
        ArrayDeque<StreamRecord> queue = held.remove(pb);
        if (queue != null) {
            heldCount -= queue.size();
        }
        paused.remove(pb);
    }

    /**
     * Moves held records that are committed now into {@code batch}, under the split ids {@code
     * splitIds} gives; returns whether any moved.
     */
    boolean release(
            RecordsBySplits.Builder<LakeStreamRecord> batch,
            Function<PartitionBucket, String> splitIds,
            FencedStreamReader log) {
        boolean released = false;
        boolean fencesRefreshed = false;
        Iterator<Map.Entry<PartitionBucket, ArrayDeque<StreamRecord>>> entries =
                held.entrySet().iterator();
        while (entries.hasNext()) {
            Map.Entry<PartitionBucket, ArrayDeque<StreamRecord>> entry = entries.next();
            long committedOffset = committed.of(entry.getKey());
            String splitId = splitIds.apply(entry.getKey());
            ArrayDeque<StreamRecord> queue = entry.getValue();
            while (!queue.isEmpty() && queue.peek().offset() < committedOffset) {
                if (!fencesRefreshed) {
                    // a held record may have been fetched before a restarted writer fenced it;
                    // the fence was recorded before the commit that now covers its offset
                    log.refreshFences();
                    fencesRefreshed = true;
                }
                StreamRecord record = queue.poll();
                heldCount--;
                if (!log.fences().isAborted(record.partitionBucket(), record.offset())) {
                    batch.add(splitId, LogPartReader.toLogRecord(record));
                    released = true;
                }
            }
            if (queue.isEmpty()) {
                entries.remove();
            }
        }
        return released;
    }
}
