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
import io.lakestream.testutils.Await;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.lakestream.flink.source.SourceTestTables.asInserts;
import static io.lakestream.flink.source.SourceTestTables.committedRows;
import static io.lakestream.flink.source.SourceTestTables.laterRows;
import static io.lakestream.flink.source.SourceTestTables.materialize;
import static io.lakestream.flink.source.SourceTestTables.paimonRead;
import static io.lakestream.flink.source.SourceTestTables.storeOptions;
import static io.lakestream.flink.source.SourceTestTables.unionRead;
import static io.lakestream.flink.source.SourceTestTables.write;
import static io.lakestream.flink.source.SourceTestTables.writeUncommitted;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Committed level-0 files that Paimon's batch scan skips (deletion-vector and {@code first-row}
 * tables whose writer does not compact before its commit) are read: their rows are in the snapshot
 * and below its offsets, so the store part does not return them either.
 *
 * <p>Per case, rows are committed by the lake-stream sink (the last commit at a checkpoint, so that
 * a writer that does not wait for compaction leaves level-0 files in it), a tail stays in the store
 * uncommitted, and then a bounded union read and an unbounded changelog read run. Both must equal
 * Paimon's own read of the table once everything is committed and fully compacted, when nothing is
 * left at level 0 for its batch scan to skip.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LevelZeroReadITCase {

    @TempDir static java.nio.file.Path warehouse;
    @TempDir static java.nio.file.Path ioTemp;

    private static SourceTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SourceTestTables(warehouse, "level_zero_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    /** The tables whose batch scan skips level 0, and how their writers leave it. */
    enum Case {
        /** Compacted before every commit ({@code lookup-wait}): no level 0 left, the guard. */
        DELETION_VECTORS(
                Kind.DEDUPLICATE, Map.of("deletion-vectors.enabled", "true"), false, false),
        /** A {@code write-only} writer and a dedicated compaction between its commits. */
        DELETION_VECTORS_WRITE_ONLY(
                Kind.DEDUPLICATE,
                Map.of("deletion-vectors.enabled", "true", "write-only", "true"),
                true,
                true),
        /** Compaction runs after the commit, with lookup changelogs. */
        DELETION_VECTORS_NO_LOOKUP_WAIT(
                Kind.DEDUPLICATE,
                Map.of(
                        "deletion-vectors.enabled",
                        "true",
                        "lookup-wait",
                        "false",
                        "changelog-producer",
                        "lookup"),
                false,
                true),
        FIRST_ROW_WRITE_ONLY(Kind.FIRST_ROW, Map.of("write-only", "true"), false, true);

        final Kind kind;
        final Map<String, String> options;
        final boolean dedicatedCompaction;

        /** Whether the snapshot the reads start from has level-0 files. */
        final boolean levelZeroAtRead;

        Case(
                Kind kind,
                Map<String, String> options,
                boolean dedicatedCompaction,
                boolean levelZeroAtRead) {
            this.kind = kind;
            this.options = options;
            this.dedicatedCompaction = dedicatedCompaction;
            this.levelZeroAtRead = levelZeroAtRead;
        }
    }

    @ParameterizedTest
    @EnumSource(Case.class)
    void committedLevelZeroRowsAreRead(Case c) throws Exception {
        String name = c.name().toLowerCase();
        FileStoreTable table = tables.createTable(name, c.kind, c.options);
        write(table, committedRows());
        if (c.dedicatedCompaction) {
            compactFully(tables.table(name));
        }
        commitAtACheckpoint(name, laterRows(c.kind));
        assertThat(levelZeroFiles(tables.table(name)))
                .as("level-0 files in the snapshot the reads start from")
                .matches(files -> c.levelZeroAtRead ? files > 0 : files == 0);

        List<Row> tail = tailRows(c.kind);
        long stored = tables.storedRecords(table);
        JobClient writer = writeUncommitted(table, tail);
        Await.until(
                () -> tables.storedRecords(table) >= stored + tail.size(),
                "the tail is in the store");
        long snapshotBefore = tables.table(name).snapshotManager().latestSnapshotId();

        List<String> union = unionRead(tables.table(name));
        CommittedRows.clear();
        JobClient unbounded = readUnbounded(tables.table(name));
        try {
            assertThat(tables.table(name).snapshotManager().latestSnapshotId())
                    .as("nothing committed while the union read ran")
                    .isEqualTo(snapshotBefore);
            GatedRows.open();
            writer.getJobExecutionResult().get(2, TimeUnit.MINUTES);
            compactFully(tables.table(name));
            FileStoreTable compacted = tables.table(name);
            assertThat(levelZeroFiles(compacted)).as("level-0 files after compaction").isZero();
            List<String> paimon = paimonRead(compacted);
            System.out.printf(
                    "%s: union read of %d rows before the commit, Paimon read of %d after it%n",
                    c, union.size(), paimon.size());

            assertThat(union).containsExactlyInAnyOrderElementsOf(asInserts(paimon));

            Set<String> state = new HashSet<>();
            for (String row : paimon) {
                state.add(row.substring(2));
            }
            Await.until(
                    () -> materialize(CommittedRows.published()).equals(state),
                    "the unbounded changelog reaches Paimon's state");
        } finally {
            unbounded.cancel().get(1, TimeUnit.MINUTES);
        }
    }

    /**
     * Commits {@code rows} at a checkpoint of a job that then stops without a final commit: a
     * bounded job's last commit waits for compaction, a checkpoint's commit does so only when the
     * table asks for it ({@code lookup-wait}).
     */
    private static void commitAtACheckpoint(String name, List<Row> rows) throws Exception {
        FileStoreTable table = tables.table(name);
        long stored = tables.storedRecords(table);
        long snapshot = table.snapshotManager().latestSnapshotId();
        JobClient writer = writeUncommitted(table, rows);
        boolean stopped = false;
        try {
            Await.until(
                    () -> tables.storedRecords(table) >= stored + rows.size(),
                    "the rows are in the store");
            SharedMiniCluster.miniCluster()
                    .triggerCheckpoint(writer.getJobID())
                    .get(1, TimeUnit.MINUTES);
            Await.until(
                    () -> tables.table(name).snapshotManager().latestSnapshotId() > snapshot,
                    "the checkpoint is committed");
            // a commit may write an append and a compaction snapshot, in one call of the
            // committer's checkpoint notification; a cancelled task ends after the call it is in
            writer.cancel().get(1, TimeUnit.MINUTES);
            stopped = true;
            Await.until(
                    () -> writer.getJobStatus().get().isGloballyTerminalState(),
                    "the writer stopped");
        } finally {
            if (!stopped) {
                writer.cancel().get(1, TimeUnit.MINUTES);
            }
        }
    }

    /** An unbounded read turned into the table's changelog, published at checkpoints. */
    private static JobClient readUnbounded(FileStoreTable table) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        LakeStreamSource source =
                LakeStreamSource.builder().setTable(table).setOptions(storeOptions()).build();
        LakeStreamChangelog.of(env, source, table.name())
                .addSink(new CommittedRows(SourceTestTables::render))
                .setParallelism(1);
        return env.executeAsync("changelog " + table.name());
    }

    /**
     * The uncommitted tail: for deduplicate, updates of committed and of level-0 keys, deletes and
     * new keys; for first-row, keys again (ignored) and new keys.
     */
    private static List<Row> tailRows(Kind kind) {
        List<Row> rows = new ArrayList<>();
        if (kind == Kind.FIRST_ROW) {
            for (int id = 0; id < 10; id++) {
                rows.add(Row.ofKind(RowKind.INSERT, 1, id, 9L, "tail"));
            }
        } else {
            for (int id = 50; id < 150; id++) {
                rows.add(Row.ofKind(RowKind.UPDATE_AFTER, 1, id, 7000L + id, "c" + id));
            }
            for (int id = 250; id < 260; id++) {
                rows.add(Row.ofKind(RowKind.DELETE, 2, id, (long) id, "a" + id));
            }
        }
        for (int id = 500; id < 510; id++) {
            rows.add(Row.ofKind(RowKind.INSERT, 2, id, (long) id, "new"));
            rows.add(Row.ofKind(RowKind.INSERT, 4, id, (long) id, "new"));
        }
        return rows;
    }

    /** The level-0 files of the table's latest snapshot, whatever its batch scan skips. */
    private static long levelZeroFiles(FileStoreTable table) {
        long files = 0;
        for (DataSplit split : table.newSnapshotReader().read().dataSplits()) {
            files += split.dataFiles().stream().filter(f -> f.level() == 0).count();
        }
        return files;
    }

    /** A full compaction of every partition-bucket, committed as a dedicated compaction job. */
    private static void compactFully(FileStoreTable table) throws Exception {
        List<BinaryRow> partitions = table.newSnapshotReader().partitions();
        BatchWriteBuilder builder =
                table.copy(Collections.singletonMap("write-only", "false")).newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            // lookup compaction spills to disk
            write.withIOManager(IOManager.create(ioTemp.toString()));
            for (BinaryRow partition : partitions) {
                for (int bucket = 0; bucket < table.coreOptions().bucket(); bucket++) {
                    write.compact(partition, bucket, true);
                }
            }
            commit.commit(write.prepareCommit());
        }
    }
}
