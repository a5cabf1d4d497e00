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

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.ScanMode;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.snapshot.SnapshotReader;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Plans the lake part of a read: the data splits of every file a Paimon snapshot commits, with the
 * read's filter pruning partitions and files as Paimon's own scan does.
 *
 * <p>Paimon's batch scan leaves level-0 files out of primary-key tables with deletion vectors or
 * the {@code first-row} merge engine ({@code CoreOptions.batchScanSkipLevel0()}, applied in {@code
 * DataTableBatchScan}'s constructor as {@code withLevelFilter(level -> level > 0)}): it counts on
 * the writer to have compacted them before the commit. A writer with {@code write-only}, or with
 * {@code lookup-wait} = {@code false}, commits level-0 files that stay until a compaction, so their
 * rows are in the snapshot and below its offsets, yet that scan returns none of them. The store
 * part starts at the snapshot's offsets, so neither part would return them. For such tables the
 * lake part is planned without the level filter, with Paimon's {@code SnapshotReader} at the
 * snapshot, the way the batch scan plans it otherwise.
 *
 * <p>The rows stay correct because Paimon reads these splits the usual way ({@code
 * KeyValueTableRead}): {@code MergeTreeSplitGenerator.splitForBatch} marks a split raw-convertible
 * only when it holds no level-0 file (or one file alone, whose keys are unique), so a split with
 * level-0 files goes through {@code MergeFileSplitRead.createMergeReader}, which applies the
 * split's deletion vectors to each file and merges the level-0 rows with the higher levels' by key
 * and sequence number with the table's merge function. Tables whose batch scan reads level 0 anyway
 * get the batch scan's splits, unchanged.
 */
final class LakePartPlanner {

    private LakePartPlanner() {}

    /**
     * Whether Paimon's batch scan of {@code table} leaves level-0 files out; mirrors the condition
     * of {@code DataTableBatchScan}'s constructor in Paimon 1.3.1. Append tables keep all their
     * files at level 0 and are never filtered.
     */
    static boolean batchScanSkipsLevel0(FileStoreTable table) {
        CoreOptions options = table.coreOptions();
        return !table.primaryKeys().isEmpty()
                && options.batchScanSkipLevel0()
                && options.toConfiguration().get(CoreOptions.BATCH_SCAN_MODE)
                        == CoreOptions.BatchScanMode.NONE;
    }

    /**
     * The data splits of every file that {@code snapshot} commits to {@code table}, pruned by
     * {@code filter} as Paimon's scan prunes them, level 0 included.
     *
     * @param scanOptions the options that make Paimon's scan pick {@code snapshot} (its id, or the
     *     tag that keeps it), every other starting option removed
     * @param filesCreatedSince when not null, only the files created at or after this time (epoch
     *     milliseconds), as Paimon's {@code FileCreationTimeStartingScanner} filters them
     */
    static List<DataSplit> plan(
            FileStoreTable table,
            Snapshot snapshot,
            Map<String, String> scanOptions,
            @Nullable Long filesCreatedSince,
            @Nullable Predicate filter) {
        FileStoreTable at = table.copyWithoutTimeTravel(scanOptions);
        List<DataSplit> splits = new ArrayList<>();
        if (filesCreatedSince != null) {
            // what FileCreationTimeStartingScanner plans, at the snapshot the read starts from
            // rather than at whatever snapshot is the latest when the plan is made
            long millis = filesCreatedSince;
            SnapshotReader reader =
                    at.newSnapshotReader()
                            .withSnapshot(snapshot)
                            .withMode(ScanMode.ALL)
                            .withManifestEntryFilter(
                                    entry -> entry.file().creationTimeEpochMillis() >= millis);
            if (filter != null) {
                reader.withFilter(filter);
            }
            splits.addAll(reader.read().dataSplits());
        } else if (batchScanSkipsLevel0(at)) {
            // what DataTableBatchScan plans at a snapshot (StaticFromSnapshotStartingScanner),
            // less its level filter and the value-stats pruning that only holds above level 0
            SnapshotReader reader = at.newSnapshotReader().withSnapshot(snapshot);
            if (filter != null) {
                reader.withFilter(filter);
            }
            splits.addAll(reader.withMode(ScanMode.ALL).read().dataSplits());
        } else {
            ReadBuilder read = at.newReadBuilder();
            if (filter != null) {
                read.withFilter(filter);
            }
            for (Split split : read.newScan().plan().splits()) {
                splits.add((DataSplit) split);
            }
        }
        return splits;
    }
}
