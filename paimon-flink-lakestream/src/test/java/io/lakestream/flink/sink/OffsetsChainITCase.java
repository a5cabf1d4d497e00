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

import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The offsets chain under what production does to a Paimon table besides lake-stream writes:
 * dedicated compactions and another writer commit without offsets, and Paimon expires the last
 * snapshot that recorded them. Reads and the next writing job must still start every bucket at its
 * tiered offset: no duplicates, nothing fenced that was committed.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class OffsetsChainITCase {

    /** Twelve inserts by another writer (more than Paimon retains here) and four compactions. */
    private static final int OTHER_COMMITS = 16;

    @TempDir static java.nio.file.Path warehouse;

    private static SinkTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SinkTestTables(warehouse, "chain_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    @Test
    void chainSurvivesCompactionsOtherWritersAndExpiry() throws Exception {
        String name = "expiring";
        tables.create(
                name,
                false,
                3,
                Map.of("snapshot.num-retained.min", "10", "snapshot.num-retained.max", "10"));
        writeWithSink(name, 0, 600);
        FileStoreTable table = tables.table(name);
        // the sink's last commit may be followed by a compaction snapshot of its own writer,
        // which points at the commit's offsets rather than writing a file of its own
        long lastWithOffsets = table.snapshotManager().latestSnapshotId();
        while (!SnapshotOffsets.ownOffsetsFile(table.snapshotManager().snapshot(lastWithOffsets))
                .isPresent()) {
            assertThat(table.snapshotManager().snapshot(lastWithOffsets).commitKind())
                    .as("a snapshot after the sink's last commit")
                    .isEqualTo(org.apache.paimon.Snapshot.CommitKind.COMPACT);
            lastWithOffsets--;
        }

        int otherRows = 0;
        for (int i = 0; i < OTHER_COMMITS; i++) {
            if (i % 4 == 3) {
                compactEveryBucket(table);
            } else {
                otherRows += writeWithPaimonAlone(table, 100_000 + i * 10, 10);
            }
        }
        table = tables.table(name);
        assertThat(table.snapshotManager().snapshotExists(lastWithOffsets))
                .as("the last snapshot with offsets expired")
                .isFalse();

        List<String> paimon = latestPaimonRows(table);
        assertThat(paimon).hasSize(600 + otherRows);
        SameRows.assertSameRows("the union read", SinkVerification.readUnion(table), paimon);

        // the next job starts every bucket at its tiered offset: it fences nothing
        StreamTable streamTable =
                tables.store.get(StreamTableSpec.of(tables.identifier(name), table));
        long fencedBefore = tables.verify.fencedRecords(streamTable);
        writeWithSink(name, 600, 600);
        assertThat(tables.verify.fencedRecords(streamTable)).isEqualTo(fencedBefore);

        table = tables.table(name);
        paimon = latestPaimonRows(table);
        assertThat(paimon).hasSize(1_200 + otherRows).doesNotHaveDuplicates();
        SameRows.assertSameRows("the union read", SinkVerification.readUnion(table), paimon);
    }

    private static List<String> latestPaimonRows(FileStoreTable table) throws Exception {
        return SinkVerification.readPaimon(table, table.snapshotManager().latestSnapshotId());
    }

    /** A bounded lake-stream job that writes rows {@code from} to {@code from + count - 1}. */
    private static void writeWithSink(String name, long from, int count) throws Exception {
        StreamExecutionEnvironment env = SinkTestTables.env(2, 300);
        env.setRestartStrategy(RestartStrategies.noRestart());
        SinkTestTables.sink(tables.table(name))
                .sinkFrom(
                        env.fromSource(
                                new DataGeneratorSource<>(
                                        i -> SinkTestTables.row(from + i),
                                        count,
                                        RateLimiterStrategy.perSecond(1_000),
                                        TypeInformation.of(RowData.class)),
                                WatermarkStrategy.noWatermarks(),
                                "rows"));
        env.execute("write " + name);
    }

    /** Another writer (a batch job of plain Paimon, another engine): no offsets recorded. */
    private static int writeWithPaimonAlone(FileStoreTable table, int firstId, int count)
            throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            for (int id = firstId; id < firstId + count; id++) {
                write.write(
                        GenericRow.of(
                                id,
                                BinaryString.fromString("other-" + id),
                                BinaryString.fromString("d" + (id % SinkTestTables.PARTITIONS))));
            }
            commit.commit(write.prepareCommit());
        }
        return count;
    }

    /** A dedicated full compaction of every bucket, as {@code CALL sys.compact} runs it. */
    private static void compactEveryBucket(FileStoreTable table) throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            for (int p = 0; p < SinkTestTables.PARTITIONS; p++) {
                for (int bucket = 0; bucket < 3; bucket++) {
                    write.compact(BinaryRow.singleColumn("d" + p), bucket, true);
                }
            }
            commit.commit(write.prepareCommit());
        }
    }
}
