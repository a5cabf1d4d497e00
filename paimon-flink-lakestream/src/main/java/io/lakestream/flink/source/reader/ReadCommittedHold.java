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
import io.lakestream.flink.store.FencedStreamReader;
import io.lakestream.flink.store.StreamRecord;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Function;

/**
 * The store records a read-committed reader fetched but may not return yet: those at or above the
 * committed offset of their partition-bucket, kept in offset order until a commit covers them. Past
 * {@link #MAX_HELD_RECORDS} the reader stops fetching until a commit releases some.
 */
@Internal
final class ReadCommittedHold {

    /** How many records a read-committed reader holds back before it stops fetching. */
    static final int MAX_HELD_RECORDS = 100_000;

    private final CommittedOffsets committed;
    private final Map<PartitionBucket, ArrayDeque<StreamRecord>> held = new HashMap<>();
    private int heldCount;

    ReadCommittedHold(CommittedOffsets committed) {
        this.committed = committed;
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

    boolean isFull() {
        return heldCount >= MAX_HELD_RECORDS;
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
