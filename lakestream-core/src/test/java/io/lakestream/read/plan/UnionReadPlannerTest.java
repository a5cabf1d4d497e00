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
import io.lakestream.protocol.WriterLease;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link UnionReadPlanner} on a real Paimon table and the {@code memory} store: partition {@code
 * d0} has one record, committed by snapshot 1 (offset 1); the store holds one more record of {@code
 * d0} and two of {@code d1}, a partition no snapshot has, all uncommitted. Where a bounded read's
 * logs stop decides whether the store's partitions count.
 */
class UnionReadPlannerTest {

    private static final Duration LEASE_TIMEOUT = Duration.ofMinutes(1);
    private static final PartitionBucket D0 = new PartitionBucket(BinaryRow.singleColumn("d0"), 0);
    private static final PartitionBucket D1 = new PartitionBucket(BinaryRow.singleColumn("d1"), 0);

    @TempDir java.nio.file.Path warehouse;

    private StreamStore store;
    private FileStoreTable table;
    private StreamTable streamTable;

    @BeforeEach
    void writeAndCommit() throws Exception {
        table =
                LocalPaimonTables.create(
                        warehouse,
                        "t",
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .column("dt", DataTypes.STRING())
                                .partitionKeys("dt")
                                .option("bucket", "1")
                                .option("bucket-key", "id")
                                .option(LakeStreamOptions.ENABLED.key(), "true")
                                .build());
        store =
                StreamStoreLoader.create(
                        LocalPaimonTables.memoryStoreOptions(), getClass().getClassLoader());
        streamTable = store.provision(StreamTableSpec.of(Identifier.create("db", "t"), table));
        try (StreamWriter writer = store.createWriter(streamTable)) {
            writer.write(D0, RowKind.INSERT, row(1, "d0"));
            writer.write(D0, RowKind.INSERT, row(2, "d0"));
            writer.write(D1, RowKind.INSERT, row(3, "d1"));
            writer.write(D1, RowKind.INSERT, row(4, "d1"));
            writer.flush();
        }
        Map<PartitionBucket, Long> committed = new HashMap<>();
        committed.put(D0, 1L);
        LocalPaimonTables.commitWithOffsets(
                table,
                "writer",
                1,
                StreamOffsets.of(committed),
                Collections.singletonList(row(1, "d0")),
                true);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void withNoLiveWriterABoundedReadStopsAtTheSnapshotAndLeavesOutTheStoresOwnPartitions() {
        UnionReadPlanner.Plan plan =
                new UnionReadPlanner(table, streamTable, null)
                        .plan(store, LogStop.storeEnds(store, streamTable, LEASE_TIMEOUT));

        assertThat(stops(plan)).containsOnly(Map.entry(D0, "1-1"));
    }

    @Test
    void besideALiveWriterABoundedReadReadsEveryPartitionOfTheStoreToItsEnd() throws Exception {
        try (WriterLease lease =
                new WriterLease(store, streamTable, "writer", "a running job", LEASE_TIMEOUT)) {
            lease.acquire();
            UnionReadPlanner.Plan plan =
                    new UnionReadPlanner(table, streamTable, null)
                            .plan(store, LogStop.storeEnds(store, streamTable, LEASE_TIMEOUT));

            assertThat(stops(plan)).containsOnly(Map.entry(D0, "1-2"), Map.entry(D1, "0-2"));
        }
    }

    @Test
    void
            besideALiveWriterTheEndsAreListedWhilePaimonPlansAndAPartitionOnlyPaimonHasStopsAtItsStart()
                    throws Exception {
        // another writer commits partition d2, which the store does not have
        LocalPaimonTables.commitWithoutOffsets(table, Collections.singletonList(row(5, "d2")));
        PartitionBucket d2 = new PartitionBucket(BinaryRow.singleColumn("d2"), 0);
        Map<String, Set<PartitionBucket>> listedOn = new ConcurrentHashMap<>();
        LogStop live = LogStop.storeEnds(store, streamTable, LEASE_TIMEOUT);
        LogStop recorded =
                new LogStop() {
                    @Override
                    public Map<PartitionBucket, Long> stopOffsets(
                            StreamOffsets offsets, Collection<PartitionBucket> pbs) {
                        throw new AssertionError("a plan asks the stop it decided at planning");
                    }

                    @Override
                    public LogStop atPlanning() {
                        LogStop decided = live.atPlanning();
                        return new LogStop() {
                            @Override
                            public Map<PartitionBucket, Long> stopOffsets(
                                    StreamOffsets offsets, Collection<PartitionBucket> pbs) {
                                listedOn.computeIfAbsent(
                                                Thread.currentThread().getName(),
                                                t -> ConcurrentHashMap.newKeySet())
                                        .addAll(pbs);
                                return decided.stopOffsets(offsets, pbs);
                            }

                            @Override
                            public boolean beyondSnapshot() {
                                return decided.beyondSnapshot();
                            }
                        };
                    }
                };
        try (WriterLease lease =
                new WriterLease(store, streamTable, "writer", "a running job", LEASE_TIMEOUT)) {
            lease.acquire();
            UnionReadPlanner.Plan plan =
                    new UnionReadPlanner(table, streamTable, null).plan(store, recorded);

            assertThat(stops(plan))
                    .containsOnly(Map.entry(D0, "1-2"), Map.entry(D1, "0-2"), Map.entry(d2, "0-0"));
        }
        // the store's partition-buckets on the planner's ahead thread, beside Paimon's plan; only
        // the one Paimon's plan found after on the planning thread
        assertThat(listedOn)
                .containsOnly(
                        Map.entry("lake-stream-plan-" + table.fullName(), Set.of(D0, D1)),
                        Map.entry(Thread.currentThread().getName(), Set.of(d2)));
    }

    @Test
    void aReadOfTheSnapshotAloneLeavesOutTheStoresOwnPartitions() {
        UnionReadPlanner.Plan plan =
                new UnionReadPlanner(table, streamTable, null)
                        .plan(store, LogStop.snapshotOffsets());

        assertThat(stops(plan)).containsOnly(Map.entry(D0, "1-1"));
    }

    @Test
    void anUnboundedReadStartsInEveryPartitionOfTheStore() {
        UnionReadPlanner.Plan plan =
                new UnionReadPlanner(table, streamTable, null, false).plan(store, null);

        assertThat(plan.buckets())
                .extracting(BucketRead::partitionBucket)
                .containsExactlyInAnyOrder(D0, D1);
    }

    /** Per partition-bucket of the plan: its log's start and stop offsets. */
    private static Map<PartitionBucket, String> stops(UnionReadPlanner.Plan plan) {
        Map<PartitionBucket, String> stops = new HashMap<>();
        for (BucketRead read : plan.buckets()) {
            stops.put(read.partitionBucket(), read.logStartOffset() + "-" + read.logStopOffset());
        }
        return stops;
    }

    private static GenericRow row(int id, String dt) {
        return GenericRow.of(id, BinaryString.fromString(dt));
    }
}
