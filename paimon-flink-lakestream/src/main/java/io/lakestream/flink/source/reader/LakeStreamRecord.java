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

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

/**
 * A record on its way from the split reader to the emitter: a Paimon row with its row kind and
 * where the split stands after it, either the count of lake records emitted or a log offset.
 *
 * <p>A batch of lake rows handed over uncopied reuses one record for all its rows ({@link
 * #reuseAsLake}), as Paimon's own source reuses one record and position per batch: the emitter
 * consumes each record before the batch is asked for the next.
 */
@Internal
final class LakeStreamRecord {

    /** The row; null for the end of a lake part. */
    @Nullable InternalRow row;

    final boolean fromLake;

    /** For a lake record the lake records emitted with it; for a log record its offset. */
    long position;

    /** The store's append time of a log record, else -1. */
    final long timestamp;

    private LakeStreamRecord(InternalRow row, boolean fromLake, long position, long timestamp) {
        this.row = row;
        this.fromLake = fromLake;
        this.position = position;
        this.timestamp = timestamp;
    }

    static LakeStreamRecord lake(InternalRow row, long emitted) {
        return new LakeStreamRecord(row, true, emitted, -1);
    }

    /** This lake record, now holding {@code row}, the split's {@code emitted}-th lake record. */
    LakeStreamRecord reuseAsLake(InternalRow row, long emitted) {
        this.row = row;
        this.position = emitted;
        return this;
    }

    /**
     * The end of a split's lake part after {@code emitted} lake records: no row, only the news that
     * the split's state can drop its lake part. {@link LakePartEnds} applies it to the state before
     * Flink's reader base, which counts every record it is handed, would see it.
     */
    static LakeStreamRecord lakeFinished(long emitted) {
        return new LakeStreamRecord(null, true, emitted, -1);
    }

    /** Whether this is the end of a split's lake part rather than a row. */
    boolean isLakeFinished() {
        return row == null;
    }

    static LakeStreamRecord log(InternalRow row, long offset, long timestamp) {
        return new LakeStreamRecord(row, false, offset, timestamp);
    }
}
