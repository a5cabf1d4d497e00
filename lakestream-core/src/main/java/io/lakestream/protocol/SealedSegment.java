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

import io.lakestream.offsets.StreamOffsets;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.sink.CommitMessage;

import javax.annotation.Nullable;

import java.util.Objects;

/**
 * What one write subtask sealed at one checkpoint barrier: the end offset of every partition-bucket
 * it wrote to the stream store since the previous barrier, and where that segment starts. It
 * travels to the committer next to Paimon's commit messages of the same checkpoint, wrapped in a
 * Paimon {@code Committable}.
 *
 * <p>The start of a partition-bucket's segment is the offset from which this writer accounts for
 * every record: the end it sealed at the previous barrier, or, for its first segment after a start,
 * the offset it fenced from (everything between that and the store's end then is fenced). The
 * committer compares it with the offset of the snapshot the segment is committed on top of: a start
 * above it means that the records in between are in no snapshot (a rollback removed the snapshots
 * that held them), and they are fenced before the commit covers them. Segments of an earlier
 * version carry no starts ({@link StreamOffsets#empty()}).
 *
 * <p>Why it is a {@link CommitMessage}: Paimon 1.4 removed {@code Committable.Kind.LOG_OFFSET}, and
 * from then on a {@code Committable} wraps a {@code CommitMessage} only. Wrapped as a {@code FILE}
 * committable today, it needs only the committable's constructor changed in a port. It never
 * reaches Paimon's own combine: the lake-stream committer takes it out first. Its partition and
 * bucket are those of no file ({@link BinaryRow#EMPTY_ROW}, {@value #NO_BUCKET}).
 */
public final class SealedSegment implements CommitMessage {

    private static final long serialVersionUID = 1L;

    /** The bucket a sealed segment reports as a commit message: none. */
    public static final int NO_BUCKET = -1;

    private final int subtask;
    private final StreamOffsets startOffsets;
    private final StreamOffsets endOffsets;

    public SealedSegment(int subtask, StreamOffsets startOffsets, StreamOffsets endOffsets) {
        this.subtask = subtask;
        this.startOffsets = Objects.requireNonNull(startOffsets);
        this.endOffsets = Objects.requireNonNull(endOffsets);
    }

    /** Where the segment of each partition-bucket starts; empty when not known. */
    public StreamOffsets startOffsets() {
        return startOffsets;
    }

    public int subtask() {
        return subtask;
    }

    public StreamOffsets endOffsets() {
        return endOffsets;
    }

    @Override
    public BinaryRow partition() {
        return BinaryRow.EMPTY_ROW;
    }

    @Override
    public int bucket() {
        return NO_BUCKET;
    }

    @Override
    @Nullable
    public Integer totalBuckets() {
        return null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SealedSegment
                && ((SealedSegment) o).subtask == subtask
                && ((SealedSegment) o).startOffsets.equals(startOffsets)
                && ((SealedSegment) o).endOffsets.equals(endOffsets);
    }

    @Override
    public int hashCode() {
        return Objects.hash(subtask, startOffsets, endOffsets);
    }

    @Override
    public String toString() {
        return "sealed segment of subtask "
                + subtask
                + ": from "
                + startOffsets
                + " to "
                + endOffsets;
    }
}
