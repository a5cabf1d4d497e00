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

package io.lakestream.store;

import io.lakestream.offsets.PartitionBucket;

import org.apache.paimon.annotation.Experimental;

import java.util.Objects;

/**
 * One partition-bucket a {@link StreamReader} is to read: from a start offset up to a stop offset
 * (exclusive, or {@link StreamReader#NO_STOP_OFFSET}).
 */
@Experimental
public final class StreamSubscription {

    private final PartitionBucket partitionBucket;
    private final long startOffset;
    private final long stopOffset;

    public StreamSubscription(PartitionBucket partitionBucket, long startOffset, long stopOffset) {
        this.partitionBucket = Objects.requireNonNull(partitionBucket);
        this.startOffset = startOffset;
        this.stopOffset = stopOffset;
    }

    public PartitionBucket partitionBucket() {
        return partitionBucket;
    }

    public long startOffset() {
        return startOffset;
    }

    public long stopOffset() {
        return stopOffset;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof StreamSubscription)) {
            return false;
        }
        StreamSubscription that = (StreamSubscription) o;
        return startOffset == that.startOffset
                && stopOffset == that.stopOffset
                && partitionBucket.equals(that.partitionBucket);
    }

    @Override
    public int hashCode() {
        return Objects.hash(partitionBucket, startOffset, stopOffset);
    }

    @Override
    public String toString() {
        return partitionBucket
                + " from "
                + startOffset
                + (stopOffset == StreamReader.NO_STOP_OFFSET ? "" : " to " + stopOffset);
    }
}
