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

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.read.plan.LogStop;
import io.lakestream.read.plan.ReadStart;
import io.lakestream.read.plan.UnionReadPlanner;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Planning a read at 10,000 partition-buckets (2,500 partitions x 4 buckets) on a local Paimon
 * table whose snapshots carry offsets maps: the time of each step, next to Paimon's own scan of the
 * same snapshot, and the sizes of the snapshot and offsets files. Prints its figures; it asserts no
 * time. Not part of the suite (its name ends neither in {@code Test} nor {@code ITCase}): run it
 * with {@code -Dtest=PlanningBenchmark}; {@code -Dplanning.jfr=true} also records a JFR profile of
 * the measured rounds into {@code target/planning.jfr}.
 */
class PlanningBenchmark {

    private static final int PARTITIONS = 2_500;
    private static final int BUCKETS = 4;
    private static final int COMMITS = 10;
    private static final int COMMITS_WITHOUT_OFFSETS = 5;
    private static final int WARM_UP = 2;
    private static final int ROUNDS = 5;

    @TempDir java.nio.file.Path warehouse;

    @Test
    void planAtTenThousandPartitionBuckets() throws Exception {
        FileStoreTable table =
                LocalPaimonTables.create(
                        warehouse,
                        "t",
                        Schema.newBuilder()
                                .column("dt", DataTypes.INT())
                                .column("id", DataTypes.INT())
                                .partitionKeys("dt")
                                .option("bucket", String.valueOf(BUCKETS))
                                .option("bucket-key", "id")
                                .option("file.format", "avro")
                                .build());
        // every partition-bucket gets a file and an offset; each commit's map is the full map
        Map<PartitionBucket, Long> offsets = new LinkedHashMap<>();
        Set<BinaryRow> partitions = new LinkedHashSet<>();
        int perCommit = PARTITIONS / COMMITS;
        for (int commit = 0; commit < COMMITS; commit++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int dt = commit * perCommit; dt < (commit + 1) * perCommit; dt++) {
                for (int id = 0; rows.size() < (dt - commit * perCommit + 1) * 16; id++) {
                    rows.add(GenericRow.of(dt, id));
                }
            }
            org.apache.paimon.table.sink.RowKeyExtractor keys = table.createRowKeyExtractor();
            for (GenericRow row : rows) {
                keys.setRecord(row);
                PartitionBucket pb = new PartitionBucket(keys.partition().copy(), keys.bucket());
                partitions.add(pb.partition());
                offsets.merge(pb, 1L, Long::sum);
            }
            LocalPaimonTables.commitWithOffsets(
                    table, "bench", commit + 1, StreamOffsets.of(offsets), rows, true);
        }
        // commits of another writer (a compaction job, say): the map is inherited through them
        for (int i = 0; i < COMMITS_WITHOUT_OFFSETS; i++) {
            LocalPaimonTables.commitWithoutOffsets(table, List.of(GenericRow.of(0, i)));
        }
        assertThat(offsets).hasSize(PARTITIONS * BUCKETS);
        assertThat(partitions).hasSize(PARTITIONS);

        StreamTable streamTable = LocalPaimonTables.streamTable(table);
        StreamStore store = storeOf(new ArrayList<>(partitions), offsets);
        UnionReadPlanner planner = new UnionReadPlanner(table, streamTable, null);

        Map<String, Callable<Object>> steps = new LinkedHashMap<>();
        steps.put(
                "Paimon's own batch scan plan of the snapshot",
                () -> table.newReadBuilder().newScan().plan().splits().size());
        steps.put(
                "offsets resolution of the latest snapshot (SnapshotOffsets.ofLatestSnapshot)",
                () -> SnapshotOffsets.ofLatestSnapshot(table).get().asMap().size());
        steps.put(
                "where the read starts (ReadStart.resolve)", () -> ReadStart.resolve(table, true));
        steps.put(
                "UnionReadPlanner.plan, lake-only",
                () -> planner.plan(null, LogStop.snapshotOffsets()));
        steps.put(
                "UnionReadPlanner.plan, with the store",
                () ->
                        planner.plan(
                                        store,
                                        LogStop.storeEnds(
                                                store, streamTable, Duration.ofMinutes(1)))
                                .buckets()
                                .size());
        steps.put(
                "PlannedRowCount.count (COUNT(*) push-down)",
                () ->
                        PlannedRowCount.count(
                                table,
                                streamTable,
                                null,
                                false,
                                false,
                                Duration.ofMinutes(1),
                                () -> store));

        for (int i = 0; i < WARM_UP; i++) {
            for (Callable<Object> step : steps.values()) {
                step.call();
            }
        }
        Recording recording = null;
        if (Boolean.getBoolean("planning.jfr")) {
            recording = new Recording(Configuration.getConfiguration("profile"));
            recording.start();
        }
        System.out.printf(
                "Planning at %d partition-buckets (%d partitions x %d buckets), %d cores, median "
                        + "and range of %d rounds:%n",
                offsets.size(),
                PARTITIONS,
                BUCKETS,
                Runtime.getRuntime().availableProcessors(),
                ROUNDS);
        for (Map.Entry<String, Callable<Object>> step : steps.entrySet()) {
            long[] millis = new long[ROUNDS];
            for (int i = 0; i < ROUNDS; i++) {
                long start = System.nanoTime();
                step.getValue().call();
                millis[i] = (System.nanoTime() - start) / 1_000_000;
            }
            Arrays.sort(millis);
            System.out.printf(
                    "  %-80s %6d ms  (%d..%d)%n",
                    step.getKey(), millis[ROUNDS / 2], millis[0], millis[ROUNDS - 1]);
        }
        if (recording != null) {
            recording.stop();
            recording.dump(Paths.get("target", "planning.jfr"));
            recording.close();
        }

        Snapshot latestWithMap = table.snapshotManager().snapshot(COMMITS);
        Snapshot latest = table.snapshotManager().latestSnapshot();
        String offsetsFile = SnapshotOffsets.ownOffsetsFile(latestWithMap).get();
        System.out.printf(
                "  snapshot file with a map: %d bytes (property %s = %s); without: %d bytes; "
                        + "offsets file of %d partition-buckets: %d bytes%n",
                fileSize(table, table.snapshotManager().snapshotPath(latestWithMap.id())),
                SnapshotOffsets.OFFSETS_PROPERTY,
                offsetsFile,
                fileSize(table, table.snapshotManager().snapshotPath(latest.id())),
                offsets.size(),
                fileSize(
                        table,
                        new org.apache.paimon.fs.Path(
                                new org.apache.paimon.fs.Path(
                                        table.location(), SnapshotOffsets.OFFSETS_DIR),
                                offsetsFile)));
    }

    private static long fileSize(FileStoreTable table, org.apache.paimon.fs.Path path)
            throws Exception {
        return table.fileIO().getFileSize(path);
    }

    /** A store that lists the partitions and, as their ends, the snapshot's offsets plus 100. */
    private static StreamStore storeOf(
            List<BinaryRow> partitions, Map<PartitionBucket, Long> offsets) {
        return (StreamStore)
                java.lang.reflect.Proxy.newProxyInstance(
                        StreamStore.class.getClassLoader(),
                        new Class<?>[] {StreamStore.class},
                        (proxy, method, args) -> {
                            switch (method.getName()) {
                                case "listPartitions":
                                    return partitions;
                                case "listOffsets":
                                    {
                                        Map<PartitionBucket, Long> ends = new HashMap<>();
                                        for (Object pb : (Collection<?>) args[1]) {
                                            ends.put(
                                                    (PartitionBucket) pb,
                                                    offsets.getOrDefault(pb, 0L) + 100);
                                        }
                                        assertThat(args[2]).isEqualTo(OffsetPosition.LATEST);
                                        return ends;
                                    }
                                case "openFenceLog":
                                    return new io.lakestream.store.FenceLog() {
                                        @Override
                                        public void recordAll(
                                                List<io.lakestream.offsets.AbortedRange> ranges) {
                                            throw new UnsupportedOperationException();
                                        }

                                        @Override
                                        public List<io.lakestream.offsets.AbortedRange> readNew() {
                                            return List.of();
                                        }

                                        @Override
                                        public void close() {}
                                    };
                                case "openWriterLeaseLog":
                                    // a job writes the table: the read goes to the store's ends
                                    return LeaseLogs.of(true);
                                case "close":
                                    return null;
                                default:
                                    throw new UnsupportedOperationException(method.getName());
                            }
                        });
    }
}
