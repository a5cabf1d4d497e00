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

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.source.LakeStreamReadContext;
import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.read.plan.LogStop;
import io.lakestream.read.plan.UnionReadPlanner;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.apache.flink.runtime.execution.SuppressRestartsException;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LakeStreamSplitEnumerator} driven by Flink's {@link MockSplitEnumeratorContext}, as
 * Kafka's and Iceberg's connectors test theirs, on a real Paimon table: which split each
 * partition-bucket gets, where its log starts, which reader owns it, and what a restore does.
 */
class LakeStreamSplitEnumeratorTest {

    private static final int BUCKETS = 2;

    @TempDir java.nio.file.Path warehouse;

    private FileStoreTable table;
    private StreamTable streamTable;
    private long commits;

    @BeforeEach
    void createTable() throws Exception {
        table =
                LocalPaimonTables.create(
                        warehouse,
                        "t",
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .option("bucket", String.valueOf(BUCKETS))
                                .option("bucket-key", "id")
                                .option("snapshot.num-retained.min", "3")
                                .option("snapshot.num-retained.max", "3")
                                .build());
        streamTable = LocalPaimonTables.streamTable(table);
    }

    /** Rows and offsets committed in one snapshot, as the lake-stream sink commits them. */
    private void commitWithOffsets(Map<PartitionBucket, Long> offsets, int... ids)
            throws Exception {
        LocalPaimonTables.commitWithOffsets(
                table, "lake", ++commits, StreamOffsets.of(offsets), rows(ids), true);
    }

    private void commitWithoutOffsets(int id) throws Exception {
        LocalPaimonTables.commitWithoutOffsets(table, rows(id));
    }

    private static List<GenericRow> rows(int... ids) {
        List<GenericRow> rows = new ArrayList<>();
        for (int id : ids) {
            rows.add(GenericRow.of(id));
        }
        return rows;
    }

    private LakeStreamSplitEnumerator boundedLakeOnly(
            MockSplitEnumeratorContext<LakeStreamSplit> context,
            LakeStreamEnumeratorState restored) {
        return boundedLakeOnly(context, restored, Long.MAX_VALUE);
    }

    private LakeStreamSplitEnumerator boundedLakeOnly(
            MockSplitEnumeratorContext<LakeStreamSplit> context,
            LakeStreamEnumeratorState restored,
            long limit) {
        return new LakeStreamSplitEnumerator(
                context,
                new UnionReadPlanner(table, streamTable, null),
                () -> {
                    throw new AssertionError("a lake-only read opens no store");
                },
                LogStop.snapshotOffsets(),
                true,
                true,
                1_000,
                Duration.ofMinutes(1),
                null,
                limit,
                restored,
                null,
                null);
    }

    private static Map<PartitionBucket, Long> offsets(long bucket0, long bucket1) {
        Map<PartitionBucket, Long> offsets = new HashMap<>();
        offsets.put(PartitionBucket.ofUnpartitioned(0), bucket0);
        offsets.put(PartitionBucket.ofUnpartitioned(1), bucket1);
        return offsets;
    }

    private static Map<PartitionBucket, LakeStreamSplit> assigned(
            MockSplitEnumeratorContext<LakeStreamSplit> context,
            Map<PartitionBucket, Integer> owners) {
        Map<PartitionBucket, LakeStreamSplit> splits = new HashMap<>();
        for (SplitsAssignment<LakeStreamSplit> assignment : context.getSplitsAssignmentSequence()) {
            assignment
                    .assignment()
                    .forEach(
                            (reader, list) ->
                                    list.forEach(
                                            split -> {
                                                assertThat(
                                                                splits.put(
                                                                        split.partitionBucket(),
                                                                        split))
                                                        .as("assigned once")
                                                        .isNull();
                                                owners.put(split.partitionBucket(), reader);
                                            }));
        }
        return splits;
    }

    /**
     * Other writers committed and Paimon expired the snapshot that recorded the offsets: every
     * partition-bucket's log still starts at its tiered offset, never at 0.
     */
    @Test
    void logsStartAtTheTieredOffsetsAfterTheirSnapshotExpired() throws Throwable {
        commitWithOffsets(offsets(7, 3), 1, 2, 3, 4);
        for (int i = 0; i < 5; i++) {
            commitWithoutOffsets(100 + i);
        }
        assertThat(table.snapshotManager().snapshotExists(1)).isFalse();

        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(2)) {
            context.registerReader(new ReaderInfo(0, "localhost"));
            context.registerReader(new ReaderInfo(1, "localhost"));
            LakeStreamSplitEnumerator enumerator = boundedLakeOnly(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();

            Map<PartitionBucket, Integer> owners = new HashMap<>();
            Map<PartitionBucket, LakeStreamSplit> splits = assigned(context, owners);
            assertThat(splits).hasSize(BUCKETS);
            assertThat(splits.get(PartitionBucket.ofUnpartitioned(0)).nextLogOffset()).isEqualTo(7);
            assertThat(splits.get(PartitionBucket.ofUnpartitioned(1)).nextLogOffset()).isEqualTo(3);
            // bounded at the snapshot's offsets: the lake-only read reads no store record
            splits.values()
                    .forEach(s -> assertThat(s.logStopOffset()).isEqualTo(s.nextLogOffset()));
            long lakeRows = 0;
            for (LakeStreamSplit split : splits.values()) {
                lakeRows += split.lakeSplits().stream().mapToLong(d -> d.rowCount()).sum();
            }
            assertThat(lakeRows).isEqualTo(4 + 5);
            assertThat(context.hasNoMoreSplits(0)).isTrue();
            assertThat(context.hasNoMoreSplits(1)).isTrue();
        }
    }

    /**
     * A restore before readers registered keeps the plan: nothing is planned again, and each split
     * goes to the reader that owned it before.
     */
    @Test
    void restoreAssignsThePlannedSplitsToTheSameReaders() throws Throwable {
        commitWithOffsets(offsets(5, 9), 1, 2, 3);
        Map<PartitionBucket, Integer> before = new HashMap<>();
        LakeStreamEnumeratorState state;
        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(2)) {
            LakeStreamSplitEnumerator enumerator = boundedLakeOnly(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            state = enumerator.snapshotState(1);
            assertThat(context.getSplitsAssignmentSequence()).isEmpty();
            context.registerReader(new ReaderInfo(0, "localhost"));
            context.registerReader(new ReaderInfo(1, "localhost"));
            enumerator.addReader(0);
            enumerator.addReader(1);
            assigned(context, before);
        }
        // the table moves on; the restored read still reads what it planned
        commitWithOffsets(offsets(6, 10), 4);

        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(2)) {
            LakeStreamSplitEnumerator restored = boundedLakeOnly(context, state);
            restored.start();
            assertThat(context.getOneTimeCallables()).as("no second plan").isEmpty();
            context.registerReader(new ReaderInfo(0, "localhost"));
            context.registerReader(new ReaderInfo(1, "localhost"));
            restored.addReader(0);
            restored.addReader(1);
            Map<PartitionBucket, Integer> after = new HashMap<>();
            Map<PartitionBucket, LakeStreamSplit> splits = assigned(context, after);
            assertThat(after).isEqualTo(before);
            List<Long> starts = new ArrayList<>();
            splits.values().forEach(s -> starts.add(s.nextLogOffset()));
            assertThat(starts).containsExactlyInAnyOrder(5L, 9L);
        }
    }

    /**
     * With a limit, a bounded read of an append table plans only the partition-buckets whose files
     * hold that many rows, by Paimon's row counts; without one, or with a limit the files do not
     * cover, every partition-bucket.
     */
    @Test
    void aLimitPlansOnlyThePartitionBucketsWhoseFilesHoldIt() throws Throwable {
        commitWithOffsets(offsets(5, 9), 1, 2, 3, 4, 5, 6, 7, 8);
        Map<Long, Map<PartitionBucket, LakeStreamSplit>> planned = new HashMap<>();
        for (long limit : new long[] {1, 8, 9, Long.MAX_VALUE}) {
            try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                    new MockSplitEnumeratorContext<>(1)) {
                context.registerReader(new ReaderInfo(0, "localhost"));
                LakeStreamSplitEnumerator enumerator = boundedLakeOnly(context, null, limit);
                enumerator.start();
                context.runNextOneTimeCallable();
                planned.put(limit, assigned(context, new HashMap<>()));
            }
        }
        Map<PartitionBucket, LakeStreamSplit> all = planned.get(Long.MAX_VALUE);
        assertThat(all).hasSize(BUCKETS);
        assertThat(all.values()).allMatch(split -> lakeRows(split) > 0);
        assertThat(planned.get(1L)).hasSize(1);
        assertThat(lakeRows(planned.get(1L).values().iterator().next())).isPositive();
        assertThat(planned.get(8L).keySet()).isEqualTo(all.keySet());
        assertThat(planned.get(9L).keySet())
                .as("more rows than the files hold")
                .isEqualTo(all.keySet());
    }

    /** The splits that {@code LakeStreamSplitEnumerator.create} plans with these options. */
    private Map<PartitionBucket, LakeStreamSplit> plan(
            boolean bounded, Supplier<StreamStore> store, String... keyValues) throws Throwable {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            options.put(keyValues[i], keyValues[i + 1]);
        }
        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(1)) {
            context.registerReader(new ReaderInfo(0, "localhost"));
            LakeStreamSplitEnumerator enumerator =
                    LakeStreamSplitEnumerator.create(
                            context,
                            LakeStreamReadContext.resolve(
                                    table,
                                    Collections.singletonMap(
                                            "lake-stream.read.partition-discovery-interval", "1 s"),
                                    options,
                                    read -> streamTable,
                                    bounded,
                                    null,
                                    null,
                                    Long.MAX_VALUE),
                            store,
                            null);
            enumerator.start();
            context.runNextOneTimeCallable();
            return assigned(context, new HashMap<>());
        }
    }

    private static long lakeRows(LakeStreamSplit split) {
        return split.lakeSplits().stream().mapToLong(d -> d.rowCount()).sum();
    }

    /**
     * Snapshot 1 with rows 1 to 4 (offsets 7 and 3), snapshot 2 with row 5 (offsets 8 and 3),
     * snapshot 3 with row 6 (offsets 9 and 5).
     */
    private void threeSnapshots() throws Exception {
        commitWithOffsets(offsets(7, 3), 1, 2, 3, 4);
        commitWithOffsets(offsets(8, 3), 5);
        commitWithOffsets(offsets(9, 5), 6);
    }

    /**
     * A bounded read at a snapshot picked by time travel returns exactly that snapshot: its lake
     * splits, and logs that stop where they start, at its own offsets; the store is never opened.
     */
    @Test
    void boundedTimeTravelPlansExactlyTheSnapshot() throws Throwable {
        threeSnapshots();
        Supplier<StreamStore> noStore =
                () -> {
                    throw new AssertionError("an exact read of a snapshot opens no store");
                };
        Map<PartitionBucket, LakeStreamSplit> splits = plan(true, noStore, "scan.snapshot-id", "2");
        assertThat(splits).hasSize(BUCKETS);
        assertThat(splits.values().stream().mapToLong(s -> lakeRows(s)).sum()).isEqualTo(5);
        assertThat(splits.get(PartitionBucket.ofUnpartitioned(0)).nextLogOffset()).isEqualTo(8);
        assertThat(splits.get(PartitionBucket.ofUnpartitioned(1)).nextLogOffset()).isEqualTo(3);
        splits.values().forEach(s -> assertThat(s.logStopOffset()).isEqualTo(s.nextLogOffset()));

        table.createTag("first", 1);
        splits = plan(true, noStore, "scan.tag-name", "first");
        assertThat(splits.values().stream().mapToLong(s -> lakeRows(s)).sum()).isEqualTo(4);
        assertThat(splits.get(PartitionBucket.ofUnpartitioned(0)).nextLogOffset()).isEqualTo(7);
        splits.values().forEach(s -> assertThat(s.logStopOffset()).isEqualTo(s.nextLogOffset()));
    }

    /**
     * An unbounded {@code from-snapshot} read plans no lake part and starts each log at the offsets
     * of the snapshot before the first change it returns; {@code from-snapshot-full} plans the
     * snapshot's lake part and starts the logs at its offsets. Neither stops.
     */
    @Test
    void unboundedReadsStartTheirLogsWherePaimonsChangesStart() throws Throwable {
        threeSnapshots();
        Supplier<StreamStore> store =
                () -> UnboundedEnumerators.listingStore(Collections.emptyList());

        Map<PartitionBucket, LakeStreamSplit> changes = plan(false, store, "scan.snapshot-id", "3");
        assertThat(changes).hasSize(BUCKETS);
        changes.values().forEach(s -> assertThat(s.lakeSplits()).isEmpty());
        assertThat(changes.get(PartitionBucket.ofUnpartitioned(0)).nextLogOffset()).isEqualTo(8);
        assertThat(changes.get(PartitionBucket.ofUnpartitioned(1)).nextLogOffset()).isEqualTo(3);
        changes.values().forEach(s -> assertThat(s.isBounded()).isFalse());

        Map<PartitionBucket, LakeStreamSplit> latest = plan(false, store, "scan.mode", "latest");
        latest.values().forEach(s -> assertThat(s.lakeSplits()).isEmpty());
        assertThat(latest.get(PartitionBucket.ofUnpartitioned(0)).nextLogOffset()).isEqualTo(9);
        assertThat(latest.get(PartitionBucket.ofUnpartitioned(1)).nextLogOffset()).isEqualTo(5);

        Map<PartitionBucket, LakeStreamSplit> full =
                plan(false, store, "scan.mode", "from-snapshot-full", "scan.snapshot-id", "2");
        assertThat(full.values().stream().mapToLong(s -> lakeRows(s)).sum()).isEqualTo(5);
        assertThat(full.get(PartitionBucket.ofUnpartitioned(0)).nextLogOffset()).isEqualTo(8);
        assertThat(full.get(PartitionBucket.ofUnpartitioned(1)).nextLogOffset()).isEqualTo(3);
        full.values().forEach(s -> assertThat(s.isBounded()).isFalse());
    }

    /** Sets lake-stream mode on or off, as ALTER TABLE does: a new schema. */
    private void setOption(String key, String value) throws Exception {
        table.schemaManager().commitChanges(SchemaChange.setOption(key, value));
        table = table.copyWithLatestSchema();
    }

    /** An unbounded union read of the table as it is now, from {@code restored} if given. */
    private LakeStreamSplitEnumerator unbounded(
            MockSplitEnumeratorContext<LakeStreamSplit> context,
            LakeStreamEnumeratorState restored) {
        return UnboundedEnumerators.unbounded(context, table, streamTable, restored);
    }

    /** The discovery callback of an unbounded read, which checks the schemas too. */
    private static final int DISCOVERY = 0;

    /**
     * Lake-stream mode turned off and on again between two discoveries of a running unbounded read:
     * the next discovery sees the schema that turned it off and fails the job without a restart,
     * naming the table, the schema, the option and what to do. Schema changes that keep the mode on
     * do not.
     */
    @Test
    void aDisableBetweenTwoChecksFailsTheReadForGood() throws Throwable {
        setOption(LakeStreamOptions.ENABLED.key(), "true");
        commitWithOffsets(offsets(2, 1), 1, 2, 3);
        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(1)) {
            context.registerReader(new ReaderInfo(0, "localhost"));
            LakeStreamSplitEnumerator enumerator = unbounded(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            assertThat(assigned(context, new HashMap<>())).hasSize(BUCKETS);

            // another option: a new schema, the mode still on
            setOption("snapshot.num-retained.max", "4");
            context.runPeriodicCallable(DISCOVERY);
            assertThat(enumerator.snapshotState(1).checkedSchemaId())
                    .isEqualTo(table.schema().id());

            setOption(LakeStreamOptions.ENABLED.key(), "false");
            long disabling = table.schema().id();
            commitWithoutOffsets(4);
            setOption(LakeStreamOptions.ENABLED.key(), "true");
            assertThatThrownBy(() -> context.runPeriodicCallable(DISCOVERY))
                    .isInstanceOf(SuppressRestartsException.class)
                    .satisfies(e -> System.out.println("Read failed: " + e.getCause().getMessage()))
                    .cause()
                    .hasMessageContaining("table db.t")
                    .hasMessageContaining("Paimon schema " + disabling)
                    .hasMessageContaining("'lake-stream.enabled' = 'false'")
                    .hasMessageContaining("not in the stream store")
                    .hasMessageContaining("Restart the query");
        }
    }

    /**
     * The schema id checked is in the enumerator state: a read restored after a disable and an
     * enable, in a job built when the table was enabled again, fails as the running one would have.
     * State without it (written by an earlier version) checks from the schema the restored job was
     * built with.
     */
    @Test
    void aRestoredReadFailsForADisableItHadNotSeen() throws Throwable {
        setOption(LakeStreamOptions.ENABLED.key(), "true");
        commitWithOffsets(offsets(2, 1), 1, 2, 3);
        LakeStreamEnumeratorState state;
        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(1)) {
            LakeStreamSplitEnumerator enumerator = unbounded(context, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            state = enumerator.snapshotState(1);
        }
        long enabled = table.schema().id();
        assertThat(state.checkedSchemaId()).isEqualTo(enabled);
        LakeStreamEnumeratorStateSerializer serializer = new LakeStreamEnumeratorStateSerializer();
        state = serializer.deserialize(serializer.getVersion(), serializer.serialize(state));

        setOption(LakeStreamOptions.ENABLED.key(), "false");
        commitWithoutOffsets(4);
        setOption(LakeStreamOptions.ENABLED.key(), "true");

        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(1)) {
            LakeStreamSplitEnumerator restored = unbounded(context, state);
            restored.start();
            assertThat(context.getOneTimeCallables()).as("no second plan").isEmpty();
            assertThatThrownBy(() -> context.runPeriodicCallable(DISCOVERY))
                    .isInstanceOf(SuppressRestartsException.class)
                    .cause()
                    .hasMessageContaining("Paimon schema " + (enabled + 1));
        }

        LakeStreamEnumeratorState withoutSchemaId =
                new LakeStreamEnumeratorState(state.planned(), state.unassigned());
        try (MockSplitEnumeratorContext<LakeStreamSplit> context =
                new MockSplitEnumeratorContext<>(1)) {
            LakeStreamSplitEnumerator restored = unbounded(context, withoutSchemaId);
            restored.start();
            context.runPeriodicCallable(DISCOVERY);
            assertThat(restored.snapshotState(2).checkedSchemaId()).isEqualTo(table.schema().id());
        }
    }
}
