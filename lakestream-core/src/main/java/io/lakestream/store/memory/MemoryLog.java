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

package io.lakestream.store.memory;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The log of one partition-bucket of a {@link MemoryStreamTable}, in the writer's process: the
 * records from {@link #start()} (inclusive) to {@link #end()} (exclusive). Guarded by the monitor
 * of its table.
 *
 * <p>A log is <em>established</em> once this process wrote to it or a restored writer told it where
 * it continues ({@link #continueAt}); before that, its offsets say nothing (the process may have
 * started after records were committed to Paimon), so readers wait for it rather than judge a start
 * offset against it. Records below the offset the table's latest snapshot committed may be evicted
 * when the store needs room and no reader of the process still reads them (a reader pins its
 * position): Paimon holds them.
 */
final class MemoryLog {

    /** Offset of {@code records.get(0)}; records below {@link #start} are null. */
    private long base;

    private long start;
    private final List<MemoryRecord> records = new ArrayList<>();
    private boolean established;
    private boolean dropped;
    private long committed;

    /** The position of each reader subscription of this log: nothing at or above it is freed. */
    private final Map<Object, Long> pins = new IdentityHashMap<>();

    long start() {
        return start;
    }

    long end() {
        return base + records.size();
    }

    boolean isEstablished() {
        return established;
    }

    boolean isDropped() {
        return dropped;
    }

    /** Appends a record; returns its offset. */
    long append(MemoryRecord record) {
        established = true;
        records.add(record);
        return end() - 1;
    }

    /**
     * Establishes an empty log of a new process at {@code offset}, where its writer continues after
     * the records that Paimon's snapshots hold; an established log is left as it is.
     */
    void continueAt(long offset) {
        if (!established) {
            base = offset;
            start = offset;
            established = true;
        }
    }

    /** The record at {@code offset}, which must lie in [start, end). */
    MemoryRecord get(long offset) {
        return records.get((int) (offset - base));
    }

    void pin(Object reader, long position) {
        pins.put(reader, position);
    }

    void unpin(Object reader) {
        pins.remove(reader);
    }

    /** Records that a snapshot committed this log up to {@code offset} (exclusive). */
    void commitUpTo(long offset) {
        committed = Math.max(committed, offset);
    }

    private long evictableUpTo() {
        long upTo = Math.min(committed, end());
        for (long pinned : pins.values()) {
            upTo = Math.min(upTo, pinned);
        }
        return upTo;
    }

    /** Frees the committed records that no reader pins; returns their bytes. */
    long evict() {
        long upTo = evictableUpTo();
        long freed = 0;
        for (long offset = start; offset < upTo; offset++) {
            int index = (int) (offset - base);
            freed += records.get(index).bytes();
            records.set(index, null);
        }
        if (upTo > start) {
            start = upTo;
            // compact once half of the list is freed slots: amortized O(1) per record
            int freedSlots = (int) (start - base);
            if (freedSlots > records.size() / 2) {
                records.subList(0, freedSlots).clear();
                base = start;
            }
        }
        return freed;
    }

    /** Drops every record (the partition was dropped); returns their bytes. */
    long drop() {
        dropped = true;
        long freed = 0;
        for (MemoryRecord record : records) {
            if (record != null) {
                freed += record.bytes();
            }
        }
        records.clear();
        base = start;
        pins.clear();
        return freed;
    }
}
