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

import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
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
 * The offsets chain on a real Paimon table: snapshots without the property inherit, anchors keep
 * maps findable after expiry (for the latest snapshot, tags and branches), cleaning keeps the files
 * bounded and never removes what a retained snapshot or tag needs, and a lost chain fails loudly.
 */
class SnapshotOffsetsTest {

    @TempDir java.nio.file.Path warehouse;

    private FileStoreTable table;
    private long commits;

    @BeforeEach
    void createTable() throws Exception {
        table =
                LocalPaimonTables.create(
                        warehouse,
                        "t",
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .option("bucket", "1")
                                .option("bucket-key", "id")
                                .option("snapshot.num-retained.min", "3")
                                .option("snapshot.num-retained.max", "3")
                                .build());
    }

    /** Commits a snapshot that records {@code offset} for bucket 0, as the committer does. */
    private long commitWithOffsets(long offset) throws Exception {
        LocalPaimonTables.commitWithOffsets(
                table, "lake", ++commits, map(offset), Collections.emptyList(), true);
        return table.snapshotManager().latestSnapshotId();
    }

    /** Commits a snapshot that records {@code offset}, without the anchor of this version. */
    private void commitAsAnEarlierVersionDid(long offset) throws Exception {
        LocalPaimonTables.commitWithOffsets(
                table, "old", 1, map(offset), Collections.emptyList(), false);
    }

    private long commitWithoutOffsets() throws Exception {
        LocalPaimonTables.commitWithoutOffsets(table, Collections.singletonList(GenericRow.of(1)));
        return table.snapshotManager().latestSnapshotId();
    }

    private static StreamOffsets map(long offset) {
        Map<PartitionBucket, Long> map = new HashMap<>();
        map.put(PartitionBucket.ofUnpartitioned(0), offset);
        return StreamOffsets.of(map);
    }

    @Test
    void noMapRecordedMeansNothingInTheStore() throws Exception {
        long plain = commitWithoutOffsets();
        assertThat(SnapshotOffsets.ofSnapshot(table, plain)).isEmpty();
    }

    @Test
    void snapshotsWithoutThePropertyInheritTheNearestEarlierMap() throws Exception {
        long first = commitWithOffsets(5);
        long plain = commitWithoutOffsets();
        long second = commitWithOffsets(9);
        long plainAfter = commitWithoutOffsets();

        assertThat(SnapshotOffsets.ofSnapshot(table, first)).contains(map(5));
        assertThat(SnapshotOffsets.ofSnapshot(table, plain)).contains(map(5));
        assertThat(SnapshotOffsets.ofSnapshot(table, second)).contains(map(9));
        assertThat(SnapshotOffsets.ofSnapshot(table, plainAfter)).contains(map(9));
    }

    /**
     * Planning reads the map of one snapshot several times; an offsets file never changes, so the
     * process decodes it once. Proven by reading it again after it is gone.
     */
    @Test
    void aFileIsDecodedOncePerProcessAndEachFileOnItsOwn() throws Exception {
        long first = commitWithOffsets(5);
        long second = commitWithOffsets(9);
        assertThat(SnapshotOffsets.ofSnapshot(table, first)).contains(map(5));

        OffsetsDirectory dir = OffsetsDirectory.of(table);
        String firstFile =
                SnapshotOffsets.ownOffsetsFile(table.snapshotManager().snapshot(first)).get();
        dir.deleteOffsetsFile(firstFile);

        assertThat(SnapshotOffsets.ofSnapshot(table, first)).contains(map(5));
        assertThat(SnapshotOffsets.ofSnapshot(table, second)).contains(map(9));
        // a name this process never decoded is read, and fails as a missing file does
        assertThatThrownBy(() -> dir.readOffsets("offsets-never-written"))
                .hasMessageContaining("db.t")
                .hasMessageContaining("offsets-never-written");
    }

    @Test
    void latestAndTaggedSnapshotsKeepTheirMapsAfterExpiry() throws Exception {
        commitWithOffsets(5);
        long tagged = commitWithoutOffsets();
        table.createTag("before-expiry", tagged);
        for (int i = 0; i < 6; i++) {
            commitWithoutOffsets();
        }
        assertThat(table.snapshotManager().snapshotExists(tagged)).isFalse();

        assertThat(SnapshotOffsets.ofLatestSnapshot(table)).contains(map(5));
        assertThat(
                        SnapshotOffsets.ofSnapshot(
                                table,
                                table.tagManager().getOrThrow("before-expiry").trimToSnapshot()))
                .contains(map(5));
    }

    @Test
    void branchesInheritTheMapOfTheSnapshotTheyStartFrom() throws Exception {
        commitWithOffsets(5);
        long tagged = commitWithoutOffsets();
        table.createTag("start", tagged);
        commitWithOffsets(9);
        table.createBranch("dev", "start");

        FileStoreTable dev = table.switchToBranch("dev");
        assertThat(SnapshotOffsets.ofLatestSnapshot(dev)).contains(map(5));
    }

    /** After a rollback, ids of removed snapshots are reused; their anchors must not mislead. */
    @Test
    void rollbackLeavesNoStaleMap() throws Exception {
        long first = commitWithOffsets(5);
        commitWithOffsets(9);
        table.rollbackTo(first);
        long reused = commitWithoutOffsets();

        assertThat(SnapshotOffsets.ofSnapshot(table, reused)).contains(map(5));
        OffsetsCleaner.clean(table, System.currentTimeMillis() + 1, 0);
        assertThat(SnapshotOffsets.ofLatestSnapshot(table)).contains(map(5));
        assertThat(OffsetsDirectory.of(table).anchorIds("main")).containsExactly(first);
    }

    @Test
    void cleaningKeepsWhatRetainedSnapshotsAndTagsNeedAndNothingElse() throws Exception {
        commitWithOffsets(1);
        long tagged = commitWithOffsets(2);
        table.createTag("t2", tagged);
        for (int offset = 3; offset <= 20; offset++) {
            commitWithOffsets(offset);
        }
        commitWithoutOffsets();
        OffsetsDirectory dir = OffsetsDirectory.of(table);
        assertThat(dir.offsetsFiles()).hasSize(20);

        OffsetsCleaner.Result result =
                OffsetsCleaner.clean(table, System.currentTimeMillis() + 1, 0);

        // retained: snapshots 19, 20 (with maps) and 21; the tag's map stays too
        assertThat(dir.offsetsFiles()).hasSize(3);
        assertThat(result.offsetsFiles).isEqualTo(17);
        Long earliest = table.snapshotManager().earliestSnapshotId();
        for (long id = earliest; id <= table.snapshotManager().latestSnapshotId(); id++) {
            assertThat(SnapshotOffsets.ofSnapshot(table, id)).isPresent();
        }
        assertThat(SnapshotOffsets.ofLatestSnapshot(table)).contains(map(20));
        assertThat(
                        SnapshotOffsets.ofSnapshot(
                                table, table.tagManager().getOrThrow("t2").trimToSnapshot()))
                .contains(map(2));
    }

    /**
     * With changelog retention decoupled from snapshot retention, Paimon keeps expired snapshots as
     * changelogs that streaming reads still start from; their maps stay resolvable after a
     * cleaning.
     */
    @Test
    void cleaningKeepsTheMapsOfRetainedChangelogs() throws Exception {
        table =
                table.copy(
                        Map.of(
                                "changelog.num-retained.min", "10",
                                "changelog.num-retained.max", "10"));
        for (int offset = 1; offset <= 8; offset++) {
            commitWithOffsets(offset);
        }
        Long earliestChangelog = table.changelogManager().earliestLongLivedChangelogId();
        assertThat(earliestChangelog).as("changelogs outlive their snapshots").isNotNull();
        long earliestSnapshot = table.snapshotManager().earliestSnapshotId();
        assertThat(earliestChangelog).isLessThan(earliestSnapshot);

        OffsetsCleaner.clean(table, System.currentTimeMillis() + 1, 0);

        for (long id = earliestChangelog; id < earliestSnapshot; id++) {
            assertThat(SnapshotOffsets.ofSnapshot(table, id))
                    .as("map of changelog %s", id)
                    .contains(map(id));
        }
    }

    @Test
    void cleaningKeepsYoungFilesOfCommitsUnderWay() throws Exception {
        commitWithOffsets(1);
        String pending = SnapshotOffsets.write(table, map(2)); // written, not committed yet
        OffsetsCleaner.clean(table, System.currentTimeMillis(), 60_000);
        assertThat(OffsetsDirectory.of(table).offsetsFiles())
                .anyMatch(f -> f.getPath().getName().equals(pending));
    }

    /** A chain started before anchors existed, whose last snapshot with a map expired. */
    @Test
    void lostChainFailsNamingTheTableAndTheWayOut() throws Exception {
        commitAsAnEarlierVersionDid(5);
        for (int i = 0; i < 5; i++) {
            commitWithoutOffsets();
        }

        assertThatThrownBy(() -> SnapshotOffsets.ofLatestSnapshot(table))
                .isInstanceOf(StreamOffsetsUnknownException.class)
                .hasMessageContaining("db.t")
                .hasMessageContaining("sys.enable_lake_stream");
    }

    /** A table whose chain was started before anchors existed gets them when a committer starts. */
    @Test
    void unanchoredSnapshotsAreAnchored() throws Exception {
        commitAsAnEarlierVersionDid(5);
        SnapshotOffsets.anchorUnanchoredSnapshots(table);
        for (int i = 0; i < 5; i++) {
            commitWithoutOffsets();
        }
        assertThat(SnapshotOffsets.ofLatestSnapshot(table)).contains(map(5));
    }

    /**
     * A rollback leaves the anchors of the removed snapshots above the latest one. A commit that
     * failed before anchoring, after the rollback, is still anchored when the next committer
     * starts: the stale anchors above the latest snapshot do not count as anchoring done.
     */
    @Test
    void aCommitterStartAfterARollbackAnchorsWhatTheStaleAnchorsHide() throws Exception {
        long first = commitWithOffsets(5);
        commitWithOffsets(9);
        commitWithOffsets(12);
        table.rollbackTo(first);
        // the next commit records its map but fails before its anchor
        LocalPaimonTables.commitWithOffsets(
                table, "lake", ++commits, map(7), Collections.emptyList(), false);
        long unanchored = table.snapshotManager().latestSnapshotId();

        SnapshotOffsets.anchorUnanchoredSnapshots(table);

        assertThat(OffsetsDirectory.of(table).anchorIds("main")).contains(unanchored);
        for (int i = 0; i < 5; i++) {
            commitWithoutOffsets();
        }
        assertThat(SnapshotOffsets.ofLatestSnapshot(table)).contains(map(7));
    }
}
