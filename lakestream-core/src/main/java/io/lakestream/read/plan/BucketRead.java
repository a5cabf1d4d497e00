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

package io.lakestream.read.plan;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamReader;

import org.apache.paimon.table.source.DataSplit;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a union read reads of one partition-bucket: the snapshot's data splits of it (none when the
 * snapshot has no files there, or the filter pruned them), then the store's log from the offset the
 * snapshot recorded up to a stop offset ({@link StreamReader#NO_STOP_OFFSET} for a read without
 * end). The engines wrap it: Flink's source in a split, the embedded scan and Spark in their own.
 */
public final class BucketRead implements Serializable {

    private static final long serialVersionUID = 1L;

    private final PartitionBucket partitionBucket;
    private final List<DataSplit> lakeSplits;
    private final long logStartOffset;
    private final long logStopOffset;

    public BucketRead(
            PartitionBucket partitionBucket,
            List<DataSplit> lakeSplits,
            long logStartOffset,
            long logStopOffset) {
        this.partitionBucket = partitionBucket;
        this.lakeSplits = Collections.unmodifiableList(new ArrayList<>(lakeSplits));
        this.logStartOffset = logStartOffset;
        this.logStopOffset = logStopOffset;
    }

    public PartitionBucket partitionBucket() {
        return partitionBucket;
    }

    /** The snapshot's data splits of the partition-bucket, in the order Paimon planned them. */
    public List<DataSplit> lakeSplits() {
        return lakeSplits;
    }

    /** The first log offset past the snapshot: the offset the snapshot recorded. */
    public long logStartOffset() {
        return logStartOffset;
    }

    /** The log offset the read stops before; {@link StreamReader#NO_STOP_OFFSET} for none. */
    public long logStopOffset() {
        return logStopOffset;
    }

    @Override
    public String toString() {
        return String.format(
                "%s: %d lake splits, log [%d, %s)",
                partitionBucket,
                lakeSplits.size(),
                logStartOffset,
                logStopOffset == StreamReader.NO_STOP_OFFSET ? "no end" : logStopOffset);
    }
}
