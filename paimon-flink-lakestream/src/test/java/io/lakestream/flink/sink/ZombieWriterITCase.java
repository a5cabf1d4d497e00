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

package io.lakestream.flink.sink;

import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.protocol.SealedSegmentTracker;
import io.lakestream.store.FenceLog;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a zombie writer can do: a task of a failed attempt on a TaskManager cut off from the
 * JobManager keeps appending, with a Fluss connection of its own, after the new attempt fenced the
 * partition-bucket and started writing. Fluss 0.9.1 cannot refuse its appends (a writer id is
 * handed out per client, with no epoch a later writer could bump), so this measures what follows: a
 * {@code read-uncommitted} reader sees the zombie's records, the new attempt's next seal fails
 * naming them, and the attempt after that fences them, so that later readers never see them.
 */
@ExtendWith(SharedStreamStore.class)
class ZombieWriterITCase {

    /** The cut-off TaskManager's store client. */
    private static StreamStore zombieStore;

    /** The new attempt's store client, which also reads. */
    private static StreamStore attemptStore;

    @BeforeAll
    static void open() {
        zombieStore = SharedStreamStore.newStore();
        attemptStore = SharedStreamStore.newStore();
    }

    @AfterAll
    static void close() {
        zombieStore.close();
        attemptStore.close();
    }

    private static final PartitionBucket BUCKET = new PartitionBucket(BinaryRow.EMPTY_ROW, 0);

    @Test
    void aZombieWritesAfterTheFenceUntilTheNextAttemptFencesIt() throws Exception {
        StreamTableSpec spec =
                new StreamTableSpec(
                        Identifier.create("zombie_it", "t"),
                        RowType.of(
                                new org.apache.paimon.types.DataType[] {
                                    DataTypes.INT().notNull(), DataTypes.STRING()
                                },
                                new String[] {"id", "attempt"}),
                        Collections.emptyList(),
                        Collections.singletonList("id"),
                        Collections.emptyList(),
                        1);
        StreamTable table = attemptStore.provision(spec);
        try (StreamWriter zombie = zombieStore.createWriter(zombieStore.get(spec));
                StreamWriter restored = attemptStore.createWriter(table);
                FenceLog fences = attemptStore.openFenceLog(table)) {
            // the first attempt: 10 records covered by a checkpoint, 5 more, then it is cut off
            write(zombie, 0, 10, "first");
            write(zombie, 10, 5, "first");
            assertThat(zombie.flush()).containsEntry(BUCKET, 15L);

            // the new attempt restores offset 10, fences what followed and writes 5 records
            fences.record(new AbortedRange(BUCKET, 10, 15));
            SealedSegmentTracker tracker =
                    new SealedSegmentTracker(table, Map.of(BUCKET, 15L), Map.of(BUCKET, 10L));
            for (int i = 0; i < 5; i++) {
                tracker.recordWritten(BinaryRow.EMPTY_ROW, 0);
            }
            write(restored, 100, 5, "restored");
            // the two clients send independently: the attempt's records reach the store first
            Await.until(
                    () ->
                            attemptStore
                                            .listOffsets(
                                                    table,
                                                    Collections.singletonList(BUCKET),
                                                    OffsetPosition.LATEST)
                                            .get(BUCKET)
                                    == 20L,
                    "the new attempt's records in the store");

            // the zombie has not noticed yet and appends 3 more
            write(zombie, 15, 3, "zombie");
            assertThat(zombie.flush()).containsEntry(BUCKET, 23L);

            // the new attempt's next seal sees 3 records that are not its own
            Map<PartitionBucket, Long> sealed = restored.flush();
            assertThat(sealed).containsEntry(BUCKET, 23L);
            assertThatThrownBy(() -> tracker.checkSealed(sealed))
                    .satisfies(e -> System.out.println("The new attempt fails: " + e.getMessage()))
                    .hasMessageContaining("3 of the records in [15, 23)")
                    .hasMessageContaining("earlier attempt of this job");

            // meanwhile a read-uncommitted reader sees the zombie's records
            List<String> seen = readAttempts(table, 10, 23);
            assertThat(seen).containsOnly("restored", "zombie").hasSize(8);
            assertThat(seen.stream().filter("zombie"::equals)).hasSize(3);

            // the attempt after that restores offset 10 again and fences everything past it
            fences.record(new AbortedRange(BUCKET, 10, 23));
        }
        assertThat(readAttempts(table, 10, 23)).as("read after the second fence").isEmpty();
    }

    private static void write(StreamWriter writer, int from, int count, String attempt) {
        for (int id = from; id < from + count; id++) {
            writer.write(BUCKET, GenericRow.of(id, BinaryString.fromString(attempt)));
        }
    }

    /** The attempts of the unfenced records in [from, to) a fenced reader returns. */
    private static List<String> readAttempts(StreamTable table, long from, long to) {
        List<String> attempts = new ArrayList<>();
        try (FencedStreamReader reader =
                new FencedStreamReader(
                        attemptStore.createReader(table), attemptStore.openFenceLog(table))) {
            reader.subscribe(BUCKET, from, to);
            long deadline = System.currentTimeMillis() + 60_000;
            while (reader.finished().isEmpty()) {
                assertThat(System.currentTimeMillis())
                        .as("reading [%d, %d) within a minute", from, to)
                        .isLessThan(deadline);
                for (StreamRecord record : reader.poll(Duration.ofMillis(200))) {
                    attempts.add(record.row().getString(1).toString());
                }
            }
        }
        return attempts;
    }
}
