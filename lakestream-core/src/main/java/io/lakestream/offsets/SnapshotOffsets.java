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

import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.BranchManager;
import org.apache.paimon.utils.SnapshotManager;

import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;

/**
 * The tiered offsets of Paimon snapshots (invariant "the boundary"): snapshot S carries, per
 * partition-bucket, the stream offset T below which every store record is in S and at or above
 * which none is.
 *
 * <p>Why a file and a property pointing at it: a snapshot's properties are written into every
 * snapshot file, and the full map can hold 10,000 partition-buckets; the file is written once per
 * commit and the property is one short name. Paimon does not carry properties forward, so a
 * snapshot without the property (a compaction, an overwrite, another engine's commit) inherits the
 * map of the nearest earlier snapshot that has one: found among the retained snapshots, or through
 * the anchors of {@link OffsetsDirectory} once Paimon expired it.
 *
 * <p>Resolution never defaults to offset 0 for a table whose chain was started: when no map can be
 * found for a snapshot that follows the start of the chain, it throws {@link
 * StreamOffsetsUnknownException}. An empty result means that no map was ever recorded at or before
 * the snapshot, so the store held nothing the snapshot contains.
 */
public final class SnapshotOffsets {

    /** The snapshot property that names the offsets file of the snapshot. */
    public static final String OFFSETS_PROPERTY = "lake-stream.offsets";

    /** The folder of the offsets files, under the table's location. */
    public static final String OFFSETS_DIR = OffsetsDirectory.DIR;

    private SnapshotOffsets() {}

    /** Writes {@code offsets} into a new file of the table and returns the file's name. */
    public static String write(FileStoreTable table, StreamOffsets offsets) {
        return OffsetsDirectory.of(table).writeOffsets(offsets);
    }

    /** Reads the offsets file {@code name} of the table. */
    public static StreamOffsets read(FileStoreTable table, String name) {
        return OffsetsDirectory.of(table).readOffsets(name);
    }

    /** The offsets file named by {@code snapshot} itself, if any. */
    public static Optional<String> ownOffsetsFile(Snapshot snapshot) {
        Map<String, String> properties = snapshot.properties();
        return properties == null
                ? Optional.empty()
                : Optional.ofNullable(properties.get(OFFSETS_PROPERTY));
    }

    /**
     * The name of the offsets file that holds the map of snapshot {@code snapshotId}: its own, or
     * that of the nearest earlier snapshot that records one.
     *
     * @throws StreamOffsetsUnknownException when the chain was started but its map is lost
     */
    public static Optional<String> offsetsFileOf(FileStoreTable table, long snapshotId) {
        String branch = table.coreOptions().branch();
        OffsetsDirectory dir = OffsetsDirectory.of(table);
        NavigableSet<Long> anchors = dir.anchorIds(branch);
        SnapshotManager snapshots = table.snapshotManager();
        Long earliest = snapshots.earliestSnapshotId();
        long upper = snapshotId;
        Long anchor = anchors.floor(snapshotId);
        while (true) {
            // snapshots newer than the anchor below: a crash may have come between a commit and
            // its anchor, so their own properties are looked at first
            if (earliest != null) {
                long lowest = anchor == null ? earliest : Math.max(earliest, anchor + 1);
                for (long id = upper; id >= lowest; id--) {
                    Optional<String> own = ownOffsetsFileOf(snapshots, id);
                    if (own.isPresent()) {
                        return own;
                    }
                }
            }
            if (anchor == null) {
                break;
            }
            if (!snapshots.snapshotExists(anchor)) {
                return Optional.of(dir.readAnchor(branch, anchor));
            }
            // a retained snapshot is its own authority: an anchor of a snapshot that names no
            // offsets file was left by a snapshot that a rollback removed, whose id was reused
            Optional<String> own = ownOffsetsFileOf(snapshots, anchor);
            if (own.isPresent()) {
                return own;
            }
            upper = anchor - 1;
            anchor = anchors.lower(anchor);
        }
        if (!BranchManager.isMainBranch(branch)) {
            // a branch starts as a copy of a snapshot or tag of the main branch
            Long main = dir.anchorIds(Identifier.DEFAULT_MAIN_BRANCH).floor(snapshotId);
            if (main != null) {
                return Optional.of(dir.readAnchor(Identifier.DEFAULT_MAIN_BRANCH, main));
            }
        }
        if (anchors.isEmpty() && dir.hasOffsetsFiles() && !startsLater(snapshots, snapshotId)) {
            throw new StreamOffsetsUnknownException(table.fullName(), snapshotId);
        }
        return Optional.empty();
    }

    /**
     * Whether a retained snapshot after {@code snapshotId} records a map (the chain starts later).
     */
    private static boolean startsLater(SnapshotManager snapshots, long snapshotId) {
        Long latest = snapshots.latestSnapshotId();
        if (latest == null) {
            return false;
        }
        for (long id = snapshotId + 1; id <= latest; id++) {
            if (ownOffsetsFileOf(snapshots, id).isPresent()) {
                return true;
            }
        }
        return false;
    }

    private static Optional<String> ownOffsetsFileOf(SnapshotManager snapshots, long id) {
        if (!snapshots.snapshotExists(id)) {
            return Optional.empty();
        }
        return ownOffsetsFile(snapshots.snapshot(id));
    }

    /**
     * The tiered offsets of snapshot {@code snapshotId}: those recorded in it, or in the nearest
     * earlier snapshot that records any; empty when no map was recorded up to it.
     *
     * @throws StreamOffsetsUnknownException when the chain was started but its map is lost
     */
    public static Optional<StreamOffsets> ofSnapshot(FileStoreTable table, long snapshotId) {
        return offsetsFileOf(table, snapshotId).map(name -> read(table, name));
    }

    /**
     * The tiered offsets of {@code snapshot}, which may be the copy a tag holds of a snapshot that
     * Paimon has since expired: its own map, else as {@link #ofSnapshot(FileStoreTable, long)}.
     */
    public static Optional<StreamOffsets> ofSnapshot(FileStoreTable table, Snapshot snapshot) {
        Optional<String> own = ownOffsetsFile(snapshot);
        return own.isPresent()
                ? Optional.of(read(table, own.get()))
                : ofSnapshot(table, snapshot.id());
    }

    /** The tiered offsets of the table's latest snapshot; empty when none was recorded. */
    public static Optional<StreamOffsets> ofLatestSnapshot(FileStoreTable table) {
        Long latest = table.snapshotManager().latestSnapshotId();
        return latest == null ? Optional.empty() : ofSnapshot(table, latest);
    }

    /**
     * Writes the anchor of every snapshot after {@code afterSnapshotId} that names an offsets file.
     * Called after a commit that recorded offsets, with the latest snapshot id before it.
     */
    public static void anchorSnapshotsAfter(FileStoreTable table, long afterSnapshotId) {
        SnapshotManager snapshots = table.snapshotManager();
        Long latest = snapshots.latestSnapshotId();
        if (latest == null) {
            return;
        }
        Long earliest = snapshots.earliestSnapshotId();
        long from = Math.max(afterSnapshotId + 1, earliest == null ? 1 : earliest);
        OffsetsDirectory dir = OffsetsDirectory.of(table);
        String branch = table.coreOptions().branch();
        NavigableSet<Long> anchors = dir.anchorIds(branch);
        for (long id = from; id <= latest; id++) {
            Optional<String> own = ownOffsetsFileOf(snapshots, id);
            if (own.isPresent()) {
                dir.writeAnchor(branch, id, own.get());
            } else if (anchors.contains(id)) {
                // left by a snapshot that a rollback removed; this id now names another one
                dir.deleteAnchor(branch, id);
            }
        }
    }

    /**
     * Anchors the snapshots that name an offsets file but have no anchor yet: those of a commit
     * whose writer failed before anchoring it, and those of tables whose chain was started before
     * anchors existed, and those hidden by anchors that a rollback left behind (which are deleted
     * or written anew). Run when a committer starts, before it commits or cleans up anything.
     */
    public static void anchorUnanchoredSnapshots(FileStoreTable table) {
        OffsetsDirectory dir = OffsetsDirectory.of(table);
        String branch = table.coreOptions().branch();
        SnapshotManager snapshots = table.snapshotManager();
        Long latest = snapshots.latestSnapshotId();
        if (latest == null) {
            return;
        }
        NavigableSet<Long> anchors = dir.anchorIds(branch);
        // anchors above the latest snapshot belong to snapshots a rollback removed; no committer
        // commits while this one starts (the writer lease), so none of them is being written
        for (Long stale : anchors.tailSet(latest, false)) {
            dir.deleteAnchor(branch, stale);
        }
        // anchoring went as far as the newest anchor that still names its retained snapshot's
        // own map (or whose snapshot expired); a rollback may have left anchors below the latest
        // snapshot too, of removed snapshots whose ids were used again
        long anchoredUpTo = 0;
        for (Long anchor : anchors.headSet(latest, true).descendingSet()) {
            if (!snapshots.snapshotExists(anchor)
                    || ownOffsetsFileOf(snapshots, anchor)
                            .map(own -> own.equals(dir.readAnchor(branch, anchor)))
                            .orElse(false)) {
                anchoredUpTo = anchor;
                break;
            }
        }
        anchorSnapshotsAfter(table, anchoredUpTo);
    }
}
