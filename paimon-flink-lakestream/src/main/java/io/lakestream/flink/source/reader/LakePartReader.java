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

import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.read.BucketMerge;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.reader.RecordReader.RecordIterator;
import org.apache.paimon.reader.RecordReaderIterator;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.Pool;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.metrics.Counter;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads the lake part of one split at a time with Paimon's table read, in batches: its data splits
 * in order, skipping the rows a restored split had emitted, and for a bounded primary-key read with
 * the store's changes merged in ({@link BucketMerge}) and then the keys only the store has.
 *
 * <p>A lake part read as Paimon stores it (not merged, no limit) is handed over a Paimon batch at a
 * time without copying a row ({@link #nextBatch}, {@link LakeRowBatch}), as Paimon's own source
 * reads; a merged one, or one counted against a limit, row by row as copies ({@link #read}).
 */
@Internal
final class LakePartReader implements AutoCloseable {

    private final TableRead lakeRead;
    private final InternalRowSerializer rowSerializer;
    private final Counter rowsRead;

    /** The one batch of uncopied rows that may be out with the main thread. */
    private final Pool<LakeRowBatch> batches = new Pool<>(1);

    private final AtomicBoolean wakeup = new AtomicBoolean();

    @Nullable private LakeStreamSplit split;
    private boolean batched;

    /** Whether the pool's batch is out with rows of the split being read. */
    private boolean batchOut;

    @Nullable private RecordReader<InternalRow> batchReader;
    @Nullable private BucketMerge merge;
    @Nullable private Iterator<InternalRow> rows;
    @Nullable private RecordReaderIterator<InternalRow> paimonReader;
    private int nextDataSplit;
    private long emitted;

    LakePartReader(TableRead lakeRead, InternalRowSerializer rowSerializer, Counter rowsRead) {
        this.lakeRead = lakeRead;
        this.rowSerializer = rowSerializer;
        this.rowsRead = rowsRead;
        this.batches.add(new LakeRowBatch(batches.recycler(), rowsRead));
    }

    /**
     * Starts the lake part of {@code split}, merged with {@code merge} when not null.
     *
     * @param batched whether its rows are handed over in Paimon's batches ({@link #nextBatch}),
     *     which a merged read cannot be
     */
    void start(LakeStreamSplit split, @Nullable BucketMerge merge, boolean batched) {
        if (batched && merge != null) {
            throw new IllegalArgumentException("A merged lake part is read row by row.");
        }
        this.split = split;
        this.merge = merge;
        this.batched = batched;
        this.rows = null;
        this.nextDataSplit = 0;
        this.emitted = 0;
    }

    /** Stops reading the split's lake part before its end. */
    void stop() throws IOException {
        closePaimonReader();
        split = null;
        rows = null;
        merge = null;
    }

    boolean isReading() {
        return split != null;
    }

    /** Whether the split being read is handed over in Paimon's batches. */
    boolean batched() {
        return batched;
    }

    /** Whether the split being read is merged with its store changes. */
    boolean merging() {
        return merge != null;
    }

    /** The split whose lake part is read. */
    LakeStreamSplit split() {
        return split;
    }

    /**
     * Adds up to {@code max} records of the split's lake part to {@code batch} and returns how many
     * it added. When the lake part ends, the reader is no longer {@link #isReading() reading} and
     * free for the next split.
     */
    int read(RecordsBySplits.Builder<LakeStreamRecord> batch, int max) throws IOException {
        LakeStreamSplit reading = split;
        String splitId = reading.splitId();
        int added = 0;
        while (added < max) {
            InternalRow row = nextRow(reading);
            if (row == null) {
                closePaimonReader();
                split = null;
                rows = null;
                return added;
            }
            emitted++;
            if (emitted > reading.lakeRecordsEmitted()) {
                // Paimon's readers reuse their row objects; a batch holds many rows
                InternalRow copy = rowSerializer.copy(row);
                if (merge != null) {
                    // a merged bounded read returns rows as inserts, whatever kind Paimon kept
                    copy.setRowKind(RowKind.INSERT);
                }
                batch.add(splitId, LakeStreamRecord.lake(copy, emitted));
                added++;
            }
        }
        return added;
    }

    /**
     * The next Paimon batch of the split's lake part, its rows uncopied; it waits until the main
     * thread recycled the batch before. Null when the lake part ended (the reader is then free for
     * the next split) or when {@link #wakeUp} ended the wait (the reader still reads the split).
     */
    @Nullable
    LakeRowBatch nextBatch() throws IOException {
        LakeStreamSplit reading = split;
        LakeRowBatch batch = takeBatch();
        if (batch == null) {
            return null;
        }
        while (true) {
            if (batchReader == null) {
                if (reading.lakeFinished() || nextDataSplit >= reading.lakeSplits().size()) {
                    batches.recycler().recycle(batch);
                    split = null;
                    return null;
                }
                batchReader = lakeRead.createReader(reading.lakeSplits().get(nextDataSplit++));
            }
            RecordIterator<InternalRow> rows = batchReader.readBatch();
            if (rows != null) {
                batchOut = true;
                return batch.reset(reading.splitId(), rows, emitted, reading.lakeRecordsEmitted());
            }
            closePaimonReader();
        }
    }

    /**
     * The pool's batch once the main thread gave it back, with the lake records counted while it
     * was out; null when woken up first.
     */
    @Nullable
    private LakeRowBatch takeBatch() throws IOException {
        LakeRowBatch batch = null;
        try {
            // short waits: a wake-up (new splits, shutdown) is seen within one
            while (batch == null && !wakeup.get()) {
                batch = batches.pollEntry(Duration.ofMillis(100));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while reading a lake part.");
        }
        wakeup.set(false);
        if (batch != null && batchOut) {
            emitted = batch.emitted();
            batchOut = false;
        }
        return batch;
    }

    /** Ends a wait of {@link #nextBatch} for the main thread. */
    void wakeUp() {
        wakeup.set(true);
    }

    /** The lake records of the split counted so far (emitted now or by an earlier attempt). */
    long emitted() {
        return emitted;
    }

    /** The next row of the split's lake part (merged when merging), or null at its end. */
    @Nullable
    private InternalRow nextRow(LakeStreamSplit split) throws IOException {
        while (true) {
            if (rows != null && rows.hasNext()) {
                InternalRow row = rows.next();
                boolean fromPaimon = rows == paimonReader;
                if (fromPaimon) {
                    rowsRead.inc();
                }
                if (merge == null || !fromPaimon) {
                    return row;
                }
                InternalRow merged = merge.mergeLake(row);
                if (merged != null) {
                    return merged;
                }
                continue;
            }
            closePaimonReader();
            if (split.lakeFinished() && merge == null) {
                return null;
            }
            if (nextDataSplit < split.lakeSplits().size()) {
                DataSplit next = split.lakeSplits().get(nextDataSplit++);
                RecordReader<InternalRow> reader = lakeRead.createReader(next);
                paimonReader = new RecordReaderIterator<>(reader);
                rows = paimonReader;
            } else if (merge != null && nextDataSplit == split.lakeSplits().size()) {
                // after the last lake split: the keys that only the store has
                nextDataSplit++;
                rows = merge.remaining();
            } else {
                return null;
            }
        }
    }

    private void closePaimonReader() throws IOException {
        if (batchReader != null) {
            RecordReader<InternalRow> closing = batchReader;
            batchReader = null;
            closing.close();
        }
        if (paimonReader != null) {
            try {
                paimonReader.close();
            } catch (Exception e) {
                throw new IOException(e);
            }
            paimonReader = null;
        }
    }

    @Override
    public void close() throws IOException {
        closePaimonReader();
    }
}
