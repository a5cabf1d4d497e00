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

package io.lakestream.flink.source.reader;

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.AbortedRanges;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.StreamRecord;

import org.apache.paimon.data.GenericRow;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What a read-committed reader's hold keeps, drops, pauses and resumes. */
class ReadCommittedHoldTest {

    private static final PartitionBucket TAIL = PartitionBucket.ofUnpartitioned(0);
    private static final PartitionBucket LIVE = PartitionBucket.ofUnpartitioned(1);

    private final CommittedOffsets committed = new CommittedOffsets();

    private static StreamRecord record(PartitionBucket pb, long offset) {
        return new StreamRecord(pb, offset, 0L, GenericRow.of((int) offset));
    }

    @Test
    void fencedRecordsAreDroppedWhateverTheCommittedOffset() {
        ReadCommittedHold hold = new ReadCommittedHold(committed, 1_000);
        for (long offset = 0; offset < 20; offset++) {
            assertThat(hold.holds(record(TAIL, offset))).isTrue();
        }
        for (long offset = 0; offset < 5; offset++) {
            assertThat(hold.holds(record(LIVE, offset))).isTrue();
        }
        // the next writer fences the cancelled job's tail and commits elsewhere only
        hold.dropFenced(AbortedRanges.of(List.of(new AbortedRange(TAIL, 0, 20))));
        assertThat(hold.heldCount()).as("only the live writer's records").isEqualTo(5);
    }

    @Test
    void aFullHoldPausesTheLargestAndResumesItPastFencesOnceACommitReachesIt() {
        ReadCommittedHold hold = new ReadCommittedHold(committed, 10);
        for (long offset = 4; offset < 12; offset++) {
            hold.holds(record(TAIL, offset));
        }
        hold.holds(record(LIVE, 0));
        hold.holds(record(LIVE, 1));
        assertThat(hold.isFull()).isTrue();

        assertThat(hold.pauseLargest()).isEqualTo(TAIL);
        assertThat(hold.isPaused(TAIL)).isTrue();
        assertThat(hold.heldCount()).isEqualTo(2);
        assertThat(hold.isFull()).isFalse();

        AbortedRanges fences = AbortedRanges.of(List.of(new AbortedRange(TAIL, 4, 9)));
        assertThat(hold.resumable(fences)).as("no commit reached it").isEmpty();
        committed.advance(StreamOffsets.of(Map.of(TAIL, 9L)));
        assertThat(hold.resumable(fences))
                .as("a commit up to the fence's end releases nothing there")
                .isEmpty();
        committed.advance(StreamOffsets.of(Map.of(TAIL, 10L)));
        assertThat(hold.resumable(fences)).isEqualTo(Map.of(TAIL, 9L));
        assertThat(hold.isPaused(TAIL)).isFalse();
    }
}
