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

package io.lakestream.protocol;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.protocol.StreamPartitionDrops.Action;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.testutils.LocalPaimonTables;

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
import java.util.concurrent.atomic.AtomicInteger;
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

    private static final BinaryRow GONE = BinaryRow.singleColumn("gone");
    private static final BinaryRow LIVE = BinaryRow.singleColumn("live");

    @Test
    void theCommitDropsWhatTheTableDroppedAfterTheDelayAndKeepsTheRest() throws Exception {
        FileStoreTable table = tableWithTwoPartitions();
        dropPartition(table, "gone");
        StreamOffsets parent = StreamOffsets.of(map());
        List<BinaryRow> dropped = new ArrayList<>();
        AtomicLong now = new AtomicLong(1_000);
        StreamPartitionDrops drops =
                new StreamPartitionDrops(
                        table,
                        streamTable(table),
                        () -> store(map(), dropped, new AtomicInteger()),
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
                                Collections.singletonMap(new PartitionBucket(LIVE, 0), 7L)));
        assertThat(dropped).containsExactly(GONE);
    }

    @Test
    void aDropIsFollowedAtTheNextCommitNotAtTheNextPeriodicCheck() throws Exception {
        FileStoreTable table = tableWithTwoPartitions();
        StreamOffsets parent = StreamOffsets.of(map());
        List<BinaryRow> dropped = new ArrayList<>();
        AtomicInteger listings = new AtomicInteger();
        StreamPartitionDrops drops =
                new StreamPartitionDrops(
                        table,
                        streamTable(table),
                        () -> store(map(), dropped, listings),
                        Duration.ZERO,
                        () -> 1_000L);
        assertThat(drops.beforeCommit(parent, StreamOffsets.empty())).isEqualTo(parent);
        assertThat(listings).hasValue(1);

        // commits that only add data do not make the committer look again within the interval
        LocalPaimonTables.commitWithoutOffsets(
                table,
                Collections.singletonList(GenericRow.of(BinaryString.fromString("live"), 3)));
        assertThat(drops.beforeCommit(parent, StreamOffsets.empty())).isEqualTo(parent);
        assertThat(listings).hasValue(1);

        // a drop is an overwrite: the next commit follows it
        dropPartition(table, "gone");
        assertThat(drops.beforeCommit(parent, StreamOffsets.empty()))
                .isEqualTo(
                        StreamOffsets.of(
                                Collections.singletonMap(new PartitionBucket(LIVE, 0), 7L)));
        assertThat(dropped).containsExactly(GONE);
    }

    private FileStoreTable tableWithTwoPartitions() throws Exception {
        FileStoreTable table = table();
        LocalPaimonTables.commitWithoutOffsets(
                table,
                Arrays.asList(
                        GenericRow.of(BinaryString.fromString("gone"), 1),
                        GenericRow.of(BinaryString.fromString("live"), 2)));
        return table;
    }

    private static void dropPartition(FileStoreTable table, String dt) throws Exception {
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            commit.truncatePartitions(
                    Collections.singletonList(Collections.singletonMap("dt", dt)));
        }
    }

    /** The tiered offsets of both partitions, which are also the store's ends. */
    private static Map<PartitionBucket, Long> map() {
        Map<PartitionBucket, Long> map = new HashMap<>();
        map.put(new PartitionBucket(GONE, 0), 4L);
        map.put(new PartitionBucket(LIVE, 0), 7L);
        return map;
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
        return LocalPaimonTables.streamTable(table);
    }

    /** A store holding the partitions of {@code ends}, at those end offsets. */
    private static StreamStore store(
            Map<PartitionBucket, Long> ends, List<BinaryRow> dropped, AtomicInteger listings) {
        List<BinaryRow> partitions = new ArrayList<>();
        ends.keySet().forEach(pb -> partitions.add(pb.partition()));
        return (StreamStore)
                java.lang.reflect.Proxy.newProxyInstance(
                        StreamStore.class.getClassLoader(),
                        new Class<?>[] {StreamStore.class},
                        (proxy, method, args) -> {
                            switch (method.getName()) {
                                case "listPartitions":
                                    listings.incrementAndGet();
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
