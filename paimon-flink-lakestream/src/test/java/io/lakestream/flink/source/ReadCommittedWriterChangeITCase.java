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

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.source.SourceTestTables.Kind;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.testutils.Await;

import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.lakestream.flink.source.SourceTestTables.paimonRead;
import static io.lakestream.flink.source.SourceTestTables.storeOptions;
import static io.lakestream.flink.source.SourceTestTables.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A read-committed reader that runs while a writing job is cancelled with records in the store that
 * no snapshot will ever commit, and other jobs write on: the rows committed before, during and
 * after reach the reader, in the partition of the cancelled tail and in others, and what it
 * returned equals Paimon's own read; the cancelled tail never does.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class ReadCommittedWriterChangeITCase {

    /** Records the cancelled job leaves uncommitted in partition 1. */
    private static final int CANCELLED_TAIL = 2_000;

    @TempDir static java.nio.file.Path warehouse;

    private static SourceTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SourceTestTables(warehouse, "read_committed_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    @Test
    void aCancelledWritersTailHoldsNoReaderBack() throws Exception {
        FileStoreTable table = tables.createTable("cancelled_tail", Kind.APPEND);
        List<Row> expected = new ArrayList<>(rows(1, 0, 10));
        write(table, rows(1, 0, 10));
        CommittedRows.clear();
        JobClient reader = startReader(table);
        try {
            Await.until(
                    () -> CommittedRows.published().size() >= 10,
                    "the rows committed before are read");

            // a job writes partition 1 and is cancelled before any checkpoint commits it
            long before = tables.storedRecords(table);
            JobClient cancelled =
                    SourceTestTables.writeUncommitted(table, rows(1, 1_000, CANCELLED_TAIL));
            Await.until(
                    () -> tables.storedRecords(table) >= before + CANCELLED_TAIL,
                    "the cancelled job's records are in the store");
            cancelled.cancel().get();

            // during: another job commits a row of another partition only
            write(table, rows(2, 0, 1));
            expected.addAll(rows(2, 0, 1));
            Await.until(
                    () -> CommittedRows.published().size() >= expected.size(),
                    "the row committed in partition 2 after the cancelled tail is read");

            // after: a job commits rows of the cancelled tail's partition, and of a new one
            List<Row> after = new ArrayList<>(rows(1, 100, 5));
            after.addAll(rows(3, 0, 5));
            write(table, after);
            expected.addAll(after);
            Await.until(
                    () -> CommittedRows.published().size() >= expected.size(),
                    "the rows committed after are read");
            CommittedRows.awaitMoreCheckpoints("", 3);

            List<String> paimon = paimonRead(tables.table(table.name()));
            assertThat(paimon).hasSize(expected.size());
            assertThat(CommittedRows.published())
                    .as("what the read-committed reader returned")
                    .containsExactlyInAnyOrderElementsOf(paimon);
        } finally {
            reader.cancel().get();
        }
    }

    /** {@code count} rows of partition {@code dt} with ids from {@code firstId}. */
    private static List<Row> rows(int dt, int firstId, int count) {
        List<Row> rows = new ArrayList<>();
        for (int id = firstId; id < firstId + count; id++) {
            rows.add(Row.ofKind(RowKind.INSERT, dt, id, (long) id, "r" + id));
        }
        return rows;
    }

    private static JobClient startReader(FileStoreTable table) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        Map<String, String> options = storeOptions();
        options.put(LakeStreamOptions.READ_ISOLATION.key(), "read-committed");
        LakeStreamSource source =
                LakeStreamSource.builder().setTable(table).setOptions(options).build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "read")
                .addSink(new CommittedRows(SourceTestTables::render))
                .setParallelism(1);
        return env.executeAsync("read-committed reader of " + table.name());
    }
}
