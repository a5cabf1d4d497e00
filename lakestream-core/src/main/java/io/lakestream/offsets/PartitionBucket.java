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
import org.apache.paimon.data.BinaryRow;

import java.io.Serializable;
import java.util.Objects;

/**
 * One bucket of one partition of a Paimon table: the unit that the stream store, the offsets of a
 * snapshot and the fences are kept per. The partition is Paimon's own binary partition row ({@link
 * BinaryRow#EMPTY_ROW} for a table without partition keys), so that a partition-bucket means the
 * same thing to Paimon's scan and to the stream store.
 */
@Experimental
public final class PartitionBucket implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The hash of every partition row of no field, see {@link #samePartition}. */
    private static final int EMPTY_PARTITION_HASH = BinaryRow.EMPTY_ROW.hashCode();

    private final BinaryRow partition;
    private final int bucket;

    public PartitionBucket(BinaryRow partition, int bucket) {
        if (bucket < 0) {
            throw new IllegalArgumentException("Bucket must not be negative, but is " + bucket);
        }
        this.partition = Objects.requireNonNull(partition, "partition");
        this.bucket = bucket;
    }

    /** A bucket of a table without partition keys. */
    public static PartitionBucket ofUnpartitioned(int bucket) {
        return new PartitionBucket(BinaryRow.EMPTY_ROW, bucket);
    }

    public BinaryRow partition() {
        return partition;
    }

    public int bucket() {
        return bucket;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PartitionBucket)) {
            return false;
        }
        PartitionBucket that = (PartitionBucket) o;
        return bucket == that.bucket && samePartition(partition, that.partition);
    }

    /**
     * Whether two partition rows name the same partition. Rows of no field are the one partition of
     * an unpartitioned table, equal without a look at their bytes: a writer compares the partition
     * of every record with the previous one's, and Paimon's comparison of two binary rows reads
     * them through their memory segments.
     */
    public static boolean samePartition(BinaryRow a, BinaryRow b) {
        return a == b || (a.getFieldCount() == 0 && b.getFieldCount() == 0) || a.equals(b);
    }

    @Override
    public int hashCode() {
        // as samePartition: every row of no field is the same partition, whatever its header byte
        // (the empty row's hash, as before, so that readers are given the same buckets)
        return 31 * (partition.getFieldCount() == 0 ? EMPTY_PARTITION_HASH : partition.hashCode())
                + bucket;
    }

    @Override
    public String toString() {
        return partition.getFieldCount() == 0
                ? "bucket " + bucket
                : "partition " + partition + ", bucket " + bucket;
    }
}
