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
import io.lakestream.store.StreamTable;

import org.apache.paimon.table.source.DataSplit;

/**
 * Refuses a union read of a partition whose files Paimon holds in another number of buckets than
 * the stream table has: {@code CALL sys.rescale} with a {@code bucket_num}, run through any
 * catalog, rewrites a partition's files into a new bucket layout and leaves the table's {@code
 * bucket} option (and the stream table) as they were. The store's records of bucket {@code b} then
 * no longer belong with Paimon's bucket {@code b}: a primary-key merge would return a key twice,
 * and the offsets of the old buckets say nothing about the new ones. Paimon's own writer refuses to
 * write such a partition with the table's bucket count; the union read refuses to read it, naming
 * the way out.
 */
final class BucketLayoutCheck {

    private BucketLayoutCheck() {}

    static void check(StreamTable streamTable, long snapshotId, DataSplit split) {
        Integer total = split.totalBuckets();
        int streamBuckets = streamTable.spec().numBuckets();
        if (total == null || total == streamBuckets) {
            return;
        }
        throw new IllegalStateException(
                String.format(
                        "Cannot read lake-stream table %s: in snapshot %d, %s holds files in %d "
                                + "buckets, while its stream table aligns with Paimon's %d "
                                + "buckets per partition. The partition was rescaled (CALL "
                                + "sys.rescale with a bucket_num, or an INSERT OVERWRITE with "
                                + "another 'bucket'), which lake-stream mode does not follow. Read "
                                + "it with 'lake-stream.read.lake-only' = 'true', or turn "
                                + "lake-stream mode off (CALL sys.disable_lake_stream(`table` => "
                                + "'%s', drop_stream_table => true)), rescale every partition and "
                                + "the table's 'bucket' alike, and turn it on again.",
                        streamTable.spec(),
                        snapshotId,
                        streamTable
                                .spec()
                                .describe(new PartitionBucket(split.partition(), split.bucket())),
                        total,
                        streamBuckets,
                        streamTable.spec()));
    }
}
