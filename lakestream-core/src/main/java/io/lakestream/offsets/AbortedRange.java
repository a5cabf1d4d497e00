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

package io.lakestream.offsets;

import org.apache.paimon.annotation.Experimental;

import java.io.Serializable;
import java.util.Objects;

/**
 * A fence: the stream-store offsets {@code [startOffset, endOffset)} of one partition-bucket that a
 * failed writer attempt wrote after the checkpoint its successor restored from. Readers skip them,
 * because the restored writer writes those records again.
 */
@Experimental
public final class AbortedRange implements Serializable {

    private static final long serialVersionUID = 1L;

    private final PartitionBucket partitionBucket;
    private final long startOffset;
    private final long endOffset;

    public AbortedRange(PartitionBucket partitionBucket, long startOffset, long endOffset) {
        if (startOffset < 0 || endOffset <= startOffset) {
            throw new IllegalArgumentException(
                    String.format(
                            "An aborted range needs 0 <= start < end, but got [%d, %d) for %s.",
                            startOffset, endOffset, partitionBucket));
        }
        this.partitionBucket = Objects.requireNonNull(partitionBucket, "partitionBucket");
        this.startOffset = startOffset;
        this.endOffset = endOffset;
    }

    public PartitionBucket partitionBucket() {
        return partitionBucket;
    }

    /** The first aborted offset (inclusive). */
    public long startOffset() {
        return startOffset;
    }

    /** The first offset after the aborted range (exclusive). */
    public long endOffset() {
        return endOffset;
    }

    public boolean contains(long offset) {
        return offset >= startOffset && offset < endOffset;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof AbortedRange)) {
            return false;
        }
        AbortedRange that = (AbortedRange) o;
        return startOffset == that.startOffset
                && endOffset == that.endOffset
                && partitionBucket.equals(that.partitionBucket);
    }

    @Override
    public int hashCode() {
        return Objects.hash(partitionBucket, startOffset, endOffset);
    }

    @Override
    public String toString() {
        return "aborted [" + startOffset + ", " + endOffset + ") of " + partitionBucket;
    }
}
