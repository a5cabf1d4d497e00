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

package io.lakestream.read.plan;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.offsets.StreamOffsetsUnknownException;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ReadStart} on a real Paimon table whose history is: snapshots 1 and 2 written by Paimon
 * alone, 3 the data-free commit that enabled lake-stream mode (offset 0), 4 and 5 commits of the
 * lake-stream sink (offsets 5 and 9), 6 another writer's commit (inherits 9). Each mode starts
 * where Paimon's own starting scanner starts, and the logs start at the offsets of the snapshot
 * before the first change the read returns.
 */
class ReadStartTest {

    @TempDir java.nio.file.Path warehouse;

    private FileStoreTable table;
    private final Map<Long, Long> times = new HashMap<>();

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
        commitWithoutOffsets(1);
        commitWithoutOffsets(2);
        commitWithOffsets(0, 3);
        commitWithOffsets(5, 4, 1, 2);
        commitWithOffsets(9, 5, 3);
        commitWithoutOffsets(6);
    }

    private void commitWithoutOffsets(long expectedId) throws Exception {
        // without compaction, whose commit would be one more snapshot
        LocalPaimonTables.commitWithoutOffsets(
                table.copy(Collections.singletonMap("write-only", "true")),
                Collections.singletonList(GenericRow.of((int) expectedId)));
        recordTime(expectedId);
    }

    private void commitWithOffsets(long offset, long expectedId, int... ids) throws Exception {
        java.util.List<GenericRow> rows = new java.util.ArrayList<>();
        for (int id : ids) {
            rows.add(GenericRow.of(id));
        }
        LocalPaimonTables.commitWithOffsets(table, "lake", expectedId, offsets(offset), rows, true);
        recordTime(expectedId);
    }

    private void recordTime(long expectedId) {
        Snapshot latest = table.snapshotManager().latestSnapshot();
        assertThat(latest.id()).isEqualTo(expectedId);
        times.put(latest.id(), latest.timeMillis());
        // commit times at least 2 ms apart, so that timestamps pick one snapshot each, also one
        // millisecond after a commit: the next commit comes once the clock is that far
        while (System.currentTimeMillis() <= latest.timeMillis() + 1) {
            Thread.onSpinWait();
        }
    }

    private static StreamOffsets offsets(long offset) {
        Map<PartitionBucket, Long> map = new HashMap<>();
        map.put(PartitionBucket.ofUnpartitioned(0), offset);
        return StreamOffsets.of(map);
    }

    private ReadStart resolve(boolean bounded, String... keyValues) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            options.put(keyValues[i], keyValues[i + 1]);
        }
        // as the source's builder does: Paimon's copy turns 'scan.version' into the option it means
        return ReadStart.resolve(table.copy(options), bounded);
    }

    private static void assertStart(
            ReadStart start, Long snapshot, boolean state, boolean exact, Long offset) {
        assertThat(start.snapshot() == null ? null : start.snapshot().id())
                .as("snapshot")
                .isEqualTo(snapshot);
        assertThat(start.readsState()).as("reads the snapshot's state").isEqualTo(state);
        assertThat(start.exact()).as("exact").isEqualTo(exact);
        assertThat(start.logOffsets().asMap().get(PartitionBucket.ofUnpartitioned(0)))
                .as("log start")
                .isEqualTo(offset);
    }

    @Test
    void boundedReadsWithoutTimeTravelAreTheFreshestUnionRead() {
        assertStart(resolve(true), 6L, true, false, 9L);
        assertStart(resolve(true, "scan.mode", "latest"), 6L, true, false, 9L);
        assertStart(resolve(true, "scan.mode", "latest-full"), 6L, true, false, 9L);
    }

    @Test
    void boundedTimeTravelReadsExactlyTheSnapshotPaimonPicks() throws Exception {
        ReadStart byId = resolve(true, "scan.snapshot-id", "4");
        assertStart(byId, 4L, true, true, 5L);
        assertThat(byId.scanOptions()).containsEntry("scan.snapshot-id", "4");
        assertThat(byId.scanOptions().get("scan.mode")).isNull();

        assertStart(
                resolve(true, "scan.mode", "from-snapshot-full", "scan.snapshot-id", "5"),
                5L,
                true,
                true,
                9L);
        assertStart(resolve(true, "scan.version", "5"), 5L, true, true, 9L);

        // at or before the time, as Paimon's StaticFromTimestampStartingScanner
        assertStart(resolve(true, "scan.timestamp-millis", "" + times.get(5L)), 5L, true, true, 9L);
        assertStart(
                resolve(true, "scan.timestamp-millis", "" + (times.get(5L) - 1)),
                4L,
                true,
                true,
                5L);

        table.createTag("at-four", 4);
        ReadStart byTag = resolve(true, "scan.tag-name", "at-four");
        assertStart(byTag, 4L, true, true, 5L);
        assertThat(byTag.scanOptions()).containsEntry("scan.tag-name", "at-four");
        assertThat(byTag.scanOptions().get("scan.snapshot-id")).isNull();
        assertStart(resolve(true, "scan.version", "at-four"), 4L, true, true, 5L);

        // before the table was enabled: its state only, no store offsets
        assertStart(resolve(true, "scan.snapshot-id", "1"), 1L, true, true, null);

        assertThatThrownBy(() -> resolve(true, "scan.snapshot-id", "42"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("db.t")
                .hasMessageContaining("'scan.snapshot-id' = '42'");
        assertThatThrownBy(() -> resolve(true, "scan.timestamp-millis", "1"))
                .hasMessageContaining("db.t")
                .hasMessageContaining("'scan.timestamp-millis' = '1'");
    }

    @Test
    void unboundedFullModesReadTheStateThenTheStoreFromItsOffsets() {
        assertStart(resolve(false), 6L, true, false, 9L);
        assertStart(resolve(false, "scan.mode", "latest-full"), 6L, true, false, 9L);
        ReadStart full = resolve(false, "scan.mode", "from-snapshot-full", "scan.snapshot-id", "4");
        assertStart(full, 4L, true, false, 5L);
        assertThat(full.scanOptions()).containsEntry("scan.snapshot-id", "4");
        // snapshot 2's changes after it begin with the data-free commit that enabled the table
        assertStart(
                resolve(false, "scan.mode", "from-snapshot-full", "scan.snapshot-id", "2"),
                2L,
                true,
                false,
                0L);
    }

    @Test
    void unboundedIncrementalModesReadNoStateAndStartAfterThePreviousSnapshot() {
        assertStart(resolve(false, "scan.mode", "latest"), 6L, false, false, 9L);
        // the changes of snapshot 5 and later: the log starts at snapshot 4's offsets
        assertStart(resolve(false, "scan.snapshot-id", "5"), 4L, false, false, 5L);
        assertStart(
                resolve(false, "scan.mode", "from-snapshot", "scan.snapshot-id", "4"),
                3L,
                false,
                false,
                0L);
        // the changes of snapshot 3 (enabling, no data) and later
        assertStart(resolve(false, "scan.snapshot-id", "3"), 2L, false, false, 0L);
        // the next snapshot's changes: the log starts at the latest snapshot's offsets
        assertStart(resolve(false, "scan.snapshot-id", "7"), 6L, false, false, 9L);

        // strictly earlier, as Paimon's ContinuousFromTimestampStartingScanner: snapshot 5,
        // committed at the time, is a change the read returns
        assertStart(
                resolve(false, "scan.timestamp-millis", "" + times.get(5L)), 4L, false, false, 5L);
        assertStart(
                resolve(false, "scan.timestamp-millis", "" + (times.get(5L) + 1)),
                5L,
                false,
                false,
                9L);
    }

    /**
     * Snapshots 1 and 2 were committed by Paimon alone, 3 enabled the table (offset 0): an
     * unbounded read from before the enablement starts the store where the chain starts, and
     * returns snapshot 2 (and 1 where its changes are read) by following those commits, from the
     * snapshot after {@link ReadStart#changesAfter()}.
     */
    @Test
    void unboundedReadsFromBeforeTheEnablementStartWhereTheChainStarts() {
        ReadStart fromTwo = resolve(false, "scan.snapshot-id", "2");
        assertStart(fromTwo, 1L, false, false, 0L);
        assertThat(fromTwo.changesAfter()).isEqualTo(1);
        ReadStart fullOne =
                resolve(false, "scan.mode", "from-snapshot-full", "scan.snapshot-id", "1");
        assertStart(fullOne, 1L, true, false, 0L);
        assertThat(fullOne.changesAfter()).isEqualTo(1);
        assertStart(
                resolve(false, "scan.timestamp-millis", "" + times.get(2L)), 1L, false, false, 0L);
        ReadStart fromOne = resolve(false, "scan.snapshot-id", "1");
        assertThat(fromOne.snapshot()).isNull();
        assertThat(fromOne.changesAfter()).isZero();
        assertThat(fromOne.logOffsets().asMap().get(PartitionBucket.ofUnpartitioned(0)))
                .isEqualTo(0L);
        assertThatThrownBy(() -> resolve(false, "scan.snapshot-id", "9"))
                .hasMessageContaining("db.t")
                .hasMessageContaining("snapshot 8")
                .hasMessageContaining("not committed yet");
        assertThatThrownBy(
                        () ->
                                resolve(
                                        false,
                                        "scan.mode",
                                        "from-snapshot-full",
                                        "scan.snapshot-id",
                                        "9"))
                .hasMessageContaining("has no snapshot 9");
    }

    @Test
    void aTableWithoutSnapshotsStartsItsLogsAtZero() throws Exception {
        FileStoreTable empty =
                LocalPaimonTables.create(
                        warehouse,
                        "empty",
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .option("bucket", "1")
                                .option("bucket-key", "id")
                                .build());
        for (boolean bounded : new boolean[] {true, false}) {
            ReadStart start = ReadStart.resolve(empty, bounded);
            assertThat(start.snapshot()).isNull();
            assertThat(start.logOffsets().asMap()).isEmpty();
        }
        ReadStart latest =
                ReadStart.resolve(
                        empty.copyWithoutTimeTravel(
                                Collections.singletonMap(CoreOptions.SCAN_MODE.key(), "latest")),
                        false);
        assertThat(latest.snapshot()).isNull();
        assertThat(latest.readsState()).isFalse();
    }

    /** A chain started before anchors existed, whose last snapshot with a map expired. */
    @Test
    void aLostChainStillFails() throws Exception {
        FileStoreTable lost =
                LocalPaimonTables.create(
                        warehouse,
                        "lost",
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .option("bucket", "1")
                                .option("bucket-key", "id")
                                .option("snapshot.num-retained.min", "3")
                                .option("snapshot.num-retained.max", "3")
                                .build());
        LocalPaimonTables.commitWithOffsets(
                lost, "old", 1, offsets(5), Collections.emptyList(), false);
        for (int i = 0; i < 5; i++) {
            LocalPaimonTables.commitWithoutOffsets(
                    lost, Collections.singletonList(GenericRow.of(i)));
        }
        assertThatThrownBy(() -> ReadStart.resolve(lost, false))
                .isInstanceOf(StreamOffsetsUnknownException.class);
        assertThatThrownBy(() -> ReadStart.resolve(lost, true))
                .isInstanceOf(StreamOffsetsUnknownException.class);
    }

    /**
     * Lake-stream mode turned off after snapshot 6 and on again: snapshot 7, committed by Paimon
     * alone meanwhile, inherits snapshot 6's map but its rows are not in the store. The table
     * cannot be followed from before the gap; it can from the snapshot before the enabling commit.
     */
    @Test
    void unboundedReadsAcrossADisabledPeriodAreRefused() throws Exception {
        setEnabled("false");
        commitWithoutOffsets(7);
        setEnabled("true");
        commitWithOffsets(12, 8);

        assertThatThrownBy(
                        () ->
                                resolve(
                                        false,
                                        "scan.mode",
                                        "from-snapshot-full",
                                        "scan.snapshot-id",
                                        "5"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be followed from snapshot 5")
                .hasMessageContaining("lake-stream mode was turned off after it");
        assertThatThrownBy(
                        () -> resolve(false, "scan.mode", "from-snapshot", "scan.snapshot-id", "7"))
                .hasMessageContaining("cannot be followed from snapshot 6");
        // the changes of snapshot 8 and later: all in the store from snapshot 7's offsets on
        assertStart(
                resolve(false, "scan.mode", "from-snapshot", "scan.snapshot-id", "8"),
                7L,
                false,
                false,
                9L);
        assertStart(resolve(false), 8L, true, false, 12L);
        // bounded reads of a snapshot in or before the gap are exact, as Paimon's
        assertStart(resolve(true, "scan.snapshot-id", "5"), 5L, true, true, 9L);
    }

    /**
     * A full compaction of the bucket, committed as checkpoint {@code identifier} would be; returns
     * the id of its {@code COMPACT} snapshot (Paimon's streaming commit may commit an empty append
     * before it).
     */
    private long compact(long identifier) throws Exception {
        StreamWriteBuilder builder = table.newStreamWriteBuilder().withCommitUser("compactor");
        try (StreamTableWrite write = builder.newWrite();
                StreamTableCommit commit = builder.newCommit()) {
            write.compact(BinaryRow.EMPTY_ROW, 0, true);
            commit.commit(identifier, write.prepareCommit(true, identifier));
        }
        Snapshot latest = table.snapshotManager().latestSnapshot();
        assertThat(latest.commitKind()).isEqualTo(Snapshot.CommitKind.COMPACT);
        recordTime(latest.id());
        return latest.id();
    }

    /** The rows of the files the lake part of {@code start} plans. */
    private long plannedLakeRows(ReadStart start) {
        long rows = 0;
        for (DataSplit split :
                LakePartPlanner.plan(
                        table,
                        start.snapshot(),
                        start.scanOptions(),
                        start.filesCreatedSince(),
                        null)) {
            for (DataFileMeta file : split.dataFiles()) {
                rows += file.rowCount();
            }
        }
        return rows;
    }

    /**
     * As Paimon's {@code CompactedStartingScanner} and {@code FullCompactedStartingScanner}: the
     * latest compaction's state (the latest snapshot's while there is none), then the store from
     * its offsets.
     */
    @Test
    void unboundedCompactedFullReadsTheLatestCompactionThenTheStore() throws Exception {
        assertStart(resolve(false, "scan.mode", "compacted-full"), 6L, true, false, 9L);
        long compaction = compact(7);
        commitWithOffsets(12, compaction + 1, 4);

        ReadStart compacted = resolve(false, "scan.mode", "compacted-full");
        assertStart(compacted, compaction, true, false, 9L);
        assertThat(compacted.scanOptions())
                .containsEntry("scan.snapshot-id", String.valueOf(compaction));
        assertThat(compacted.scanOptions().get("scan.mode")).isNull();
        assertThat(compacted.changesAfter()).isEqualTo(compaction);
        assertThat(plannedLakeRows(compacted)).isEqualTo(6);

        // a full compaction every 7 commits: checkpoint 7's compaction is one
        assertStart(
                resolve(false, "scan.mode", "compacted-full", "full-compaction.delta-commits", "7"),
                compaction,
                true,
                false,
                9L);
        // every 2 commits: checkpoint 7's is not, so the latest snapshot, as Paimon falls back
        assertStart(
                resolve(false, "scan.mode", "compacted-full", "full-compaction.delta-commits", "2"),
                compaction + 1,
                true,
                false,
                12L);
    }

    /**
     * As Paimon's {@code FileCreationTimeStartingScanner}: the latest snapshot's files created at
     * or after the time, then the store from that snapshot's offsets.
     */
    @Test
    void unboundedFromFileCreationTimeReadsTheLatestSnapshotsNewerFiles() {
        // snapshot 6's file was written after snapshot 5's commit, the others before it
        ReadStart newer =
                resolve(false, "scan.file-creation-time-millis", "" + (times.get(5L) + 1));
        assertStart(newer, 6L, true, false, 9L);
        assertThat(newer.changesAfter()).isEqualTo(6);
        assertThat(plannedLakeRows(newer)).isEqualTo(1);
        ReadStart all =
                resolve(
                        false,
                        "scan.mode",
                        "from-file-creation-time",
                        "scan.file-creation-time-millis",
                        "0");
        assertStart(all, 6L, true, false, 9L);
        assertThat(plannedLakeRows(all)).isEqualTo(6);
        // planned again from the snapshot id (a restored read), with the same filter
        assertThat(ReadStart.snapshotScanOptions(6)).isEqualTo(newer.scanOptions());
        assertThat(
                        ReadStart.filesCreatedSince(
                                table.copy(
                                        Collections.singletonMap(
                                                "scan.file-creation-time-millis",
                                                "" + (times.get(5L) + 1)))))
                .isEqualTo(newer.filesCreatedSince())
                .isEqualTo(times.get(5L) + 1);
    }

    /**
     * As Paimon's {@code createCreationTimestampStartingScanner}: the changes of the first snapshot
     * committed at or after the time when there is one, else the latest snapshot's files created at
     * or after it.
     */
    @Test
    void unboundedFromCreationTimestampReadsTheChangesOrTheNewerFiles() {
        assertStart(
                resolve(false, "scan.creation-time-millis", "" + times.get(5L)),
                4L,
                false,
                false,
                5L);
        // after the latest snapshot: its files created since, none
        ReadStart after = resolve(false, "scan.creation-time-millis", "" + (times.get(6L) + 1));
        assertStart(after, 6L, true, false, 9L);
        assertThat(plannedLakeRows(after)).isZero();
        // before every snapshot: every file of the latest snapshot
        ReadStart before =
                resolve(
                        false,
                        "scan.mode",
                        "from-creation-timestamp",
                        "scan.creation-time-millis",
                        "1");
        assertStart(before, 6L, true, false, 9L);
        assertThat(plannedLakeRows(before)).isEqualTo(6);
    }

    /**
     * As Paimon's streaming read: a {@code scan.version} that names a snapshot id streams its
     * changes as {@code scan.snapshot-id} does; one that names a tag or a watermark is refused, as
     * Paimon refuses them in streaming mode.
     */
    @Test
    void unboundedScanVersionStreamsFromASnapshotIdAndRefusesTags() {
        assertStart(resolve(false, "scan.version", "5"), 4L, false, false, 5L);
        table.createTag("at-four", 4);
        assertThatThrownBy(() -> resolve(false, "scan.version", "at-four"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("db.t")
                .hasMessageContaining("Paimon refuses a tag or a watermark in streaming mode too");
        assertThatThrownBy(() -> resolve(false, "scan.tag-name", "at-four"))
                .hasMessageContaining("Paimon refuses a tag or a watermark in streaming mode too");
        assertThatThrownBy(() -> resolve(false, "scan.version", "watermark-1000"))
                .hasMessageContaining("Paimon refuses a tag or a watermark in streaming mode too");
    }

    /**
     * {@code streaming.read.snapshot.delay}: a commit of another writer is followed once it is that
     * old, as Paimon's streaming read waits for each snapshot.
     */
    @Test
    void followedCommitsWaitForTheSnapshotDelay() {
        ForeignCommits delayed =
                new ForeignCommits(
                        new UnionReadPlanner(
                                table.copy(
                                        Collections.singletonMap(
                                                "streaming.read.snapshot.delay", "1 h")),
                                null,
                                null,
                                false));
        ForeignCommits.Followed waiting = delayed.follow(6);
        assertThat(waiting.nextSnapshotId()).isEqualTo(6);
        assertThat(waiting.changes()).isEmpty();

        ForeignCommits undelayed =
                new ForeignCommits(
                        new UnionReadPlanner(
                                table.copy(
                                        Collections.singletonMap(
                                                "streaming.read.snapshot.delay", "1 ms")),
                                null,
                                null,
                                false));
        ForeignCommits.Followed followed = undelayed.follow(6);
        assertThat(followed.nextSnapshotId()).isEqualTo(7);
        assertThat(followed.changes())
                .extracting(ForeignCommits.Change::snapshotId)
                .containsExactly(6L);
    }

    private void setEnabled(String value) throws Exception {
        table.schemaManager()
                .commitChanges(SchemaChange.setOption(LakeStreamOptions.ENABLED.key(), value));
        table = table.copyWithLatestSchema();
    }
}
