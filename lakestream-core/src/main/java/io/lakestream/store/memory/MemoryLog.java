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

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.memory.MemorySegmentUtils;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.Arrays;
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
 *
 * <p>Records are kept in chunks of {@link #CHUNK_RECORDS}: their rows' bytes one after the other in
 * one array, their kinds, times and written types in arrays beside it, so that a record held costs
 * the garbage collector no object of its own. (A log of one object per record, each with its row's
 * own byte array, spent a third of a writer's time in collections once the store held a few hundred
 * megabytes: every record of the budget stays in the heap until a commit lets it go.) A chunk is
 * freed once all its records are evicted; bytes appended to a chunk never change, so a row read
 * from a chunk stays valid after the log moved on.
 */
final class MemoryLog {

    /** Records per chunk: every chunk but the last one holds exactly this many. */
    static final int CHUNK_RECORDS = 4096;

    /**
     * Offset of the first record of {@code chunks.get(0)}; records below {@link #start} are gone.
     */
    private long base;

    private long start;
    private long end;
    private final List<Chunk> chunks = new ArrayList<>();
    private boolean established;
    private boolean dropped;
    private long committed;

    /** The position of each reader subscription of this log: nothing at or above it is freed. */
    private final Map<Object, Long> pins = new IdentityHashMap<>();

    long start() {
        return start;
    }

    long end() {
        return end;
    }

    boolean isEstablished() {
        return established;
    }

    boolean isDropped() {
        return dropped;
    }

    /**
     * Appends a copy of {@code row}'s bytes (the caller may reuse the row) with its kind, the type
     * it was written with and its append time; returns its offset.
     */
    long append(RowKind kind, BinaryRow row, RowType writtenType, long timestamp) {
        established = true;
        Chunk last = chunks.isEmpty() ? null : chunks.get(chunks.size() - 1);
        if (last == null) {
            last = new Chunk(Chunk.INITIAL_RECORDS, Chunk.INITIAL_BYTES);
            chunks.add(last);
        } else if (last.count == CHUNK_RECORDS) {
            // a log that filled a chunk fills the next one: sized like it, it never grows
            last = new Chunk(CHUNK_RECORDS, last.used + last.used / 8);
            chunks.add(last);
        }
        last.append(kind, row, writtenType, timestamp);
        return end++;
    }

    /**
     * Establishes an empty log of a new process at {@code offset}, where its writer continues after
     * the records that Paimon's snapshots hold; an established log is left as it is.
     */
    void continueAt(long offset) {
        if (!established) {
            base = offset;
            start = offset;
            end = offset;
            established = true;
        }
    }

    /**
     * The record at {@code offset}, which must lie in [start, end). Its row is a view of the
     * chunk's bytes, shared with every other reader: a caller that changes it (its row kind) copies
     * it.
     */
    MemoryRecord get(long offset) {
        long index = offset - base;
        return chunks.get((int) (index / CHUNK_RECORDS)).get((int) (index % CHUNK_RECORDS));
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
        long upTo = Math.min(committed, end);
        for (long pinned : pins.values()) {
            upTo = Math.min(upTo, pinned);
        }
        return upTo;
    }

    /** Frees the committed records that no reader pins; returns their bytes. */
    long evict() {
        long upTo = evictableUpTo();
        if (upTo <= start) {
            return 0;
        }
        long freed = bytesBetween(start, upTo);
        start = upTo;
        // chunks wholly below the new start go; a chunk partly below it stays until it is all
        int freedChunks = (int) ((start - base) / CHUNK_RECORDS);
        if (freedChunks > 0) {
            chunks.subList(0, freedChunks).clear();
            base += (long) freedChunks * CHUNK_RECORDS;
        }
        return freed;
    }

    /** Drops every record (the partition was dropped); returns their bytes. */
    long drop() {
        dropped = true;
        long freed = bytesBetween(start, end);
        chunks.clear();
        base = end;
        start = end;
        pins.clear();
        return freed;
    }

    /** What the records in [from, to) count against the budget. */
    private long bytesBetween(long from, long to) {
        long bytes = 0;
        for (long offset = from; offset < to; ) {
            long index = offset - base;
            Chunk chunk = chunks.get((int) (index / CHUNK_RECORDS));
            int first = (int) (index % CHUNK_RECORDS);
            int last = (int) Math.min(chunk.count, first + (to - offset));
            bytes += chunk.bytes(first, last);
            offset += last - first;
        }
        return bytes;
    }

    /**
     * Up to {@link #CHUNK_RECORDS} records. The first chunk of a log starts small and its arrays
     * double, so that the many logs of a table with many partitions, each with a few records, hold
     * little; the chunks after a full one start at its size.
     */
    private static final class Chunk {

        private static final int INITIAL_RECORDS = 16;
        private static final int INITIAL_BYTES = 1024;

        private byte[] data;
        private int used;

        /** Where each record's row ends in {@link #data}; it starts where the previous one ends. */
        private int[] ends;

        private byte[] kinds;
        private long[] timestamps;
        private RowType[] types;
        private int count;

        Chunk(int records, int bytes) {
            data = new byte[bytes];
            ends = new int[records];
            kinds = new byte[records];
            timestamps = new long[records];
            types = new RowType[records];
        }

        void append(RowKind kind, BinaryRow row, RowType writtenType, long timestamp) {
            if (count == ends.length) {
                int capacity = Math.min(CHUNK_RECORDS, count * 2);
                ends = Arrays.copyOf(ends, capacity);
                kinds = Arrays.copyOf(kinds, capacity);
                timestamps = Arrays.copyOf(timestamps, capacity);
                types = Arrays.copyOf(types, capacity);
            }
            int size = row.getSizeInBytes();
            if (used + size > data.length) {
                // a new array: rows read from the old one keep it and its bytes as they were
                data = Arrays.copyOf(data, Math.max(data.length * 2, used + size));
            }
            MemorySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), data, used, size);
            used += size;
            ends[count] = used;
            kinds[count] = kind.toByteValue();
            timestamps[count] = timestamp;
            types[count] = writtenType;
            count++;
        }

        MemoryRecord get(int index) {
            int from = index == 0 ? 0 : ends[index - 1];
            // the row has the fields of the type it was written with
            BinaryRow row = new BinaryRow(types[index].getFieldCount());
            row.pointTo(MemorySegment.wrap(data), from, ends[index] - from);
            return new MemoryRecord(
                    RowKind.fromByteValue(kinds[index]), row, types[index], timestamps[index]);
        }

        /** What the records [first, last) count against the budget. */
        long bytes(int first, int last) {
            int from = first == 0 ? 0 : ends[first - 1];
            int to = last == 0 ? 0 : ends[last - 1];
            return (long) (to - from) + (long) (last - first) * MemoryRecord.OVERHEAD_BYTES;
        }
    }
}
