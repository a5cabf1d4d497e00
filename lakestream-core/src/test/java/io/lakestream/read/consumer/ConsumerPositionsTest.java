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

package io.lakestream.read.consumer;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.read.plan.ReadStart;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ConsumerPositions} on a real Paimon table with six snapshots (1-5 of the lake-stream sink,
 * offsets 1 to 5, 6 of another writer): a position is read back only while Paimon's consumer file
 * says what it was written with, Paimon's own consumer APIs see the consumer and not the position,
 * and Paimon's snapshot expiry keeps the consumer's next snapshot.
 */
class ConsumerPositionsTest {

    @TempDir java.nio.file.Path warehouse;

    private FileStoreTable table;
    private ConsumerPositions positions;

    private static final byte[] STATE = "the engine's position".getBytes(StandardCharsets.UTF_8);

    @BeforeEach
    void createHistory() throws Exception {
        table =
                LocalPaimonTables.create(
                        warehouse,
                        "t",
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .option("bucket", "1")
                                .option("bucket-key", "id")
                                .build());
        for (int id = 1; id <= 5; id++) {
            Map<PartitionBucket, Long> map = new HashMap<>();
            map.put(PartitionBucket.ofUnpartitioned(0), (long) id);
            LocalPaimonTables.commitWithOffsets(
                    table,
                    "lake",
                    id,
                    StreamOffsets.of(map),
                    Collections.singletonList(GenericRow.of(id)),
                    true);
        }
        LocalPaimonTables.commitWithoutOffsets(
                table.copy(Collections.singletonMap("write-only", "true")),
                Collections.singletonList(GenericRow.of(6)));
        assertThat(table.snapshotManager().latestSnapshotId()).isEqualTo(6);
        positions = new ConsumerPositions(table, "c1");
    }

    @Test
    void aPositionIsReadBackWithTheConsumerFileItWasWrittenWith() throws Exception {
        assertThat(recorded(positions)).isEmpty();
        assertThat(positions.nextSnapshot()).isEmpty();

        positions.write(4, 17, 3, STATE);

        ConsumerPositions.Recorded recorded = recorded(positions).get();
        assertThat(recorded.nextSnapshot()).isEqualTo(4);
        assertThat(recorded.checkpointId()).isEqualTo(17);
        assertThat(recorded.stateVersion()).isEqualTo(3);
        assertThat(recorded.state()).isEqualTo(STATE);
        assertThat(table.consumerManager().consumer("c1").map(Consumer::nextSnapshot)).contains(4L);
        assertThat(table.consumerManager().listAllIds())
                .as("Paimon's consumers: the position file is none")
                .containsExactly("c1");

        positions.write(6, 18, 3, STATE);
        assertThat(recorded(positions).get().checkpointId()).isEqualTo(18);
    }

    @Test
    void aResetConsumerOrADeletedOneHasNoPosition() throws Exception {
        positions.write(4, 17, 3, STATE);

        // what CALL sys.reset_consumer does
        table.consumerManager().resetConsumer("c1", new Consumer(2));
        assertThat(recorded(positions)).isEmpty();
        assertThat(positions.nextSnapshot()).contains(2L);

        table.consumerManager().deleteConsumer("c1");
        assertThat(recorded(positions)).isEmpty();
        assertThat(positions.nextSnapshot()).isEmpty();
    }

    @Test
    void aTornPositionIsNone() throws Exception {
        positions.write(4, 17, 3, STATE);
        byte[] whole = readPositionFile();

        overwritePositionFile(Arrays.copyOf(whole, whole.length - 3));
        assertThat(recorded(positions)).as("cut short").isEmpty();

        byte[] flipped = whole.clone();
        flipped[20] ^= 1;
        overwritePositionFile(flipped);
        assertThat(recorded(positions)).as("a byte changed").isEmpty();

        overwritePositionFile(whole);
        assertThat(recorded(positions)).isPresent();
    }

    /**
     * A position written by a later format (a newer connector) is not read as if it were this
     * one's, nor silently dropped: the read fails naming the consumer, the table and what to do.
     */
    @Test
    void aPositionOfAnotherFormatVersionFailsNamingTheConsumerAndTheWayOut() throws Exception {
        positions.write(4, 17, 3, STATE);
        byte[] later = readPositionFile();
        ByteBuffer.wrap(later).putInt(0, 2);
        CRC32 crc = new CRC32();
        crc.update(later, 0, later.length - Long.BYTES);
        ByteBuffer.wrap(later).putLong(later.length - Long.BYTES, crc.getValue());
        overwritePositionFile(later);

        assertThat(positions.nextSnapshot()).as("Paimon's consumer file is untouched").contains(4L);
        assertThatThrownBy(() -> positions.positionAt(4))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("consumer c1")
                .hasMessageContaining(table.fullName())
                .hasMessageContaining("format version 2")
                .hasMessageContaining("sys.reset_consumer");
    }

    @Test
    void snapshotExpiryKeepsTheConsumersNextSnapshotAndEveryLaterOne() throws Exception {
        positions.write(4, 17, 3, STATE);

        table.newExpireSnapshots()
                .config(
                        ExpireConfig.builder()
                                .snapshotRetainMax(1)
                                .snapshotRetainMin(1)
                                .snapshotTimeRetain(Duration.ZERO)
                                .build())
                .expire();

        assertThat(table.snapshotManager().earliestSnapshotId()).isEqualTo(4);
        assertThat(recorded(positions)).isPresent();
    }

    @Test
    void aConsumerWithoutPositionReadsTheChangesOfItsNextSnapshotOnAsPaimonDoes() {
        // the changes of snapshot 5 and later: the store from snapshot 4's offsets
        ReadStart start = ReadStart.consumerResume(table, 5);
        assertThat(start.readsState()).isFalse();
        assertThat(start.changesAfter()).isEqualTo(4);
        assertThat(start.logOffsets().asMap())
                .containsEntry(PartitionBucket.ofUnpartitioned(0), 4L);
    }

    private byte[] readPositionFile() throws Exception {
        try (java.io.InputStream in = table.fileIO().newInputStream(positions.positionPath())) {
            return in.readAllBytes();
        }
    }

    private void overwritePositionFile(byte[] bytes) throws Exception {
        Path path = positions.positionPath();
        try (PositionOutputStream out = table.fileIO().newOutputStream(path, true)) {
            out.write(bytes);
        }
    }

    /** The position recorded with the consumer file's next snapshot, as a source resumes it. */
    private static Optional<ConsumerPositions.Recorded> recorded(ConsumerPositions positions) {
        return positions.nextSnapshot().flatMap(positions::positionAt);
    }
}
