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
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.BranchManager;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;

/**
 * Deletes the anchors and offsets files that no retained snapshot, tag or branch of a table needs
 * any more, so that their number stays bounded by what Paimon retains.
 *
 * <p>Of the anchors of each branch it keeps those of retained snapshots and changelogs, the newest
 * one before the earliest of them (which that one inherits), and the newest one at or before each
 * tag; a branch without its own anchor falls back to the main branch's, so those are kept for it
 * too. Of the offsets files it keeps those the kept anchors and the tags name, and every file
 * younger than {@code minAgeMillis}: one may be written for a commit that has not happened yet
 * (enabling writes its file, then commits).
 */
public final class OffsetsCleaner {

    private OffsetsCleaner() {}

    /** What a cleaning deleted. */
    public static final class Result {
        public final int anchors;
        public final int offsetsFiles;

        Result(int anchors, int offsetsFiles) {
            this.anchors = anchors;
            this.offsetsFiles = offsetsFiles;
        }
    }

    /**
     * Cleans the offsets chain of {@code table} (any branch of it).
     *
     * @param nowMillis the current time
     * @param minAgeMillis offsets files younger than this are kept whatever refers to them
     */
    public static Result clean(FileStoreTable table, long nowMillis, long minAgeMillis) {
        FileStoreTable main = table.switchToBranch(Identifier.DEFAULT_MAIN_BRANCH);
        OffsetsDirectory dir = OffsetsDirectory.of(main);
        List<String> branches = new ArrayList<>();
        branches.add(Identifier.DEFAULT_MAIN_BRANCH);
        branches.addAll(main.branchManager().branches());

        Map<String, NavigableSet<Long>> anchors = new HashMap<>();
        Map<String, Set<Long>> kept = new HashMap<>();
        for (String branch : branches) {
            // a snapshot committed right before its writer failed has no anchor yet; without one
            // its file would look unreferenced once it is old enough
            SnapshotOffsets.anchorUnanchoredSnapshots(
                    BranchManager.isMainBranch(branch) ? main : main.switchToBranch(branch));
            anchors.put(branch, dir.anchorIds(branch));
            kept.put(branch, new HashSet<>());
        }
        NavigableSet<Long> mainAnchors = anchors.get(Identifier.DEFAULT_MAIN_BRANCH);
        Set<String> keptFiles = new HashSet<>();
        for (String branch : branches) {
            FileStoreTable at =
                    BranchManager.isMainBranch(branch) ? main : main.switchToBranch(branch);
            NavigableSet<Long> ids = anchors.get(branch);
            Set<Long> keep = kept.get(branch);
            Long earliest = earliestRetained(at);
            List<Long> needed = new ArrayList<>();
            if (earliest == null) {
                keep.addAll(ids); // nothing retained to judge by
            } else {
                for (long id : ids.tailSet(earliest, true)) {
                    // an anchor whose retained snapshot names no offsets file was left by a
                    // snapshot that a rollback removed
                    if (!at.snapshotManager().snapshotExists(id)
                            || SnapshotOffsets.ownOffsetsFile(at.snapshotManager().snapshot(id))
                                    .isPresent()) {
                        keep.add(id);
                    }
                }
                needed.add(earliest);
            }
            for (Snapshot tagged : at.tagManager().taggedSnapshots()) {
                SnapshotOffsets.ownOffsetsFile(tagged).ifPresent(keptFiles::add);
                needed.add(tagged.id());
            }
            for (long id : needed) {
                Long floor = ids.floor(id);
                if (floor != null) {
                    keep.add(floor);
                } else if (!BranchManager.isMainBranch(branch)) {
                    Long mainFloor = mainAnchors.floor(id);
                    if (mainFloor != null) {
                        kept.get(Identifier.DEFAULT_MAIN_BRANCH).add(mainFloor);
                    }
                }
            }
        }

        int deletedAnchors = 0;
        for (String branch : branches) {
            Set<Long> keep = kept.get(branch);
            for (long id : anchors.get(branch)) {
                if (keep.contains(id)) {
                    keptFiles.add(dir.readAnchor(branch, id));
                } else {
                    dir.deleteAnchor(branch, id);
                    deletedAnchors++;
                }
            }
        }
        int deletedFiles = 0;
        for (FileStatus file : dir.offsetsFiles()) {
            String name = file.getPath().getName();
            if (!keptFiles.contains(name)
                    && nowMillis - file.getModificationTime() >= minAgeMillis) {
                dir.deleteOffsetsFile(name);
                deletedFiles++;
            }
        }
        return new Result(deletedAnchors, deletedFiles);
    }

    /**
     * The earliest snapshot id a read can still start from: the earliest retained snapshot, or an
     * earlier changelog that Paimon keeps when changelog retention outlasts snapshot retention
     * ({@code changelog.num-retained.*}); streaming reads start from those too.
     */
    @Nullable
    private static Long earliestRetained(FileStoreTable table) {
        Long snapshot = table.snapshotManager().earliestSnapshotId();
        Long changelog = table.changelogManager().earliestLongLivedChangelogId();
        if (snapshot == null || changelog == null) {
            return snapshot == null ? changelog : snapshot;
        }
        return Math.min(snapshot, changelog);
    }
}
