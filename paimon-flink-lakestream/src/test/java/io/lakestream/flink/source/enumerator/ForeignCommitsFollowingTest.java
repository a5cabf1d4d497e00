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
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.StreamTable;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.apache.flink.runtime.execution.SuppressRestartsException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How an unbounded read's {@link LakeStreamSplitEnumerator} follows the commits of other writers
 * (snapshots without an offsets map), driven by Flink's {@link MockSplitEnumeratorContext} on a
 * real Paimon table: each such snapshot's changes go, once and in snapshot order, to the reader
 * that owns their partition-bucket's log; a restore neither repeats nor skips one; what cannot be
 * followed fails the read for good, naming the snapshot and its commit user.
 */
class ForeignCommitsFollowingTest {

    private static final int BUCKETS = 2;

    /** The periodic callables of an unbounded read: discovery first, then following. */
    private static final int FOLLOW = 1;

    @TempDir java.nio.file.Path warehouse;

    private FileStoreTable table;
    private StreamTable streamTable;
    private long commits;

    /** The reader each partition-bucket's log went to, across restores. */
    private final Map<PartitionBucket, Integer> logOwners = new HashMap<>();

    private void createTable(boolean primaryKey, String... options) throws Exception {
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("v", DataTypes.STRING())
                        .option("bucket", String.valueOf(BUCKETS))
                        .option("snapshot.num-retained.min", "3")
                        .option("snapshot.num-retained.max", "3");
        if (primaryKey) {
            schema.primaryKey("id");
        } else {
            schema.option("bucket-key", "id");
        }
        for (int i = 0; i < options.length; i += 2) {
            schema.option(options[i], options[i + 1]);
        }
        table = LocalPaimonTables.create(warehouse, "t", schema.build());
        streamTable = LocalPaimonTables.streamTable(table);
    }

    private void commitWithOffsets(long offset, int... ids) throws Exception {
        Map<PartitionBucket, Long> offsets = new HashMap<>();
        offsets.put(PartitionBucket.ofUnpartitioned(0), offset);
        offsets.put(PartitionBucket.ofUnpartitioned(1), offset);
        LocalPaimonTables.commitWithOffsets(
                table, "lake", ++commits, StreamOffsets.of(offsets), rows(ids), true);
    }

    private void commitWithoutOffsets(int... ids) throws Exception {
        LocalPaimonTables.commitWithoutOffsets(table, rows(ids));
    }

    private static List<GenericRow> rows(int... ids) {
        List<GenericRow> rows = new ArrayList<>();
        for (int id : ids) {
            rows.add(GenericRow.of(id, BinaryString.fromString("v" + id)));
        }
        return rows;
    }

    private LakeStreamSplitEnumerator unbounded(
            MockSplitEnumeratorContext<LakeStreamSplit> context,
            LakeStreamEnumeratorState restored) {
        return UnboundedEnumerators.unbounded(context, table, streamTable, restored);
    }

    /** Every split assigned so far, with the reader it went to, in assignment order. */
    private static List<Map.Entry<Integer, LakeStreamSplit>> assigned(
            MockSplitEnumeratorContext<LakeStreamSplit> context) {
        List<Map.Entry<Integer, LakeStreamSplit>> splits = new ArrayList<>();
        for (SplitsAssignment<LakeStreamSplit> assignment : context.getSplitsAssignmentSequence()) {
            assignment
                    .assignment()
                    .forEach(
                            (reader, list) ->
                                    list.forEach(
                                            split ->
                                                    splits.add(
                                                            new java.util.AbstractMap
                                                                    .SimpleImmutableEntry<>(
                                                                    reader, split))));
        }
        return splits;
    }

    /** The followed splits assigned so far, by snapshot, with the row count of each snapshot. */
    private Map<Long, Long> followedRows(MockSplitEnumeratorContext<LakeStreamSplit> context) {
        Map<Long, Long> rows = new HashMap<>();
        long lastSnapshot = 0;
        for (Map.Entry<Integer, LakeStreamSplit> entry : assigned(context)) {
            LakeStreamSplit split = entry.getValue();
            if (!split.isFollowed()) {
                logOwners.put(split.partitionBucket(), entry.getKey());
                continue;
            }
            assertThat(split.followedSnapshotId())
                    .as("snapshots follow in order")
                    .isGreaterThanOrEqualTo(lastSnapshot);
            lastSnapshot = split.followedSnapshotId();
            assertThat(entry.getKey())
                    .as("the owner of %s's log", split.partitionBucket())
                    .isEqualTo(logOwners.get(split.partitionBucket()));
            assertThat(split.isBounded()).isTrue();
            assertThat(split.logStopOffset()).isEqualTo(split.nextLogOffset());
            rows.merge(
                    split.followedSnapshotId(),
                    split.lakeSplits().stream().mapToLong(DataSplit::rowCount).sum(),
                    Long::sum);
        }
        return rows;
    }

    private static MockSplitEnumeratorContext<LakeStreamSplit> twoReaders() {
        MockSplitEnumeratorContext<LakeStreamSplit> context = new MockSplitEnumeratorContext<>(2);
        context.registerReader(new ReaderInfo(0, "localhost"));
        context.registerReader(new ReaderInfo(1, "localhost"));
        return context;
    }

    /**
     * Snapshots 2 and 4 of another writer are followed, each with its own rows only, by the readers
     * that own their partition-buckets' logs; snapshot 3 (the lake-stream sink's, with an offsets
     * map) and the snapshot the read started from are not. A second look finds nothing new.
     */
    @Test
    void eachCommitOfAnotherWriterIsFollowedOnceInOrder() throws Throwable {
        createTable(false);
        commitWithOffsets(2, 1, 2, 3);
        try (MockSplitEnumeratorContext<LakeStreamSplit> context = twoReaders()) {
            LakeStreamSplitEnumerator enumerator = unbounded(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            assertThat(assigned(context)).hasSize(BUCKETS);

            commitWithoutOffsets(10, 11);
            commitWithOffsets(3, 4);
            commitWithoutOffsets(12);
            context.runPeriodicCallable(FOLLOW);
            Map<Long, Long> expected = new HashMap<>();
            expected.put(2L, 2L);
            expected.put(4L, 1L);
            assertThat(followedRows(context)).isEqualTo(expected);
            assertThat(enumerator.snapshotState(1).nextFollowedSnapshotId()).isEqualTo(5);

            int before = assigned(context).size();
            context.runPeriodicCallable(FOLLOW);
            assertThat(assigned(context)).hasSize(before);
        }
    }

    /**
     * The enumerator's checkpoint says how far it followed: a restored read follows the snapshots
     * after it, not those before. State of the previous version, which did not follow, follows from
     * the restore on.
     */
    @Test
    void aRestoreNeitherRepeatsNorSkipsACommit() throws Throwable {
        createTable(false);
        commitWithOffsets(2, 1, 2);
        LakeStreamEnumeratorState state;
        LakeStreamEnumeratorStateSerializer serializer = new LakeStreamEnumeratorStateSerializer();
        try (MockSplitEnumeratorContext<LakeStreamSplit> context = twoReaders()) {
            LakeStreamSplitEnumerator enumerator = unbounded(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            commitWithoutOffsets(10);
            context.runPeriodicCallable(FOLLOW);
            assertThat(followedRows(context)).containsOnlyKeys(2L);
            state = enumerator.snapshotState(1);
        }
        state = serializer.deserialize(serializer.getVersion(), serializer.serialize(state));
        assertThat(state.nextFollowedSnapshotId()).isEqualTo(3);
        commitWithoutOffsets(11);

        try (MockSplitEnumeratorContext<LakeStreamSplit> context = twoReaders()) {
            LakeStreamSplitEnumerator restored = unbounded(context, state);
            restored.start();
            restored.addReader(0);
            restored.addReader(1);
            context.runPeriodicCallable(FOLLOW);
            Map<Long, Long> expected = new HashMap<>();
            expected.put(3L, 1L);
            assertThat(followedRows(context)).isEqualTo(expected);
        }

        // the previous version's state knows nothing of following: from the restore on
        LakeStreamEnumeratorState previous =
                new LakeStreamEnumeratorState(
                        state.planned(), state.unassigned(), state.checkedSchemaId());
        previous =
                serializer.deserialize(
                        LakeStreamEnumeratorStateSerializer.VERSION_2,
                        serializer.serialize(previous));
        assertThat(previous.nextFollowedSnapshotId()).isNull();
        try (MockSplitEnumeratorContext<LakeStreamSplit> context = twoReaders()) {
            LakeStreamSplitEnumerator restored = unbounded(context, previous);
            restored.start();
            commitWithoutOffsets(12);
            context.runPeriodicCallable(FOLLOW);
            // snapshot 3 was committed before the restore, 4 after
            assertThat(followedRows(context)).containsOnlyKeys(4L);
        }
    }

    /**
     * A primary-key table with {@code 'changelog-producer' = 'input'}: the changes followed are the
     * snapshot's changelog files, streaming splits as Paimon's streaming read plans them.
     */
    @Test
    void inputChangelogTablesFollowTheChangelogFiles() throws Throwable {
        createTable(true, "changelog-producer", "input");
        commitWithOffsets(2, 1, 2);
        try (MockSplitEnumeratorContext<LakeStreamSplit> context = twoReaders()) {
            LakeStreamSplitEnumerator enumerator = unbounded(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            commitWithoutOffsets(1, 3);
            context.runPeriodicCallable(FOLLOW);
            assertThat(followedRows(context)).containsEntry(2L, 2L).hasSize(1);
            for (Map.Entry<Integer, LakeStreamSplit> entry : assigned(context)) {
                for (DataSplit split : entry.getValue().lakeSplits()) {
                    if (entry.getValue().isFollowed()) {
                        assertThat(split.isStreaming()).isTrue();
                        split.dataFiles()
                                .forEach(f -> assertThat(f.fileName()).startsWith("changelog-"));
                    }
                }
            }
        }
    }

    /**
     * Another writer's overwrite is passed over as Paimon's streaming read passes it over; with
     * {@code 'streaming-read-append-overwrite' = 'true'} an append table's overwrite is followed
     * with the splits Paimon's own streaming scan plans for it (its new rows). A snapshot expired
     * before it was followed fails the read for good.
     */
    @Test
    void whatCannotBeFollowedFailsTheReadForGood() throws Throwable {
        createTable(false);
        commitWithOffsets(2, 1, 2);
        try (MockSplitEnumeratorContext<LakeStreamSplit> context = twoReaders()) {
            LakeStreamSplitEnumerator enumerator = unbounded(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            overwrite(table, 20);
            context.runPeriodicCallable(FOLLOW);
            assertThat(followedRows(context)).isEmpty();
            assertThat(enumerator.snapshotState(1).nextFollowedSnapshotId()).isEqualTo(3);
        }

        table = table.copy(Collections.singletonMap("streaming-read-append-overwrite", "true"));
        try (MockSplitEnumeratorContext<LakeStreamSplit> context = twoReaders()) {
            LakeStreamSplitEnumerator enumerator = unbounded(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            overwrite(table, 21, 22, 23);
            long overwriting = table.snapshotManager().latestSnapshotId();
            context.runPeriodicCallable(FOLLOW);
            assertThat(followedRows(context))
                    .as("the overwrite's changes, as Paimon's own streaming scan plans them")
                    .containsExactly(Map.entry(overwriting, paimonsNextPlanRows(overwriting)))
                    .containsExactly(Map.entry(overwriting, 3L));
            assertThat(enumerator.snapshotState(2).nextFollowedSnapshotId())
                    .isEqualTo(overwriting + 1);
        }

        table = table.copy(Collections.singletonMap("streaming-read-append-overwrite", "false"));
        try (MockSplitEnumeratorContext<LakeStreamSplit> context = twoReaders()) {
            LakeStreamSplitEnumerator enumerator = unbounded(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            long next = table.snapshotManager().latestSnapshotId() + 1;
            for (int i = 0; i < 4; i++) {
                commitWithoutOffsets(30 + i);
            }
            assertThat(table.snapshotManager().snapshotExists(next)).isFalse();
            assertThatThrownBy(() -> context.runPeriodicCallable(FOLLOW))
                    .isInstanceOf(SuppressRestartsException.class)
                    .cause()
                    .hasMessageContaining("Snapshot " + next + " of table db.t")
                    .hasMessageContaining("expired");
        }
    }

    /**
     * A primary-key table's overwrite read with {@code 'streaming-read-overwrite' = 'true'} fails
     * the read for good, naming the snapshot, its commit user and what to do.
     */
    @Test
    void aPrimaryKeyOverwriteReadWithItsChangesFailsTheReadForGood() throws Throwable {
        createTable(true, "streaming-read-overwrite", "true");
        commitWithOffsets(2, 1, 2);
        try (MockSplitEnumeratorContext<LakeStreamSplit> context = twoReaders()) {
            LakeStreamSplitEnumerator enumerator = unbounded(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            overwrite(table, 21);
            long overwriting = table.snapshotManager().latestSnapshotId();
            String user = table.snapshotManager().latestSnapshot().commitUser();
            assertThatThrownBy(() -> context.runPeriodicCallable(FOLLOW))
                    .isInstanceOf(SuppressRestartsException.class)
                    .satisfies(e -> System.out.println("Read failed: " + e.getCause().getMessage()))
                    .cause()
                    .hasMessageContaining("Snapshot " + overwriting + " of primary-key table db.t")
                    .hasMessageContaining(user)
                    .hasMessageContaining("'streaming-read-overwrite' = 'true'")
                    .hasMessageContaining("Restart the query");
        }
    }

    /** The rows of the splits that Paimon's own streaming scan plans for snapshot {@code id}. */
    private long paimonsNextPlanRows(long id) {
        StreamTableScan scan = table.newReadBuilder().newStreamScan();
        scan.restore(id);
        return scan.plan().splits().stream().mapToLong(s -> ((DataSplit) s).rowCount()).sum();
    }

    private static void overwrite(FileStoreTable table, int... ids) throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder().withOverwrite();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            for (int id : ids) {
                write.write(GenericRow.of(id, BinaryString.fromString("v" + id)));
            }
            commit.commit(write.prepareCommit());
        }
    }
}
