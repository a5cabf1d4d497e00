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

package io.lakestream.flink.source;

import io.lakestream.flink.source.SourceTestTables.Kind;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.types.RowKind;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.util.concurrent.atomic.AtomicLong;

import static io.lakestream.flink.source.SourceTestTables.storeOptions;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A partition-bucket that switched to its log is served while the same reader still reads another
 * partition-bucket's large lake part: a record written to the switched one arrives before that
 * backlog is read, not after it.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class SwitchedBucketFreshnessITCase {

    /** The lake rows of partition 2, read after partition 1's: the backlog. */
    private static final int BACKLOG = 200_000;

    /** The id of the record written to the switched partition-bucket. */
    private static final int FRESH_ID = -1;

    private static final AtomicLong SMALL_PARTITION_ROWS = new AtomicLong();
    private static final AtomicLong BACKLOG_ROWS = new AtomicLong();
    private static final AtomicLong BACKLOG_ROWS_AT_FRESH = new AtomicLong(-1);

    @TempDir static java.nio.file.Path warehouse;

    private static SourceTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SourceTestTables(warehouse, "switched_freshness_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    @Test
    void aSwitchedBucketIsServedWhileAnotherLakePartIsRead() throws Exception {
        FileStoreTable table = tables.createTable("backlog", Kind.APPEND);
        // two commits, so that Paimon's scan (manifest order) plans partition 1 first
        commit(table, 1, 2);
        commit(table, 2, BACKLOG);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        LakeStreamSource source =
                LakeStreamSource.builder().setTable(table).setOptions(storeOptions()).build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "read").addSink(new Counting());
        JobClient reader = env.executeAsync("switched bucket freshness");
        try (StreamWriter writer =
                tables.store.createWriter(
                        tables.store.get(
                                StreamTableSpec.of(
                                        Identifier.fromString(table.fullName()), table)))) {
            Await.until(() -> SMALL_PARTITION_ROWS.get() >= 2, "partition 1's lake part is read");
            assertThat(BACKLOG_ROWS.get())
                    .as("partition 2's lake part is still being read when partition 1's ends")
                    .isLessThan(BACKLOG);

            GenericRow fresh = row(1, FRESH_ID);
            writer.write(partitionBucket(table, fresh), RowKind.INSERT, fresh);
            writer.flush();
            Await.until(() -> BACKLOG_ROWS_AT_FRESH.get() >= 0, "the fresh record is read");
            Await.until(() -> BACKLOG_ROWS.get() >= BACKLOG, "the backlog is read");
        } finally {
            reader.cancel().get();
        }
        System.out.printf(
                "The fresh record arrived after %d of the %d backlog rows%n",
                BACKLOG_ROWS_AT_FRESH.get(), BACKLOG);
        assertThat(BACKLOG_ROWS_AT_FRESH.get())
                .as("backlog rows read before the switched bucket's new record arrived")
                .isLessThan(BACKLOG);
    }

    private static void commit(FileStoreTable table, int dt, int rows) throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            for (int id = 0; id < rows; id++) {
                write.write(row(dt, id));
            }
            commit.commit(write.prepareCommit());
        }
    }

    private static GenericRow row(int dt, int id) {
        return GenericRow.of(dt, id, (long) id, BinaryString.fromString("n"));
    }

    private static PartitionBucket partitionBucket(FileStoreTable table, GenericRow row) {
        KeyAndBucketExtractor<org.apache.paimon.data.InternalRow> keys =
                table.createRowKeyExtractor();
        keys.setRecord(row);
        return new PartitionBucket(keys.partition().copy(), keys.bucket());
    }

    /**
     * Counts what the reader emits; notes the backlog's progress when the fresh record comes. It
     * takes the backlog slowly (about 4 s for all of it), so that the test does not depend on how
     * fast the lake part is read compared with the store's latency: the reader fetches at the
     * sink's pace, and each fetch of lake rows also takes what the switched logs delivered.
     */
    private static final class Counting implements SinkFunction<RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public void invoke(RowData row, Context context) {
            if (row.getInt(0) == 2) {
                if (BACKLOG_ROWS.incrementAndGet() % 50 == 0) {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            } else if (row.getInt(1) == FRESH_ID) {
                BACKLOG_ROWS_AT_FRESH.set(BACKLOG_ROWS.get());
            } else {
                SMALL_PARTITION_ROWS.incrementAndGet();
            }
        }
    }
}
