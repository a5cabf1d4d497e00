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

package io.lakestream.flink.source.enumerator;

import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.flink.source.split.ReaderPositionEvent;
import io.lakestream.flink.source.split.TestDataSplits;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamReader;

import org.apache.paimon.table.source.DataSplit;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a read with a {@code consumer-id} puts its position together: the enumerator's state and
 * every reader's splits of one checkpoint, once it has completed, whatever order they arrive in.
 */
class ConsumerProgressTest {

    private static final PartitionBucket B0 = PartitionBucket.ofUnpartitioned(0);
    private static final PartitionBucket B1 = PartitionBucket.ofUnpartitioned(1);

    private static LakeStreamEnumeratorState enumerator(
            Long nextFollowed, LakeStreamSplit... unassigned) {
        return new LakeStreamEnumeratorState(
                Arrays.asList(B0, B1), Arrays.asList(unassigned), 3L, nextFollowed);
    }

    private static LakeStreamSplit logAt(PartitionBucket pb, long offset) {
        return new LakeStreamSplit(
                pb, Collections.emptyList(), 0, true, offset, StreamReader.NO_STOP_OFFSET);
    }

    private static LakeStreamSplit lakePartOf(PartitionBucket pb, long snapshotId, long emitted) {
        return new LakeStreamSplit(
                pb,
                Collections.singletonList(dataSplit(pb, snapshotId)),
                emitted,
                false,
                7,
                StreamReader.NO_STOP_OFFSET);
    }

    private static DataSplit dataSplit(PartitionBucket pb, long snapshotId) {
        return TestDataSplits.of(pb.partition(), pb.bucket(), "data-" + snapshotId, snapshotId);
    }

    private static ReaderPositionEvent reader(long checkpoint, LakeStreamSplit... splits) {
        return ReaderPositionEvent.of(checkpoint, Arrays.asList(splits));
    }

    @Test
    void aPositionIsReadyOnceTheCheckpointCompletedAndEveryReaderReported() {
        ConsumerProgress progress = new ConsumerProgress();
        progress.enumeratorSnapshot(1, enumerator(8L));
        progress.readerSnapshot(0, reader(1, logAt(B0, 40)));
        assertThat(progress.poll(2)).as("not completed").isEmpty();
        progress.checkpointComplete(1);
        assertThat(progress.poll(2)).as("reader 1 has not reported").isEmpty();
        progress.readerSnapshot(1, reader(1, logAt(B1, 50)));

        ConsumerProgress.Position position = progress.poll(2).get();
        assertThat(position.checkpointId).isEqualTo(1);
        assertThat(position.nextSnapshot).isEqualTo(8);
        assertThat(position.state.unassigned())
                .containsExactlyInAnyOrder(logAt(B0, 40), logAt(B1, 50));
        assertThat(position.state.planned()).containsExactly(B0, B1);
        assertThat(position.state.checkedSchemaId()).isEqualTo(3L);
        assertThat(position.state.nextFollowedSnapshotId()).isEqualTo(8L);
        assertThat(progress.poll(2)).as("handed out once").isEmpty();
        assertThat(progress.pendingCount()).isZero();
    }

    @Test
    void readersMayReportAfterTheCompletionAndTheNewestReadyCheckpointWins() {
        ConsumerProgress progress = new ConsumerProgress();
        progress.enumeratorSnapshot(1, enumerator(8L, logAt(B1, 0)));
        progress.enumeratorSnapshot(2, enumerator(9L));
        progress.checkpointComplete(1);
        progress.checkpointComplete(2);
        progress.readerSnapshot(0, reader(2, logAt(B0, 60), logAt(B1, 5)));
        progress.readerSnapshot(0, reader(1, logAt(B0, 40)));

        ConsumerProgress.Position position = progress.poll(1).get();
        assertThat(position.checkpointId).isEqualTo(2);
        assertThat(position.state.unassigned()).containsExactly(logAt(B0, 60), logAt(B1, 5));
        assertThat(progress.pendingCount()).as("checkpoint 1 dropped with it").isZero();
    }

    @Test
    void anAbortedCheckpointIsDroppedWhenALaterOneCompletes() {
        ConsumerProgress progress = new ConsumerProgress();
        progress.enumeratorSnapshot(1, enumerator(8L));
        progress.readerSnapshot(0, reader(1, logAt(B0, 40)));
        progress.enumeratorSnapshot(2, enumerator(8L));
        progress.checkpointComplete(2);
        assertThat(progress.pendingCount()).isEqualTo(1);
        // a late report of the aborted checkpoint is not kept either
        progress.readerSnapshot(0, reader(1, logAt(B0, 45)));
        assertThat(progress.poll(1)).isEmpty();
        progress.readerSnapshot(0, reader(2, logAt(B0, 50)));
        assertThat(progress.poll(1).get().state.unassigned()).containsExactly(logAt(B0, 50));
    }

    @Test
    void aReadersSplitWinsOverTheEnumeratorsCopyOfIt() {
        ConsumerProgress progress = new ConsumerProgress();
        progress.enumeratorSnapshot(1, enumerator(8L, logAt(B0, 0)));
        progress.readerSnapshot(0, reader(1, logAt(B0, 40)));
        progress.checkpointComplete(1);
        assertThat(progress.poll(1).get().state.unassigned()).containsExactly(logAt(B0, 40));
    }

    @Test
    void noPositionBeforeTheReadIsPlannedOrWhenAReadersSplitsAreTooLarge() {
        ConsumerProgress progress = new ConsumerProgress();
        progress.enumeratorSnapshot(1, enumerator(null));
        progress.readerSnapshot(0, reader(1));
        progress.checkpointComplete(1);
        assertThat(progress.poll(1)).as("not planned yet").isEmpty();

        LakeStreamSplit[] many = new LakeStreamSplit[40_000];
        for (int i = 0; i < many.length; i++) {
            many[i] = lakePartOf(PartitionBucket.ofUnpartitioned(i), 5, 0);
        }
        ReaderPositionEvent tooLarge = reader(2, many);
        assertThat(tooLarge.tooLarge()).isTrue();
        progress.enumeratorSnapshot(2, enumerator(8L));
        progress.readerSnapshot(0, tooLarge);
        progress.checkpointComplete(2);
        assertThat(progress.poll(1)).as("too large").isEmpty();
    }

    @Test
    void theNextSnapshotIsTheOldestOneAPositionStillReads() {
        List<LakeStreamSplit> finished = Arrays.asList(logAt(B0, 40), logAt(B1, 9));
        assertThat(ConsumerProgress.nextSnapshot(8, finished)).isEqualTo(8);

        // the start snapshot's lake part, not read to its end
        assertThat(ConsumerProgress.nextSnapshot(8, Arrays.asList(lakePartOf(B0, 5, 100))))
                .isEqualTo(5);
        // another writer's commit not read yet
        LakeStreamSplit followed =
                LakeStreamSplit.followed(B1, Collections.singletonList(dataSplit(B1, 6)), 6);
        assertThat(ConsumerProgress.nextSnapshot(8, Arrays.asList(logAt(B0, 40), followed)))
                .isEqualTo(6);
    }
}
