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
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;

/**
 * One record read from a stream table: where it is (partition-bucket and offset), when the store
 * took it, and the row with its row kind. The row is a Paimon row in the Paimon table's column
 * order; its {@link InternalRow#getRowKind()} equals {@link #rowKind()}.
 */
@Experimental
public final class StreamRecord {

    private final PartitionBucket partitionBucket;
    private final long offset;
    private final long timestamp;
    private final InternalRow row;

    public StreamRecord(
            PartitionBucket partitionBucket, long offset, long timestamp, InternalRow row) {
        this.partitionBucket = partitionBucket;
        this.offset = offset;
        this.timestamp = timestamp;
        this.row = row;
    }

    public PartitionBucket partitionBucket() {
        return partitionBucket;
    }

    public long offset() {
        return offset;
    }

    /** The store's append time of the record, in epoch milliseconds. */
    public long timestamp() {
        return timestamp;
    }

    public RowKind rowKind() {
        return row.getRowKind();
    }

    public InternalRow row() {
        return row;
    }

    @Override
    public String toString() {
        return rowKind().shortString() + row + " @" + partitionBucket + " offset " + offset;
    }
}
