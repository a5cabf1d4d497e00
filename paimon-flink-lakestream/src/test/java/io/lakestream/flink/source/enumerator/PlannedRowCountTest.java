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

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.FenceLog;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PlannedRowCount} on a local Paimon table and a store that reports ends and fences:
 * Paimon's row count of the snapshot plus the records between each kept partition-bucket's snapshot
 * offset and its end, less fenced ones; the snapshot alone for lake-only and read-committed reads;
 * nothing for a primary-key table.
 */
class PlannedRowCountTest {

    private static final int BUCKETS = 2;

    private static final Duration LEASE = Duration.ofMinutes(1);

    @TempDir java.nio.file.Path warehouse;

    @Test
    void countsTheSnapshotAndTheUnfencedTailOfEachKeptPartitionBucket() throws Exception {
        FileStoreTable table = appendTable();
        // 10 rows in each of the partitions 1 and 2, committed with offsets 5 per bucket
        List<GenericRow> rows = new ArrayList<>();
        for (int dt = 1; dt <= 2; dt++) {
            for (int id = 0; id < 10; id++) {
                rows.add(GenericRow.of(dt, id));
            }
        }
        Map<PartitionBucket, Long> offsets = new HashMap<>();
        Set<BinaryRow> partitions = new LinkedHashSet<>();
        RowKeyExtractor keys = table.createRowKeyExtractor();
        for (GenericRow row : rows) {
            keys.setRecord(row);
            partitions.add(keys.partition().copy());
        }
        for (BinaryRow partition : partitions) {
            for (int b = 0; b < BUCKETS; b++) {
                offsets.put(new PartitionBucket(partition, b), 5L);
            }
        }
        LocalPaimonTables.commitWithOffsets(
                table, "lake", 1, StreamOffsets.of(offsets), rows, true);
        List<BinaryRow> partitionList = new ArrayList<>(partitions);
        BinaryRow one = partitionList.get(0);
        BinaryRow two = partitionList.get(1);
        // the store: 7 records past the offset of every bucket of partition 1, 4 in partition 2,
        // of which [6, 8) of partition 1's bucket 0 and [0, 3) (below the offset) are fenced
        Map<PartitionBucket, Long> ends = new HashMap<>();
        ends.put(new PartitionBucket(one, 0), 12L);
        ends.put(new PartitionBucket(one, 1), 12L);
        ends.put(new PartitionBucket(two, 0), 9L);
        ends.put(new PartitionBucket(two, 1), 9L);
        List<AbortedRange> fences =
                List.of(
                        new AbortedRange(new PartitionBucket(one, 0), 6, 8),
                        new AbortedRange(new PartitionBucket(one, 0), 0, 3),
                        new AbortedRange(new PartitionBucket(two, 1), 7, 20));
        StreamTable streamTable = LocalPaimonTables.streamTable(table);
        Supplier<StreamStore> store = () -> store(partitionList, ends, fences, true);

        assertThat(PlannedRowCount.count(table, streamTable, null, false, false, LEASE, store))
                .hasValue(20 + (7 - 2) + 7 + 4 + (4 - 2));
        PredicateBuilder on = new PredicateBuilder(table.rowType());
        assertThat(
                        PlannedRowCount.count(
                                table, streamTable, on.equal(0, 2), false, false, LEASE, store))
                .as("partition 2 alone")
                .hasValue(10 + 4 + 2);
        Supplier<StreamStore> noWriter = () -> store(partitionList, ends, fences, false);
        assertThat(PlannedRowCount.count(table, streamTable, null, false, false, LEASE, noWriter))
                .as("no job holds the writer lease: the tail is no job's, Paimon's rows alone")
                .hasValue(20);
        Supplier<StreamStore> none =
                () -> {
                    throw new AssertionError("a read of the snapshot alone opens no store");
                };
        assertThat(PlannedRowCount.count(table, streamTable, null, true, false, LEASE, none))
                .as("lake-only")
                .hasValue(20);
        assertThat(PlannedRowCount.count(table, streamTable, null, false, true, LEASE, none))
                .as("read-committed")
                .hasValue(20);
    }

    @Test
    void aPrimaryKeyTableIsNotCounted() throws Exception {
        FileStoreTable table =
                LocalPaimonTables.create(
                        warehouse,
                        "pk",
                        Schema.newBuilder()
                                .column("dt", DataTypes.INT().notNull())
                                .column("id", DataTypes.INT().notNull())
                                .partitionKeys("dt")
                                .primaryKey("dt", "id")
                                .option("bucket", String.valueOf(BUCKETS))
                                .build());
        StreamTable streamTable = LocalPaimonTables.streamTable(table);
        OptionalLong count =
                PlannedRowCount.count(
                        table,
                        streamTable,
                        null,
                        false,
                        false,
                        LEASE,
                        () -> {
                            throw new AssertionError("no store");
                        });
        assertThat(count).isEmpty();
    }

    private FileStoreTable appendTable() throws Exception {
        return LocalPaimonTables.create(
                warehouse,
                "t",
                Schema.newBuilder()
                        .column("dt", DataTypes.INT())
                        .column("id", DataTypes.INT())
                        .partitionKeys("dt")
                        .option("bucket", String.valueOf(BUCKETS))
                        .option("bucket-key", "id")
                        .build());
    }

    /** A store that lists {@code partitions}, reports {@code ends} and holds {@code fences}. */
    private static StreamStore store(
            List<BinaryRow> partitions,
            Map<PartitionBucket, Long> ends,
            List<AbortedRange> fences,
            boolean leaseHeld) {
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
                                        Map<PartitionBucket, Long> result = new HashMap<>();
                                        for (Object pb : (Collection<?>) args[1]) {
                                            result.put(
                                                    (PartitionBucket) pb,
                                                    ends.getOrDefault(pb, 0L));
                                        }
                                        return result;
                                    }
                                case "openFenceLog":
                                    return fenceLog(fences);
                                case "openWriterLeaseLog":
                                    return LeaseLogs.of(leaseHeld);
                                case "close":
                                    return null;
                                default:
                                    throw new UnsupportedOperationException(method.getName());
                            }
                        });
    }

    private static FenceLog fenceLog(List<AbortedRange> fences) {
        return new FenceLog() {
            @Override
            public void recordAll(List<AbortedRange> ranges) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<AbortedRange> readNew() {
                return fences;
            }

            @Override
            public void close() {}
        };
    }
}
