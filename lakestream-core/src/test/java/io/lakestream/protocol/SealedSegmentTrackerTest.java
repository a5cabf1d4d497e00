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

package io.lakestream.protocol;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests for {@link SealedSegmentTracker}. */
class SealedSegmentTrackerTest {

    private static final StreamTable TABLE =
            new StreamTable(
                    new StreamTableSpec(
                            Identifier.create("db", "t"),
                            RowType.of(
                                    new org.apache.paimon.types.DataType[] {
                                        DataTypes.STRING(), DataTypes.INT(), DataTypes.STRING()
                                    },
                                    new String[] {"dt", "id", "name"}),
                            List.of("dt"),
                            List.of("id"),
                            List.of("dt", "id"),
                            4),
                    "db.t",
                    1L);

    private static BinaryRow partition(String dt) {
        BinaryRow row = new BinaryRow(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeString(0, BinaryString.fromString(dt));
        writer.complete();
        return row;
    }

    private static void write(
            SealedSegmentTracker tracker, BinaryRow partition, int bucket, int n) {
        for (int i = 0; i < n; i++) {
            tracker.recordWritten(partition, bucket);
        }
    }

    @Test
    void acceptsEndOffsetsOfStartPlusWrittenAndAdoptsThem() {
        PartitionBucket day1Bucket0 = new PartitionBucket(partition("2024-01-01"), 0);
        PartitionBucket day2Bucket1 = new PartitionBucket(partition("2024-01-02"), 1);
        SealedSegmentTracker tracker =
                new SealedSegmentTracker(TABLE, Map.of(day1Bucket0, 10L), Map.of(day1Bucket0, 10L));

        write(tracker, partition("2024-01-01"), 0, 3);
        write(tracker, partition("2024-01-02"), 1, 2);
        tracker.checkSealed(Map.of(day1Bucket0, 13L, day2Bucket1, 2L));

        assertThat(tracker.endOffsets()).isEqualTo(Map.of(day1Bucket0, 13L, day2Bucket1, 2L));
        assertThat(tracker.size()).isEqualTo(2);

        // the second round builds on the adopted offsets
        write(tracker, partition("2024-01-01"), 0, 1);
        write(tracker, partition("2024-01-02"), 1, 4);
        tracker.checkSealed(Map.of(day1Bucket0, 14L, day2Bucket1, 6L));

        assertThat(tracker.endOffsets()).isEqualTo(Map.of(day1Bucket0, 14L, day2Bucket1, 6L));
    }

    @Test
    void segmentsStartWhereTheWriterFencedFromThenWhereThePreviousOneEnded() {
        PartitionBucket fenced = new PartitionBucket(partition("2024-01-01"), 0);
        PartitionBucket fresh = new PartitionBucket(partition("2024-01-02"), 1);
        // the store held [7, 10) of a failed attempt, fenced on start
        SealedSegmentTracker tracker =
                new SealedSegmentTracker(TABLE, Map.of(fenced, 10L), Map.of(fenced, 7L));
        write(tracker, partition("2024-01-01"), 0, 3);
        write(tracker, partition("2024-01-02"), 1, 2);
        Map<PartitionBucket, Long> first = Map.of(fenced, 13L, fresh, 2L);
        tracker.checkSealed(first);

        assertThat(tracker.takeSegmentStarts(first)).isEqualTo(Map.of(fenced, 7L, fresh, 0L));

        write(tracker, partition("2024-01-01"), 0, 1);
        Map<PartitionBucket, Long> second = Map.of(fenced, 14L);
        tracker.checkSealed(second);

        assertThat(tracker.takeSegmentStarts(second)).isEqualTo(Map.of(fenced, 13L));
    }

    @Test
    void aPartitionDroppedAndWrittenAgainStartsANewLogFromZero() {
        PartitionBucket pb = new PartitionBucket(partition("2024-01-01"), 0);
        SealedSegmentTracker tracker =
                new SealedSegmentTracker(TABLE, Map.of(pb, 50L), Map.of(pb, 50L));
        // the partition was dropped once all 50 were committed; the writer created it again
        write(tracker, partition("2024-01-01"), 0, 3);
        Map<PartitionBucket, Long> sealed = Map.of(pb, 3L);

        assertThat(tracker.checkSealed(sealed)).isEqualTo(3);
        assertThat(tracker.takeSegmentStarts(sealed)).isEqualTo(Map.of(pb, 0L));
        assertThat(tracker.endOffsets()).isEqualTo(Map.of(pb, 3L));
    }

    @Test
    void secondRoundExpectsTheAdoptedOffsetsNotTheStartOnes() {
        PartitionBucket pb = new PartitionBucket(partition("2024-01-01"), 0);
        SealedSegmentTracker tracker =
                new SealedSegmentTracker(TABLE, Map.of(pb, 10L), Map.of(pb, 10L));
        write(tracker, partition("2024-01-01"), 0, 3);
        tracker.checkSealed(Map.of(pb, 13L));

        write(tracker, partition("2024-01-01"), 0, 2);

        // start + all written would be 15 too, but a store that repeats the first round's end
        // must not pass
        assertThatThrownBy(() -> tracker.checkSealed(Map.of(pb, 13L)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("expected 15");
    }

    @Test
    void partitionBucketsNotWrittenNeedNoReportedOffset() {
        PartitionBucket written = new PartitionBucket(partition("2024-01-01"), 0);
        PartitionBucket idle = new PartitionBucket(partition("2024-01-01"), 1);
        SealedSegmentTracker tracker =
                new SealedSegmentTracker(
                        TABLE, Map.of(written, 5L, idle, 8L), Map.of(written, 5L, idle, 8L));

        write(tracker, partition("2024-01-01"), 0, 1);
        tracker.checkSealed(Map.of(written, 6L));

        assertThat(tracker.endOffsets()).isEqualTo(Map.of(written, 6L, idle, 8L));
    }

    @Test
    void largerReportedOffsetFailsNamingThePartitionBucketBothOffsetsAndAnotherJob() {
        PartitionBucket pb = new PartitionBucket(partition("2024-01-01"), 2);
        SealedSegmentTracker tracker =
                new SealedSegmentTracker(TABLE, Map.of(pb, 100L), Map.of(pb, 100L));
        write(tracker, partition("2024-01-01"), 2, 5);

        assertThatThrownBy(() -> tracker.checkSealed(Map.of(pb, 107L)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("dt=2024-01-01, bucket 2")
                .hasMessageContaining("107")
                .hasMessageContaining("expected 105")
                .hasMessageContaining("db.t")
                .hasMessageContaining("Another job");
        // nothing adopted on failure
        assertThat(tracker.endOffsets()).isEqualTo(Map.of(pb, 100L));
    }

    @Test
    void missingReportedOffsetFails() {
        PartitionBucket pb = new PartitionBucket(partition("2024-01-01"), 1);
        PartitionBucket other = new PartitionBucket(partition("2024-01-02"), 1);
        SealedSegmentTracker tracker = new SealedSegmentTracker(TABLE, Map.of(), Map.of());
        write(tracker, partition("2024-01-01"), 1, 3);

        assertThatThrownBy(() -> tracker.checkSealed(Map.of(other, 3L)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("dt=2024-01-01, bucket 1")
                .hasMessageContaining("expected 3");
    }

    @Test
    void recordedKeyStaysEqualAfterTheCallerReusesThePartitionRow() {
        SealedSegmentTracker tracker = new SealedSegmentTracker(TABLE, Map.of(), Map.of());
        BinaryRow reused = new BinaryRow(1);
        BinaryRowWriter writer = new BinaryRowWriter(reused);
        writer.writeString(0, BinaryString.fromString("2024-01-01"));
        writer.complete();

        PartitionBucket first = tracker.recordWritten(reused, 3);
        // overwrite the same row in place, as Paimon does with its reused partition row
        writer.reset();
        writer.writeString(0, BinaryString.fromString("2024-12-31"));
        writer.complete();
        PartitionBucket second = tracker.recordWritten(reused, 3);

        PartitionBucket original = new PartitionBucket(partition("2024-01-01"), 3);
        PartitionBucket overwritten = new PartitionBucket(partition("2024-12-31"), 3);
        assertThat(reused).isNotEqualTo(original.partition());
        assertThat(first).isEqualTo(original);
        assertThat(first.hashCode()).isEqualTo(original.hashCode());
        assertThat(second).isEqualTo(overwritten);

        // the counts were kept per original value: one record each
        Map<PartitionBucket, Long> sealed = new HashMap<>();
        sealed.put(original, 1L);
        sealed.put(overwritten, 1L);
        tracker.checkSealed(sealed);
        assertThat(tracker.endOffsets()).isEqualTo(sealed);
    }

    @Test
    void returnsOneKeyObjectPerPartitionBucketAcrossInterleavedRecordsAndSeals() {
        SealedSegmentTracker tracker = new SealedSegmentTracker(TABLE, Map.of(), Map.of());
        // one reused partition row, overwritten for every record, as Paimon's extractor does
        BinaryRow reused = new BinaryRow(1);
        BinaryRowWriter writer = new BinaryRowWriter(reused);
        Map<PartitionBucket, PartitionBucket> firstKeys = new HashMap<>();
        Map<PartitionBucket, Long> expected = new HashMap<>();
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 60; i++) {
                String dt = "2024-01-0" + (i % 3);
                int bucket = i % 4;
                writer.reset();
                writer.writeString(0, BinaryString.fromString(dt));
                writer.complete();
                PartitionBucket key = tracker.recordWritten(reused, bucket);
                PartitionBucket first = firstKeys.putIfAbsent(key, key);
                if (first != null) {
                    assertThat(key).as("the same key object").isSameAs(first);
                }
                expected.merge(new PartitionBucket(partition(dt), bucket), 1L, Long::sum);
            }
            assertThat(tracker.checkSealed(expected)).isEqualTo(60);
            assertThat(tracker.endOffsets()).isEqualTo(expected);
        }
        assertThat(firstKeys).hasSize(12);
    }

    @Test
    void aFailedCheckAdoptsNoOffsetOfAnyPartitionBucket() {
        PartitionBucket good = new PartitionBucket(partition("2024-01-01"), 0);
        PartitionBucket bad = new PartitionBucket(partition("2024-01-02"), 0);
        SealedSegmentTracker tracker = new SealedSegmentTracker(TABLE, Map.of(), Map.of());
        write(tracker, partition("2024-01-01"), 0, 2);
        write(tracker, partition("2024-01-02"), 0, 2);

        assertThatThrownBy(() -> tracker.checkSealed(Map.of(good, 2L, bad, 3L)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("expected 2");
        assertThat(tracker.endOffsets()).isEmpty();
    }

    @Test
    void aBucketBeyondTheTableCountIsCountedToo() {
        SealedSegmentTracker tracker = new SealedSegmentTracker(TABLE, Map.of(), Map.of());
        write(tracker, partition("2024-01-01"), 6, 2);

        PartitionBucket pb = new PartitionBucket(partition("2024-01-01"), 6);
        assertThat(tracker.checkSealed(Map.of(pb, 2L))).isEqualTo(2);
        assertThat(tracker.endOffsets()).isEqualTo(Map.of(pb, 2L));
    }
}
