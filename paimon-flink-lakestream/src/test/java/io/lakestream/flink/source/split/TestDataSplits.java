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

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.source.DataSplit;

import java.util.Collections;

/** Paimon data splits of one made-up append file, for tests of splits and their state. */
public final class TestDataSplits {

    private TestDataSplits() {}

    /** A split of {@code file} (10 rows) in a partition-bucket, planned from {@code snapshotId}. */
    public static DataSplit of(BinaryRow partition, int bucket, String file, long snapshotId) {
        DataFileMeta meta =
                DataFileMeta.forAppend(
                        file,
                        1024,
                        10,
                        SimpleStats.EMPTY_STATS,
                        0,
                        9,
                        1,
                        Collections.emptyList(),
                        null,
                        FileSource.APPEND,
                        null,
                        null,
                        null,
                        null);
        return DataSplit.builder()
                .withSnapshot(snapshotId)
                .withPartition(partition)
                .withBucket(bucket)
                .withBucketPath("bucket-" + bucket)
                .withDataFiles(Collections.singletonList(meta))
                .rawConvertible(true)
                .build();
    }
}
