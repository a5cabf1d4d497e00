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

package io.lakestream.flink.sink;

import io.lakestream.flink.offsets.PartitionBucket;
import io.lakestream.flink.offsets.StreamOffsets;
import io.lakestream.flink.sink.StreamPartitionDrops.Action;
import io.lakestream.flink.store.StreamStore;
import io.lakestream.flink.store.StreamTable;
import io.lakestream.flink.store.StreamTableSpec;
import io.lakestream.flink.testutils.LocalPaimonTables;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The rule that decides when a stream partition is dropped, and what the offsets map keeps. */
class StreamPartitionDropsTest {

    private static final BinaryRow P = BinaryRow.singleColumn("p");

    @TempDir Path warehouse;

    @Test
    void aPartitionWhoseRecordsAreAllCommittedIsDropped() {
        assertThat(decide(true, false, offsets(3, 5), ends(3, 5), true)).isEqualTo(Action.DROP);
    }

    @Test
    void aPartitionTheStoreNoLongerHasLosesItsOffsetsOnly() {
        assertThat(decide(false, false, offsets(3, 5), ends(), true))
                .isEqualTo(Action.FORGET_OFFSETS);
    }

    @Test
    void aPartitionCreatedAgainAfterADropLosesItsOldOffsets() {
        // offsets of one log never go back: the store's log started over
        assertThat(decide(true, true, offsets(3, 5), ends(4, 1), true))
                .isEqualTo(Action.FORGET_OFFSETS);
    }

    @Test
    void recordsNoSnapshotHoldsKeepThePartition() {
        assertThat(decide(true, false, offsets(3, 5), ends(3, 6), true)).isEqualTo(Action.KEEP);
    }

    @Test
    void aPartitionTheCommitWritesIsKept() {
        assertThat(decide(true, true, offsets(3, 5), ends(3, 5), true)).isEqualTo(Action.KEEP);
    }

    @Test
    void aPartitionNoSnapshotRecordedIsKept() {
        // a writer may just have created it and not written it yet
        assertThat(decide(true, false, StreamOffsets.empty(), ends(0, 0), true))
                .isEqualTo(Action.KEEP);
    }

    @Test
    void aPartitionIsKeptForTheDelay() {
        assertThat(decide(true, false, offsets(3, 5), ends(3, 5), false)).isEqualTo(Action.KEEP);
    }

    @Test
    void theCommitDropsWhatTheTableDroppedAndKeepsTheRest() throws Exception {
        FileStoreTable table = table();
        BinaryRow gone = BinaryRow.singleColumn("gone");
        BinaryRow live = BinaryRow.singleColumn("live");
        LocalPaimonTables.commitWithoutOffsets(
                table,
                Arrays.asList(
                        GenericRow.of(BinaryString.fromString("gone"), 1),
                        GenericRow.of(BinaryString.fromString("live"), 2)));
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            commit.truncatePartitions(
                    Collections.singletonList(Collections.singletonMap("dt", "gone")));
        }
        Map<PartitionBucket, Long> map = new HashMap<>();
        map.put(new PartitionBucket(gone, 0), 4L);
        map.put(new PartitionBucket(live, 0), 7L);
        StreamOffsets parent = StreamOffsets.of(map);
        List<BinaryRow> dropped = new ArrayList<>();
        AtomicLong now = new AtomicLong(1_000);
        StreamPartitionDrops drops =
                new StreamPartitionDrops(
                        table,
                        streamTable(table),
                        () -> store(Arrays.asList(gone, live), map, dropped),
                        Duration.ofMinutes(2),
                        now::get);

        // found missing now: kept for the delay
        assertThat(drops.beforeCommit(parent, StreamOffsets.empty())).isEqualTo(parent);
        now.addAndGet(StreamPartitionDrops.MAX_CHECK_INTERVAL_MILLIS);
        assertThat(drops.beforeCommit(parent, StreamOffsets.empty())).isEqualTo(parent);
        assertThat(dropped).isEmpty();

        now.addAndGet(StreamPartitionDrops.MAX_CHECK_INTERVAL_MILLIS);
        assertThat(drops.beforeCommit(parent, StreamOffsets.empty()))
                .isEqualTo(
                        StreamOffsets.of(
                                Collections.singletonMap(new PartitionBucket(live, 0), 7L)));
        assertThat(dropped).containsExactly(gone);
    }

    private static Action decide(
            boolean inStore,
            boolean written,
            StreamOffsets parent,
            Map<PartitionBucket, Long> ends,
            boolean delayPassed) {
        return StreamPartitionDrops.decide(P, 2, inStore, written, parent, ends, delayPassed);
    }

    private static StreamOffsets offsets(long bucket0, long bucket1) {
        return StreamOffsets.of(ends(bucket0, bucket1));
    }

    private static Map<PartitionBucket, Long> ends(long... perBucket) {
        Map<PartitionBucket, Long> ends = new HashMap<>();
        for (int bucket = 0; bucket < perBucket.length; bucket++) {
            ends.put(new PartitionBucket(P, bucket), perBucket[bucket]);
        }
        return ends;
    }

    private FileStoreTable table() throws Exception {
        return LocalPaimonTables.create(
                warehouse,
                "t",
                Schema.newBuilder()
                        .column("dt", DataTypes.STRING())
                        .column("id", DataTypes.INT())
                        .partitionKeys("dt")
                        .option("bucket", "1")
                        .option("bucket-key", "id")
                        .build());
    }

    private static StreamTable streamTable(FileStoreTable table) {
        return new StreamTable(StreamTableSpec.of(Identifier.create("db", "t"), table), "db.t", 1L);
    }

    /** A store holding {@code partitions}, each at the end offsets {@code ends}. */
    private static StreamStore store(
            List<BinaryRow> partitions, Map<PartitionBucket, Long> ends, List<BinaryRow> dropped) {
        return (StreamStore)
                java.lang.reflect.Proxy.newProxyInstance(
                        StreamStore.class.getClassLoader(),
                        new Class<?>[] {StreamStore.class},
                        (proxy, method, args) -> {
                            switch (method.getName()) {
                                case "listPartitions":
                                    return partitions;
                                case "listOffsets":
                                    return ends;
                                case "dropPartition":
                                    dropped.add((BinaryRow) args[1]);
                                    return null;
                                case "close":
                                    return null;
                                default:
                                    throw new UnsupportedOperationException(method.getName());
                            }
                        });
    }
}
