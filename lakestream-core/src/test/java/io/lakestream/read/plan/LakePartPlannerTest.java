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

import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LakePartPlanner} on real Paimon tables: for the tables whose batch scan skips level 0
 * (deletion vectors, {@code first-row}), the planned splits hold the committed level-0 files, and
 * Paimon's table read of them returns exactly what Paimon returns once everything is compacted
 * (deletion vectors applied to the higher levels, level 0 merged in); every other table gets the
 * batch scan's splits.
 */
class LakePartPlannerTest {

    private static final int BUCKETS = 2;

    @TempDir java.nio.file.Path warehouse;
    @TempDir java.nio.file.Path ioTemp;

    private FileStoreTable create(String name, boolean primaryKey, Map<String, String> options)
            throws Exception {
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("v", DataTypes.INT())
                        .option("bucket", String.valueOf(BUCKETS))
                        .options(options);
        if (primaryKey) {
            schema.primaryKey("id");
        } else {
            schema.option("bucket-key", "id");
        }
        return LocalPaimonTables.create(warehouse, name, schema.build());
    }

    /** Commits {@code rows} with a writer of {@code table}'s own options. */
    private void commit(FileStoreTable table, List<GenericRow> rows) throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            // lookup compaction spills to disk
            write.withIOManager(IOManager.create(ioTemp.toString()));
            for (GenericRow row : rows) {
                write.write(row);
            }
            commit.commit(write.prepareCommit());
        }
    }

    /** Commits {@code rows} as a {@code write-only} writer does: level-0 files, no compaction. */
    private void commitWriteOnly(FileStoreTable table, List<GenericRow> rows) throws Exception {
        commit(table.copy(Collections.singletonMap("write-only", "true")), rows);
    }

    /** A full compaction of every bucket, as a dedicated compaction job makes it. */
    private void compactFully(FileStoreTable table) throws Exception {
        BatchWriteBuilder builder =
                table.copy(Collections.singletonMap("write-only", "false")).newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            write.withIOManager(IOManager.create(ioTemp.toString()));
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                write.compact(BinaryRow.EMPTY_ROW, bucket, true);
            }
            commit.commit(write.prepareCommit());
        }
    }

    private static List<GenericRow> rows(int from, int to, int v) {
        List<GenericRow> rows = new ArrayList<>();
        for (int id = from; id < to; id++) {
            rows.add(GenericRow.of(id, v));
        }
        return rows;
    }

    private static List<DataSplit> plan(FileStoreTable table) {
        return plan(table, null);
    }

    private static List<DataSplit> plan(FileStoreTable table, Predicate filter) {
        Snapshot latest = table.snapshotManager().latestSnapshot();
        return LakePartPlanner.plan(
                table,
                latest,
                Collections.singletonMap(
                        CoreOptions.SCAN_SNAPSHOT_ID.key(), String.valueOf(latest.id())),
                null,
                filter);
    }

    private static List<DataSplit> batchScan(FileStoreTable table) {
        List<DataSplit> splits = new ArrayList<>();
        for (Split split : table.newReadBuilder().newScan().plan().splits()) {
            splits.add((DataSplit) split);
        }
        return splits;
    }

    private static long levelZeroFiles(List<DataSplit> splits) {
        return splits.stream()
                .flatMap(s -> s.dataFiles().stream())
                .filter(f -> f.level() == 0)
                .count();
    }

    /** Paimon's table read of {@code splits}: id to v, each id once. */
    private static Map<Integer, Integer> read(FileStoreTable table, List<DataSplit> splits)
            throws Exception {
        ReadBuilder read = table.newReadBuilder();
        Map<Integer, Integer> rows = new TreeMap<>();
        try (RecordReader<InternalRow> reader =
                read.newRead().createReader(new ArrayList<Split>(splits))) {
            reader.forEachRemaining(
                    r -> {
                        assertThat(rows.put(r.getInt(0), r.getInt(1)))
                                .as("id %s read once", r.getInt(0))
                                .isNull();
                    });
        }
        return rows;
    }

    /** What Paimon returns once a full compaction has left nothing at level 0. */
    private Map<Integer, Integer> compactedRead(FileStoreTable table) throws Exception {
        compactFully(table);
        FileStoreTable latest = table.copyWithLatestSchema();
        List<DataSplit> splits = batchScan(latest);
        assertThat(levelZeroFiles(splits)).as("level-0 files after a full compaction").isZero();
        return read(latest, splits);
    }

    @Test
    void theRuleFollowsPaimonsBatchScan() throws Exception {
        assertThat(LakePartPlanner.batchScanSkipsLevel0(create("dedup", true, Map.of()))).isFalse();
        assertThat(
                        LakePartPlanner.batchScanSkipsLevel0(
                                create("dv", true, Map.of("deletion-vectors.enabled", "true"))))
                .isTrue();
        assertThat(
                        LakePartPlanner.batchScanSkipsLevel0(
                                create("first_row", true, Map.of("merge-engine", "first-row"))))
                .isTrue();
        assertThat(
                        LakePartPlanner.batchScanSkipsLevel0(
                                create(
                                        "append_dv",
                                        false,
                                        Map.of("deletion-vectors.enabled", "true"))))
                .as("append tables keep every file at level 0 and the batch scan reads them")
                .isFalse();
    }

    /**
     * A deletion-vector table: compacted rows, updates compacted with deletion vectors, then
     * updates and a delete committed by a {@code write-only} writer at level 0.
     */
    @Test
    void aDeletionVectorTableIsPlannedWithItsLevelZeroFiles() throws Exception {
        FileStoreTable table =
                create("dv_levels", true, Map.of("deletion-vectors.enabled", "true"));
        commit(table, rows(0, 100, 0));
        commit(table, rows(0, 30, 2));
        List<GenericRow> levelZero = rows(20, 60, 3);
        levelZero.add(GenericRow.ofKind(RowKind.DELETE, 90, 0));
        commitWriteOnly(table, levelZero);
        table = table.copyWithLatestSchema();

        List<DataSplit> planned = plan(table);
        assertThat(levelZeroFiles(batchScan(table)))
                .as("Paimon's batch scan skips level 0")
                .isZero();
        assertThat(levelZeroFiles(planned)).as("level-0 files planned").isPositive();
        assertThat(
                        planned.stream()
                                .flatMap(s -> s.deletionFiles().orElse(List.of()).stream())
                                .filter(java.util.Objects::nonNull)
                                .count())
                .as("deletion vectors planned")
                .isPositive();

        Map<Integer, Integer> expected = new TreeMap<>();
        for (int id = 0; id < 100; id++) {
            expected.put(id, id < 20 ? 2 : id < 60 ? 3 : 0);
        }
        expected.remove(90);
        Map<Integer, Integer> union = read(table, planned);
        assertThat(union).isEqualTo(expected);
        assertThat(union).isEqualTo(compactedRead(table));
    }

    /** A first-row table written only by a {@code write-only} writer: all of it at level 0. */
    @Test
    void aWriteOnlyFirstRowTableIsPlannedWithItsLevelZeroFiles() throws Exception {
        FileStoreTable table =
                create(
                        "first_row_write_only",
                        true,
                        Map.of("merge-engine", "first-row", "write-only", "true"));
        commit(table, rows(0, 50, 0));
        commit(table, rows(25, 75, 1));
        table = table.copyWithLatestSchema();

        assertThat(batchScan(table)).as("Paimon's batch scan").isEmpty();
        Map<Integer, Integer> expected = new TreeMap<>();
        for (int id = 0; id < 75; id++) {
            expected.put(id, id < 50 ? 0 : 1);
        }
        Map<Integer, Integer> union = read(table, plan(table));
        assertThat(union).isEqualTo(expected);
        assertThat(union).isEqualTo(compactedRead(table));
    }

    @Test
    void aFilterPrunesTheLevelZeroFilesOfTheOtherBucketsAndKeysOnly() throws Exception {
        FileStoreTable table =
                create(
                        "dv_filter",
                        true,
                        Map.of("deletion-vectors.enabled", "true", "write-only", "true"));
        commit(table, rows(0, 100, 0));
        table = table.copyWithLatestSchema();
        PredicateBuilder predicates = new PredicateBuilder(table.rowType());

        List<DataSplit> planned = plan(table, predicates.equal(0, 7));

        assertThat(planned).hasSize(1);
        assertThat(read(table, planned)).containsEntry(7, 0);
    }

    @Test
    void otherTablesGetTheBatchScansSplits() throws Exception {
        FileStoreTable dedup = create("plain", true, Map.of());
        commit(dedup, rows(0, 100, 0));
        commit(dedup.copy(Collections.singletonMap("write-only", "true")), rows(0, 50, 1));
        FileStoreTable append = create("append", false, Map.of());
        commit(append, rows(0, 100, 0));
        commit(append, rows(0, 100, 1));
        FileStoreTable compacted =
                create("dv_compacted", true, Map.of("deletion-vectors.enabled", "true"));
        commit(compacted, rows(0, 100, 0));
        commit(compacted, rows(0, 50, 1));

        for (FileStoreTable table : List.of(dedup, append, compacted)) {
            table = table.copyWithLatestSchema();
            assertThat(plan(table)).as(table.name()).isEqualTo(batchScan(table));
        }
        assertThat(levelZeroFiles(plan(dedup.copyWithLatestSchema())))
                .as("the batch scan reads level 0 of a table without deletion vectors")
                .isPositive();
    }
}
