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

package io.lakestream.store.memory;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the {@code memory} store does beyond the store contract: logs of a new process continue
 * where Paimon's snapshots end, readers wait for such logs, committed records are freed once no
 * reader pins them, and the byte limit back-pressures writers and fails them naming the option.
 * Each test has tables of its own (not the process's), so that the bytes it counts are its own.
 */
class MemoryStreamStoreTest {

    private static final Duration POLL = Duration.ofMillis(50);
    private static final PartitionBucket PB = new PartitionBucket(BinaryRow.EMPTY_ROW, 0);

    private final MemoryStreamTables tables = new MemoryStreamTables();

    private MemoryStreamStore store(long maxBytes, Duration writeTimeout) {
        return new MemoryStreamStore(tables, "", maxBytes, writeTimeout);
    }

    private static StreamTableSpec spec() {
        return spec(1);
    }

    private static StreamTableSpec spec(int buckets) {
        return new StreamTableSpec(
                Identifier.create("db", "t"),
                RowType.of(
                        new org.apache.paimon.types.DataType[] {
                            DataTypes.INT().notNull(), DataTypes.STRING()
                        },
                        new String[] {"id", "v"}),
                Collections.emptyList(),
                Collections.singletonList("id"),
                Collections.singletonList("id"),
                buckets,
                new StreamTableOwner("file:/w/db.db/t", "creation 1"));
    }

    private static void write(StreamWriter writer, int id) {
        writer.write(PB, RowKind.INSERT, GenericRow.of(id, BinaryString.fromString("v" + id)));
    }

    private static List<Long> pollOffsets(StreamReader reader) {
        List<Long> offsets = new ArrayList<>();
        for (StreamRecord record : reader.poll(POLL)) {
            offsets.add(record.offset());
        }
        return offsets;
    }

    @Test
    void aLogOfANewProcessContinuesWhereTheSnapshotsEndAndRefusesOffsetsBelow() {
        MemoryStreamStore store = store(1 << 20, Duration.ofSeconds(1));
        StreamTable table = store.provision(spec());
        assertThat(store.isProcessLocal()).isTrue();
        assertThat(store.listOffsets(table, List.of(PB), OffsetPosition.LATEST))
                .containsEntry(PB, 0L);
        try (StreamWriter writer = store.createWriter(table)) {
            writer.continueAt(PB, 100);
            write(writer, 1);
            assertThat(writer.flush()).containsExactly(Map.entry(PB, 101L));
            // a log this process established is not moved again
            writer.continueAt(PB, 500);
        }
        assertThat(store.listOffsets(table, List.of(PB), OffsetPosition.EARLIEST))
                .containsEntry(PB, 100L);
        try (StreamReader reader = store.createReader(table)) {
            reader.subscribe(PB, 100, 101);
            assertThat(pollOffsets(reader)).containsExactly(100L);
            assertThatThrownBy(() -> reader.subscribe(PB, 50, StreamReader.NO_STOP_OFFSET))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("db.t")
                    .hasMessageContaining("[100, 101)")
                    .hasMessageContaining("Paimon's snapshots");
        }
    }

    @Test
    void aReaderWaitsForALogThatNoWriterOfTheProcessEstablishedYet() {
        MemoryStreamStore store = store(1 << 20, Duration.ofSeconds(1));
        StreamTable table = store.provision(spec());
        try (StreamReader reader = store.createReader(table);
                StreamWriter writer = store.createWriter(table)) {
            // the job restored in this process has not started its writer yet
            reader.subscribe(PB, 40, StreamReader.NO_STOP_OFFSET);
            assertThat(pollOffsets(reader)).isEmpty();
            writer.continueAt(PB, 40);
            write(writer, 1);
            write(writer, 2);
            assertThat(pollOffsets(reader)).containsExactly(40L, 41L);
        }
    }

    @Test
    void aReaderInAProcessWhereNoWriterOfTheTableRanFailsSayingWhereTheStoreServes()
            throws Exception {
        Duration writeTimeout = Duration.ofMillis(200);
        MemoryStreamStore store = store(1 << 20, writeTimeout);
        // as a job planned in another process sees it: the table provisioned, no writer here
        StreamTable table = store.provision(spec());
        try (StreamReader reader = store.createReader(table)) {
            reader.subscribe(PB, 40, StreamReader.NO_STOP_OFFSET);
            assertThat(pollOffsets(reader)).isEmpty();
            long deadline = System.nanoTime() + writeTimeout.multipliedBy(20).toNanos();
            Throwable failure = null;
            while (failure == null && System.nanoTime() < deadline) {
                try {
                    pollOffsets(reader);
                } catch (StreamStoreException e) {
                    failure = e;
                }
            }
            assertThat(failure)
                    .as("a poll after the write timeout")
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("db.t")
                    .hasMessageContaining("offset 40")
                    .hasMessageContaining("serves only readers in the writer's process")
                    .hasMessageContaining("'lake-stream.store'");
        }
    }

    @Test
    void aLateWriterOfTheProcessIsWaitedForPastTheWriteTimeout() {
        MemoryStreamStore store = store(1 << 20, Duration.ofMillis(1));
        StreamTable table = store.provision(spec(2));
        try (StreamReader reader = store.createReader(table);
                StreamWriter writer = store.createWriter(table)) {
            // a writer of the process wrote another partition-bucket: this one is only late
            PartitionBucket other = new PartitionBucket(BinaryRow.EMPTY_ROW, 1);
            writer.continueAt(other, 0);
            reader.subscribe(PB, 40, StreamReader.NO_STOP_OFFSET);
            assertThat(pollOffsets(reader)).isEmpty();
            assertThat(pollOffsets(reader)).isEmpty();
            writer.continueAt(PB, 40);
            write(writer, 1);
            assertThat(pollOffsets(reader)).containsExactly(40L);
        }
    }

    @Test
    void committedRecordsStayWhileThereIsRoomAndGoWhenAWriteNeedsItUnlessAReaderPinsThem()
            throws Exception {
        long recordBytes = bytesOfOneRecord();
        MemoryStreamStore store = store(10 * recordBytes, Duration.ofMinutes(1));
        StreamTable table = store.provision(spec());
        try (StreamWriter writer = store.createWriter(table);
                StreamReader reader = store.createReader(table)) {
            for (int i = 0; i < 10; i++) {
                write(writer, i);
            }
            writer.flush();
            reader.subscribe(PB, 0, StreamReader.NO_STOP_OFFSET);
            store.advanceCommittedOffsets(table, Map.of(PB, 8L));
            // kept while there is room: a reader restored from an older checkpoint reads them
            assertThat(store.listOffsets(table, List.of(PB), OffsetPosition.EARLIEST))
                    .containsEntry(PB, 0L);

            // a write needs room, but the reader has not read the committed records yet
            CompletableFuture<Void> eleventh = CompletableFuture.runAsync(() -> write(writer, 10));
            assertThat(eleventh).failsWithin(300, TimeUnit.MILLISECONDS);
            assertThat(store.usedBytes()).isEqualTo(10 * recordBytes);

            assertThat(pollOffsets(reader)).hasSize(10);
            eleventh.get(1, TimeUnit.MINUTES);
            assertThat(store.listOffsets(table, List.of(PB), OffsetPosition.EARLIEST))
                    .containsEntry(PB, 8L);
            assertThat(store.usedBytes()).isEqualTo(3 * recordBytes);
        }
        try (StreamReader restored = store.createReader(table)) {
            assertThatThrownBy(() -> restored.subscribe(PB, 5, StreamReader.NO_STOP_OFFSET))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("[8, 11)")
                    .hasMessageContaining(LakeStreamOptions.MEMORY_MAX_BYTES.key());
        }
    }

    /** The bytes the store counts for one record of {@link #spec()} written by {@link #write}. */
    private static long bytesOfOneRecord() {
        MemoryStreamStore scratch =
                new MemoryStreamStore(new MemoryStreamTables(), "", 1 << 20, Duration.ofSeconds(1));
        try (StreamWriter writer = scratch.createWriter(scratch.provision(spec()))) {
            write(writer, 1);
        }
        return scratch.usedBytes();
    }

    @Test
    void aWriteOverTheLimitWaitsForACommitToFreeRecords() throws Exception {
        MemoryStreamStore store = store(1, Duration.ofMinutes(1));
        StreamTable table = store.provision(spec());
        try (StreamWriter writer = store.createWriter(table)) {
            // one record is taken whatever the limit, so that a large record cannot wait forever
            write(writer, 1);
            CompletableFuture<Void> second = CompletableFuture.runAsync(() -> write(writer, 2));
            assertThat(second).failsWithin(200, TimeUnit.MILLISECONDS);
            assertThat(second).isNotDone();
            store.advanceCommittedOffsets(table, Map.of(PB, 1L));
            second.get(1, TimeUnit.MINUTES);
            assertThat(writer.flush()).containsExactly(Map.entry(PB, 2L));
        }
    }

    @Test
    void aWriteThatFindsNoRoomWithinTheWriteTimeoutFailsNamingTheOption() {
        MemoryStreamStore store = store(1, Duration.ofMillis(100));
        StreamTable table = store.provision(spec());
        try (StreamWriter writer = store.createWriter(table)) {
            write(writer, 1);
            assertThatThrownBy(() -> write(writer, 2))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining(LakeStreamOptions.MEMORY_MAX_BYTES.key())
                    .hasMessageContaining("db.t");
            // nothing was dropped: the first record is still there, the second was never taken
            assertThat(writer.flush()).containsExactly(Map.entry(PB, 1L));
        }
    }

    @Test
    void aHandleOfATableThisProcessDoesNotKnowRegistersIt() {
        MemoryStreamStore planner = store(1 << 20, Duration.ofSeconds(1));
        StreamTable handle = planner.provision(spec());
        // another process: its tables know nothing of the planner's
        MemoryStreamStore worker =
                new MemoryStreamStore(new MemoryStreamTables(), "", 1 << 20, Duration.ofSeconds(1));
        try (StreamWriter writer = worker.createWriter(handle)) {
            write(writer, 1);
            assertThat(writer.flush()).containsExactly(Map.entry(PB, 1L));
        }
        assertThat(worker.get(spec()).storeTableId()).isEqualTo(handle.storeTableId());
    }

    @Test
    void aMaxBytesThatIsNoSizeIsRefusedNamingTheOption() {
        Map<String, String> options =
                Map.of(
                        LakeStreamOptions.STORE.key(),
                        MemoryStreamStoreFactory.IDENTIFIER,
                        LakeStreamOptions.MEMORY_MAX_BYTES.key(),
                        "lots");
        assertThatThrownBy(
                        () ->
                                StreamStoreLoader.create(
                                        options, MemoryStreamStoreTest.class.getClassLoader()))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(LakeStreamOptions.MEMORY_MAX_BYTES.key())
                .hasMessageContaining("'lots'");
    }

    @Test
    void aReadOfATableThisProcessNeverHeldSaysWhereTheStoreServes() {
        MemoryStreamStore store = store(1 << 20, Duration.ofSeconds(1));
        assertThatThrownBy(() -> store.get(spec()))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("db.t")
                .hasMessageContaining("serves readers of that process only");
    }
}
