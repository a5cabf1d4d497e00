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
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests for {@link AbortedRanges} and {@link AbortedRange}. */
class AbortedRangesTest {

    private static final PartitionBucket B0 = PartitionBucket.ofUnpartitioned(0);
    private static final PartitionBucket B1 = PartitionBucket.ofUnpartitioned(1);
    private static final PartitionBucket P7_B0 = new PartitionBucket(partition(7), 0);

    @Test
    void rangeStartIsAbortedAndRangeEndIsNot() {
        AbortedRanges ranges = AbortedRanges.of(List.of(range(B0, 10, 20)));

        assertThat(ranges.isAborted(B0, 9)).isFalse();
        assertThat(ranges.isAborted(B0, 10)).isTrue();
        assertThat(ranges.isAborted(B0, 19)).isTrue();
        assertThat(ranges.isAborted(B0, 20)).isFalse();
        assertThat(ranges.nextValidOffset(B0, 9)).isEqualTo(9);
        assertThat(ranges.nextValidOffset(B0, 10)).isEqualTo(20);
        assertThat(ranges.nextValidOffset(B0, 15)).isEqualTo(20);
        assertThat(ranges.nextValidOffset(B0, 19)).isEqualTo(20);
        assertThat(ranges.nextValidOffset(B0, 20)).isEqualTo(20);
    }

    @Test
    void rangeStartingAtZeroCoversOffsetZero() {
        AbortedRanges ranges = AbortedRanges.of(List.of(range(B0, 0, 1)));

        assertThat(ranges.isAborted(B0, 0)).isTrue();
        assertThat(ranges.nextValidOffset(B0, 0)).isEqualTo(1);
        assertThat(ranges.isAborted(B0, 1)).isFalse();
    }

    @Test
    void overlappingRangesMerge() {
        AbortedRanges ranges = AbortedRanges.of(List.of(range(B0, 10, 20), range(B0, 15, 30)));

        assertThat(ranges.rangesOf(B0)).containsExactly(range(B0, 10, 30));
        assertThat(ranges.nextValidOffset(B0, 12)).isEqualTo(30);
    }

    @Test
    void adjacentRangesMergeInEitherOrder() {
        assertThat(AbortedRanges.of(List.of(range(B0, 10, 20), range(B0, 20, 30))).rangesOf(B0))
                .containsExactly(range(B0, 10, 30));
        AbortedRanges reversed = AbortedRanges.of(List.of(range(B0, 20, 30), range(B0, 10, 20)));
        assertThat(reversed.rangesOf(B0)).containsExactly(range(B0, 10, 30));
        // one lookup leads past both fences, so a reader never lands inside the second one
        assertThat(reversed.nextValidOffset(B0, 10)).isEqualTo(30);
    }

    @Test
    void rangesWithAGapStaySeparate() {
        AbortedRanges ranges = AbortedRanges.of(List.of(range(B0, 10, 20), range(B0, 21, 30)));

        assertThat(ranges.rangesOf(B0)).containsExactly(range(B0, 10, 20), range(B0, 21, 30));
        assertThat(ranges.isAborted(B0, 20)).isFalse();
        assertThat(ranges.nextValidOffset(B0, 19)).isEqualTo(20);
        assertThat(ranges.nextValidOffset(B0, 21)).isEqualTo(30);
    }

    @Test
    void containedRangeIsSwallowedInEitherOrder() {
        assertThat(AbortedRanges.of(List.of(range(B0, 10, 50), range(B0, 20, 30))).rangesOf(B0))
                .containsExactly(range(B0, 10, 50));
        assertThat(AbortedRanges.of(List.of(range(B0, 20, 30), range(B0, 10, 50))).rangesOf(B0))
                .containsExactly(range(B0, 10, 50));
        assertThat(AbortedRanges.of(List.of(range(B0, 10, 50), range(B0, 10, 50))).rangesOf(B0))
                .containsExactly(range(B0, 10, 50));
    }

    @Test
    void outOfOrderRangesAreKeptSortedAndABridgingRangeMergesThemAll() {
        AbortedRanges ranges =
                AbortedRanges.of(List.of(range(B0, 50, 60), range(B0, 10, 20), range(B0, 30, 40)));

        assertThat(ranges.rangesOf(B0))
                .containsExactly(range(B0, 10, 20), range(B0, 30, 40), range(B0, 50, 60));
        assertThat(ranges.isAborted(B0, 25)).isFalse();
        assertThat(ranges.isAborted(B0, 35)).isTrue();

        ranges.add(range(B0, 15, 55));

        assertThat(ranges.rangesOf(B0)).containsExactly(range(B0, 10, 60));
        assertThat(ranges.isAborted(B0, 25)).isTrue();
        assertThat(ranges.nextValidOffset(B0, 25)).isEqualTo(60);
    }

    @Test
    void rangesOfDifferentPartitionBucketsAreIndependent() {
        AbortedRanges ranges =
                AbortedRanges.of(List.of(range(B0, 10, 20), range(B1, 20, 30), range(P7_B0, 0, 5)));

        // B0 and P7_B0 share the bucket number but not the partition
        assertThat(ranges.isAborted(B0, 15)).isTrue();
        assertThat(ranges.isAborted(B1, 15)).isFalse();
        assertThat(ranges.isAborted(P7_B0, 15)).isFalse();
        assertThat(ranges.isAborted(B0, 2)).isFalse();
        assertThat(ranges.isAborted(P7_B0, 2)).isTrue();
        // adjacent offsets in different partition-buckets do not merge
        assertThat(ranges.rangesOf(B0)).containsExactly(range(B0, 10, 20));
        assertThat(ranges.rangesOf(B1)).containsExactly(range(B1, 20, 30));
        assertThat(ranges.nextValidOffset(PartitionBucket.ofUnpartitioned(2), 15)).isEqualTo(15);
        assertThat(ranges.rangesOf(PartitionBucket.ofUnpartitioned(2))).isEmpty();
    }

    @Test
    void countAbortedCountsOnlyTheOffsetsInsideTheWindow() {
        AbortedRanges ranges =
                AbortedRanges.of(List.of(range(B0, 10, 20), range(B0, 30, 40), range(B1, 0, 100)));

        assertThat(ranges.countAborted(B0, 0, 100)).isEqualTo(20);
        assertThat(ranges.countAborted(B0, 15, 35)).isEqualTo(10);
        assertThat(ranges.countAborted(B0, 10, 11)).isEqualTo(1);
        assertThat(ranges.countAborted(B0, 20, 30)).isEqualTo(0);
        assertThat(ranges.countAborted(B0, 39, 1000)).isEqualTo(1);
        assertThat(ranges.countAborted(B0, 25, 25)).isEqualTo(0);
        assertThat(ranges.countAborted(P7_B0, 0, 100)).isEqualTo(0);
    }

    @Test
    void abortedRangeRefusesAnEmptyOrReversedOrNegativeRange() {
        assertThatThrownBy(() -> new AbortedRange(B1, 5, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[5, 5)")
                .hasMessageContaining("bucket 1");
        assertThatThrownBy(() -> new AbortedRange(B1, 6, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[6, 5)");
        assertThatThrownBy(() -> new AbortedRange(B1, -1, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[-1, 5)");
    }

    @Test
    void abortedRangeContainsItsStartButNotItsEnd() {
        AbortedRange range = range(B0, 3, 4);

        assertThat(range.contains(2)).isFalse();
        assertThat(range.contains(3)).isTrue();
        assertThat(range.contains(4)).isFalse();
    }

    private static AbortedRange range(PartitionBucket partitionBucket, long start, long end) {
        return new AbortedRange(partitionBucket, start, end);
    }

    private static BinaryRow partition(int value) {
        return new InternalRowSerializer(DataTypes.INT()).toBinaryRow(GenericRow.of(value)).copy();
    }
}
