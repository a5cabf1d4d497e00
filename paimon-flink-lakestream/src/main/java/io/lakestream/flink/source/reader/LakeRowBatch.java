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

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader.RecordIterator;
import org.apache.paimon.utils.Pool;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.metrics.Counter;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * One batch of Paimon's rows of a split's lake part, handed to the reader's main thread as Paimon
 * read it: no row is copied, each is a view into Paimon's batch that the emitter turns into Flink's
 * row before it asks for the next, as Paimon's own source reads its files. The records of the same
 * fetch that were gathered before it (the logs' records, the splits that finished) come first.
 *
 * <p>Paimon's readers reuse their batches and their row objects, so there is one such batch per
 * split reader ({@link Pool} of one): the fetcher takes it back from the pool before it reads the
 * next batch, which it gets only once the main thread has passed every row of this one and Flink's
 * reader base has {@link #recycle() recycled} it. The lake records it counts (emitted, or skipped
 * by a restored split) are read by the fetcher only then.
 */
@Internal
final class LakeRowBatch implements RecordsWithSplitIds<LakeStreamRecord> {

    private final Pool.Recycler<LakeRowBatch> recycler;
    private final Counter rowsRead;

    /** The one record this batch's rows are handed over in, one after another. */
    private final LakeStreamRecord record = LakeStreamRecord.lake(null, 0);

    @Nullable private RecordsWithSplitIds<LakeStreamRecord> before;
    @Nullable private RecordIterator<InternalRow> rows;
    @Nullable private String splitId;
    private boolean beforeDone;
    private boolean lakeSplitGiven;

    /** The split's lake records counted so far, this batch's included as they are passed. */
    private long emitted;

    /** The lake records a restored split emitted before: skipped, not handed over again. */
    private long skipThrough;

    private long readInBatch;

    LakeRowBatch(Pool.Recycler<LakeRowBatch> recycler, Counter rowsRead) {
        this.recycler = recycler;
        this.rowsRead = rowsRead;
    }

    /**
     * Makes this the batch {@code rows} of split {@code splitId}, whose lake records counted so far
     * are {@code emitted}; rows up to {@code skipThrough} are not handed over.
     */
    LakeRowBatch reset(
            String splitId, RecordIterator<InternalRow> rows, long emitted, long skipThrough) {
        this.splitId = splitId;
        this.rows = rows;
        this.emitted = emitted;
        this.skipThrough = skipThrough;
        this.before = null;
        this.beforeDone = false;
        this.lakeSplitGiven = false;
        this.readInBatch = 0;
        return this;
    }

    /** Puts {@code records}, gathered by the same fetch, before this batch's rows. */
    LakeRowBatch after(RecordsWithSplitIds<LakeStreamRecord> records) {
        this.before = records;
        return this;
    }

    /** The lake records of the split counted up to the end of this batch, once it is recycled. */
    long emitted() {
        return emitted;
    }

    @Nullable
    @Override
    public String nextSplit() {
        if (!beforeDone && before != null) {
            String split = before.nextSplit();
            if (split != null) {
                return split;
            }
        }
        beforeDone = true;
        if (lakeSplitGiven) {
            return null;
        }
        lakeSplitGiven = true;
        return splitId;
    }

    @Nullable
    @Override
    public LakeStreamRecord nextRecordFromSplit() {
        if (!lakeSplitGiven) {
            return before.nextRecordFromSplit();
        }
        try {
            InternalRow row;
            while ((row = rows.next()) != null) {
                readInBatch++;
                emitted++;
                if (emitted > skipThrough) {
                    return record.reuseAsLake(row, emitted);
                }
            }
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Failed to read the lake part of split " + splitId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Set<String> finishedSplits() {
        // only the records gathered before finish splits: a split whose lake batch this is goes
        // on with its next batch or its log
        return before == null ? Set.of() : before.finishedSplits();
    }

    @Override
    public void recycle() {
        if (before != null) {
            before.recycle();
        }
        rowsRead.inc(readInBatch);
        readInBatch = 0;
        rows.releaseBatch();
        recycler.recycle(this);
    }
}
