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

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.types.RowKind;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Partition-buckets are equal by their partition's values and their bucket, as map keys too. */
class PartitionBucketTest {

    @Test
    void everyRowOfNoFieldIsTheOnePartitionOfAnUnpartitionedTable() {
        BinaryRow other = new BinaryRow(0);
        BinaryRowWriter writer = new BinaryRowWriter(other);
        writer.complete();
        other.setRowKind(RowKind.DELETE);
        assertThat(PartitionBucket.samePartition(BinaryRow.EMPTY_ROW, other)).isTrue();
        PartitionBucket a = new PartitionBucket(BinaryRow.EMPTY_ROW, 3);
        PartitionBucket b = new PartitionBucket(other, 3);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(new PartitionBucket(other, 2));
        Map<PartitionBucket, String> map = new HashMap<>();
        map.put(a, "bucket 3");
        assertThat(map).containsEntry(b, "bucket 3");
    }

    @Test
    void partitionsAreComparedByTheirValues() {
        BinaryRow first = BinaryRow.singleColumn("2026-12-07");
        assertThat(PartitionBucket.samePartition(first, BinaryRow.singleColumn("2026-12-07")))
                .isTrue();
        assertThat(PartitionBucket.samePartition(first, BinaryRow.singleColumn("2026-12-08")))
                .isFalse();
        assertThat(PartitionBucket.samePartition(first, BinaryRow.EMPTY_ROW)).isFalse();
        assertThat(new PartitionBucket(first, 0))
                .isEqualTo(new PartitionBucket(BinaryRow.singleColumn("2026-12-07"), 0))
                .hasSameHashCodeAs(new PartitionBucket(BinaryRow.singleColumn("2026-12-07"), 0));
    }
}
