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

package io.lakestream.flink.source.split;

import org.apache.flink.annotation.Internal;

import java.util.Collections;

/** The mutable progress of a {@link LakeStreamSplit} while a reader reads it. */
@Internal
public final class LakeStreamSplitState {

    private final LakeStreamSplit split;
    private long lakeRecordsEmitted;
    private boolean lakeFinished;
    private long nextLogOffset;

    public LakeStreamSplitState(LakeStreamSplit split) {
        this.split = split;
        this.lakeRecordsEmitted = split.lakeRecordsEmitted();
        this.lakeFinished = split.lakeFinished();
        this.nextLogOffset = split.nextLogOffset();
    }

    /** A lake record was emitted: the {@code count}-th of the lake part. */
    public void lakeRecordEmitted(long count) {
        lakeRecordsEmitted = count;
    }

    /** A log record was emitted, or skipped as fenced, at {@code offset}. */
    public void logRecordPassed(long offset) {
        lakeFinished = true;
        nextLogOffset = offset + 1;
    }

    /** The split's lake part was read to its end. */
    public void lakeFinished() {
        lakeFinished = true;
    }

    public long nextLogOffset() {
        return nextLogOffset;
    }

    public LakeStreamSplit toSplit() {
        // a finished lake part is never read again: its Paimon splits leave the checkpoint
        return new LakeStreamSplit(
                split.partitionBucket(),
                lakeFinished ? Collections.emptyList() : split.lakeSplits(),
                lakeRecordsEmitted,
                lakeFinished,
                nextLogOffset,
                split.logStopOffset(),
                split.followedSnapshotId());
    }
}
