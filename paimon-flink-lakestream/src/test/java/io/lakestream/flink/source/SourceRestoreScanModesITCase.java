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

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.lakestream.flink.source.SourceTestTables.storeOptions;
import static io.lakestream.flink.source.SourceTestTables.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An unbounded read of each scan mode, both isolation levels side by side in one job, stopped with
 * a savepoint, the table changed while it is down (rows of the lake-stream sink in an existing and
 * a new partition, rows Paimon alone commits), restored, and the table changed again: each
 * isolation level returns every row of its scan mode's range exactly once, none lost while it was
 * down, and what both returned equals Paimon's own read of those rows.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class SourceRestoreScanModesITCase {

    private static final String[] ISOLATIONS = {"read-uncommitted", "read-committed"};

    @TempDir static java.nio.file.Path warehouse;

    private static SourceTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SourceTestTables(warehouse, "restore_modes_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    /**
     * {@code latest} starts on an empty partitioned table and is stopped before anything is
     * committed: its savepoint holds a plan that found no partition, and the restore must not plan
     * again from the snapshot latest then, which would skip what was committed while it was down.
     */
    @ParameterizedTest(name = "scan.mode {0}")
    @ValueSource(strings = {"latest", "latest-full", "from-snapshot", "from-timestamp"})
    void aRestoredReadReturnsEveryChangeOfItsRangeOnce(
            String mode, @TempDir java.nio.file.Path savepoints) throws Exception {
        FileStoreTable table = tables.createTable("restore_" + mode.replace('-', '_'), Kind.APPEND);
        List<Row> before = rows(1, 0, 10);
        List<Row> expected = new ArrayList<>();
        Map<String, String> scan = new HashMap<>();
        long startedAt = System.currentTimeMillis();
        switch (mode) {
            case "latest":
                break; // nothing committed: no partition exists yet
            case "latest-full":
                write(table, before);
                expected.addAll(before);
                break;
            case "from-snapshot":
                write(table, before);
                // the changes of the next snapshot on
                scan.put(
                        "scan.snapshot-id",
                        String.valueOf(
                                tables.table(table.name()).snapshotManager().latestSnapshotId()
                                        + 1));
                break;
            default:
                write(table, before);
                // a start strictly after the last commit's time, whatever the clock's resolution
                long committedAt =
                        tables.table(table.name()).snapshotManager().latestSnapshot().timeMillis();
                Await.until(
                        () -> System.currentTimeMillis() > committedAt,
                        "the clock passes the last commit");
                startedAt = System.currentTimeMillis();
                scan.put("scan.timestamp-millis", String.valueOf(startedAt));
                break;
        }
        scan.put("scan.mode", mode);
        CommittedRows.clear();

        JobClient first = startReaders(table, scan, null);
        if (mode.equals("latest")) {
            // the savepoint holds a plan that found nothing
            CommittedRows.awaitMoreCheckpoints(ISOLATIONS[0], 2);
            CommittedRows.awaitMoreCheckpoints(ISOLATIONS[1], 2);
        } else {
            List<Row> running = rows(1, 100, 5);
            write(table, running);
            expected.addAll(running);
            awaitRows(expected.size());
        }
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(1, TimeUnit.MINUTES);

        // while the read is down: the sink writes an existing and a new partition, Paimon alone
        // commits another
        List<Row> down = new ArrayList<>(rows(1, 200, 5));
        down.addAll(rows(2, 200, 5));
        write(table, down);
        expected.addAll(down);
        commitThroughPaimonAlone(tables.table(table.name()), 3, 300, 5);
        expected.addAll(rows(3, 300, 5));

        JobClient second = startReaders(table, scan, savepoint);
        try {
            List<Row> after = new ArrayList<>(rows(2, 400, 5));
            after.addAll(rows(4, 400, 5));
            write(table, after);
            expected.addAll(after);
            awaitRows(expected.size());
            CommittedRows.awaitMoreCheckpoints(ISOLATIONS[0], 3);
            CommittedRows.awaitMoreCheckpoints(ISOLATIONS[1], 3);

            List<String> paimon = new ArrayList<>();
            for (String row : SourceTestTables.paimonRead(tables.table(table.name()))) {
                if (expected.stream().anyMatch(r -> SourceTestTables.render(r).equals(row))) {
                    paimon.add(row);
                }
            }
            assertThat(paimon).as("Paimon's rows of the range").hasSize(expected.size());
            for (String isolation : ISOLATIONS) {
                assertThat(CommittedRows.published(isolation))
                        .as("what the %s read of scan.mode %s returned", isolation, mode)
                        .containsExactlyInAnyOrderElementsOf(paimon);
            }
        } finally {
            second.cancel().get();
        }
    }

    private static void awaitRows(int count) throws Exception {
        for (String isolation : ISOLATIONS) {
            Await.until(
                    () -> CommittedRows.published(isolation).size() >= count,
                    count + " rows through the " + isolation + " read");
        }
    }

    private static List<Row> rows(int dt, int firstId, int count) {
        List<Row> rows = new ArrayList<>();
        for (int id = firstId; id < firstId + count; id++) {
            rows.add(Row.ofKind(RowKind.INSERT, dt, id, (long) id, "r" + id));
        }
        return rows;
    }

    /** Commits rows with Paimon's own writer: a snapshot that names no offsets map. */
    private static void commitThroughPaimonAlone(FileStoreTable table, int dt, int firstId, int n)
            throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            for (int id = firstId; id < firstId + n; id++) {
                write.write(GenericRow.of(dt, id, (long) id, BinaryString.fromString("r" + id)));
            }
            commit.commit(write.prepareCommit());
        }
    }

    private static JobClient startReaders(
            FileStoreTable table, Map<String, String> scan, @Nullable String savepoint)
            throws Exception {
        StreamExecutionEnvironment env = environment(savepoint);
        for (String isolation : ISOLATIONS) {
            LakeStreamSource.Builder builder =
                    LakeStreamSource.builder().setTable(table).setOptions(storeOptions());
            builder.setOption(LakeStreamOptions.READ_ISOLATION.key(), isolation);
            scan.forEach(builder::setOption);
            env.fromSource(builder.build(), WatermarkStrategy.noWatermarks(), isolation)
                    .uid("source-" + isolation)
                    .addSink(new CommittedRows(isolation, SourceTestTables::render))
                    .uid("rows-" + isolation)
                    .setParallelism(1);
        }
        return env.executeAsync("restored reads" + (savepoint == null ? "" : " (restored)"));
    }

    /**
     * A bounded read, slowed so that a savepoint falls in the middle of it, restored after the
     * table changed: it returns exactly the rows of the snapshot it planned, each once, whatever
     * was committed after the plan.
     */
    @org.junit.jupiter.api.Test
    void aRestoredBoundedReadReturnsExactlyWhatItPlanned(@TempDir java.nio.file.Path savepoints)
            throws Exception {
        FileStoreTable table = tables.createTable("restore_bounded", Kind.APPEND);
        List<Row> planned = new ArrayList<>(rows(1, 0, 300));
        planned.addAll(rows(2, 0, 300));
        write(table, planned);
        List<String> paimon = SourceTestTables.paimonRead(tables.table(table.name()));
        assertThat(paimon).hasSize(planned.size());
        CommittedRows.clear();

        JobClient first = startBoundedReaders(table, null);
        awaitRows(50);
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(1, TimeUnit.MINUTES);
        for (String isolation : ISOLATIONS) {
            assertThat(CommittedRows.published(isolation))
                    .as("the %s read was stopped in the middle", isolation)
                    .hasSizeLessThan(planned.size());
        }

        write(table, rows(1, 1_000, 5));
        commitThroughPaimonAlone(tables.table(table.name()), 3, 1_000, 5);

        startBoundedReaders(table, savepoint).getJobExecutionResult().get(2, TimeUnit.MINUTES);
        for (String isolation : ISOLATIONS) {
            assertThat(CommittedRows.published(isolation))
                    .as("what the restored bounded %s read returned", isolation)
                    .containsExactlyInAnyOrderElementsOf(paimon);
        }
    }

    private static JobClient startBoundedReaders(FileStoreTable table, @Nullable String savepoint)
            throws Exception {
        StreamExecutionEnvironment env = environment(savepoint);
        for (String isolation : ISOLATIONS) {
            LakeStreamSource.Builder builder =
                    LakeStreamSource.builder()
                            .setTable(table)
                            .setOptions(storeOptions())
                            .setBounded(true);
            builder.setOption(LakeStreamOptions.READ_ISOLATION.key(), isolation);
            org.apache.flink.streaming.api.datastream.DataStream<
                            org.apache.flink.table.data.RowData>
                    rows =
                            env.fromSource(
                                            builder.build(),
                                            WatermarkStrategy.noWatermarks(),
                                            isolation)
                                    .uid("bounded-" + isolation);
            // chained to the source: no network buffer between them holds the barriers back
            rows.map(new Slow())
                    .returns(rows.getType())
                    .uid("slow-" + isolation)
                    .addSink(new CommittedRows(isolation, SourceTestTables::render))
                    .uid("rows-" + isolation)
                    .setParallelism(1);
        }
        return env.executeAsync("bounded reads" + (savepoint == null ? "" : " (restored)"));
    }

    /** Passes rows on slowly, so that a savepoint falls in the middle of a bounded read. */
    private static final class Slow
            implements org.apache.flink.api.common.functions.MapFunction<
                    org.apache.flink.table.data.RowData, org.apache.flink.table.data.RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public org.apache.flink.table.data.RowData map(org.apache.flink.table.data.RowData row)
                throws Exception {
            Thread.sleep(10);
            return row;
        }
    }

    /** Parallelism 2, a checkpoint every 200 ms, restored from {@code savepoint} if given. */
    private static StreamExecutionEnvironment environment(@Nullable String savepoint) {
        Configuration conf = new Configuration();
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(200);
        return env;
    }
}
