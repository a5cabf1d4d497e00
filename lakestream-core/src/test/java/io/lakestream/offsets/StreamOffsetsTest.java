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
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests for {@link StreamOffsets}. */
class StreamOffsetsTest {

    private static final BinaryRow EU =
            new InternalRowSerializer(DataTypes.STRING())
                    .toBinaryRow(GenericRow.of(BinaryString.fromString("eu")))
                    .copy();

    private static final PartitionBucket B0 = PartitionBucket.ofUnpartitioned(0);
    private static final PartitionBucket B1 = PartitionBucket.ofUnpartitioned(1);
    private static final PartitionBucket B2 = PartitionBucket.ofUnpartitioned(2);
    private static final PartitionBucket EU_B1 = new PartitionBucket(EU, 1);

    @Test
    void mergedWithTakesTheNewerOffsetAndKeepsUnrelatedOnes() {
        StreamOffsets older = StreamOffsets.of(Map.of(B0, 10L, B1, 20L, EU_B1, 30L));
        StreamOffsets newer = StreamOffsets.of(Map.of(B1, 25L, B2, 5L));

        StreamOffsets merged = older.mergedWith(newer);

        assertThat(merged.asMap()).isEqualTo(Map.of(B0, 10L, B1, 25L, B2, 5L, EU_B1, 30L));
    }

    @Test
    void mergedWithLetsTheNewerMapWinEvenWithASmallerOffset() {
        // merging replaces offsets, it does not keep the larger one
        StreamOffsets older = StreamOffsets.of(Map.of(B0, 100L));
        StreamOffsets newer = StreamOffsets.of(Map.of(B0, 3L));

        assertThat(older.mergedWith(newer).offsetOr(B0, -1)).isEqualTo(3L);
    }

    @Test
    void bucketOfAPartitionIsNotTheSameBucketOfAnUnpartitionedTable() {
        StreamOffsets merged =
                StreamOffsets.of(Map.of(B1, 1L)).mergedWith(StreamOffsets.of(Map.of(EU_B1, 2L)));

        assertThat(merged.offsetOr(B1, -1)).isEqualTo(1L);
        assertThat(merged.offsetOr(EU_B1, -1)).isEqualTo(2L);
        assertThat(merged.size()).isEqualTo(2);
    }

    @Test
    void mergingLeavesBothInputsUnchanged() {
        StreamOffsets older = StreamOffsets.of(Map.of(B0, 10L, B1, 20L));
        StreamOffsets newer = StreamOffsets.of(Map.of(B1, 25L, B2, 5L));

        StreamOffsets merged = older.mergedWith(newer);

        assertThat(older.asMap()).isEqualTo(Map.of(B0, 10L, B1, 20L));
        assertThat(newer.asMap()).isEqualTo(Map.of(B1, 25L, B2, 5L));
        assertThat(merged).isNotSameAs(older).isNotSameAs(newer);
    }

    @Test
    void mergingWithAnEmptyMapKeepsTheOffsets() {
        StreamOffsets offsets = StreamOffsets.of(Map.of(B0, 10L));

        assertThat(offsets.mergedWith(StreamOffsets.empty())).isEqualTo(offsets);
        assertThat(StreamOffsets.empty().mergedWith(offsets)).isEqualTo(offsets);
    }

    @Test
    void offsetsCannotBeChangedThroughTheirMapOrTheSourceMap() {
        Map<PartitionBucket, Long> source = new HashMap<>(Map.of(B0, 10L));
        StreamOffsets offsets = StreamOffsets.of(source);
        source.put(B0, 99L);
        source.put(B1, 1L);

        assertThat(offsets.asMap()).isEqualTo(Map.of(B0, 10L));
        assertThatThrownBy(() -> offsets.asMap().put(B2, 2L))
                .isInstanceOf(UnsupportedOperationException.class);
        StreamOffsets merged = offsets.mergedWith(StreamOffsets.of(Map.of(B1, 1L)));
        assertThatThrownBy(() -> merged.asMap().remove(B0))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(merged.asMap()).containsEntry(B0, 10L);
    }

    @Test
    void offsetOrAndContainsAnswerPerPartitionBucket() {
        StreamOffsets offsets = StreamOffsets.of(Map.of(B0, 0L));

        assertThat(offsets.contains(B0)).isTrue();
        assertThat(offsets.contains(B1)).isFalse();
        assertThat(offsets.offsetOr(B0, 7)).isEqualTo(0L);
        assertThat(offsets.offsetOr(B1, 7)).isEqualTo(7L);
    }

    @Test
    void negativeOffsetIsRefusedNamingThePartitionBucket() {
        assertThatThrownBy(() -> StreamOffsets.of(Map.of(B2, -5L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket 2")
                .hasMessageContaining("-5");
        assertThatThrownBy(() -> StreamOffsets.of(Map.of(B0, 1L, EU_B1, -1L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partition " + EU + ", bucket 1")
                .hasMessageContaining("-1");
    }

    @Test
    void missingOffsetIsRefusedNamingThePartitionBucket() {
        Map<PartitionBucket, Long> withNull = new HashMap<>();
        withNull.put(B1, null);

        assertThatThrownBy(() -> StreamOffsets.of(withNull))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bucket 1")
                .hasMessageContaining("null");
    }
}
