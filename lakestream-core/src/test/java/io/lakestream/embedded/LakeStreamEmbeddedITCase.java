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

package io.lakestream.embedded;

import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.protocol.WriterConflictException;
import io.lakestream.table.LakeStreamRefusedException;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The embedded API on the {@code memory} store and a local Paimon warehouse, without Flink: rows
 * are readable before they are committed, and every union read equals Paimon's own read of the same
 * table once everything is committed.
 */
class LakeStreamEmbeddedITCase {

    @TempDir java.nio.file.Path warehouse;

    private Catalog catalog;
    private final Map<String, String> options = new HashMap<>();

    @BeforeEach
    void setUp() throws Exception {
        catalog = LocalPaimonTables.catalog(warehouse);
        options.putAll(LocalPaimonTables.memoryStoreOptions());
    }

    @AfterEach
    void tearDown() throws Exception {
        catalog.close();
    }

    @Test
    void anAppendTableIsReadBeforeItsCommitAndAsPaimonReadsItAfter() throws Exception {
        Identifier id = create("events", null, "2");
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            writer.write(row(2, "b"));
            assertThat(strings(table.newScan().read())).containsExactlyInAnyOrder("1:a", "2:b");
            assertThat(paimonRead(id)).isEmpty();

            writer.commit();
            writer.write(row(3, "c"));
            assertThat(paimonRead(id)).containsExactlyInAnyOrder("1:a", "2:b");
            assertThat(strings(table.newScan().read()))
                    .containsExactlyInAnyOrder("1:a", "2:b", "3:c");

            writer.commit();
            assertThat(strings(table.newScan().read()))
                    .containsExactlyInAnyOrderElementsOf(paimonRead(id));
        }
    }

    @Test
    void aFlushBetweenWritesKeepsTheSegmentWholeForTheCommit() throws Exception {
        Identifier id = create("flushed", null, "2");
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            for (int i = 1; i <= 4; i++) {
                writer.write(row(i, "r" + i));
            }
            writer.flush();
            // only one of the two buckets written after the flush: the commit still seals both
            writer.write(row(5, "r5"));
            writer.flush();
            writer.write(row(6, "r6"));
            long snapshot = writer.commit();

            FileStoreTable fileStoreTable = (FileStoreTable) catalog.getTable(id);
            StreamOffsets offsets = SnapshotOffsets.ofSnapshot(fileStoreTable, snapshot).get();
            assertThat(offsets.asMap().values().stream().mapToLong(Long::longValue).sum())
                    .isEqualTo(6L);
            assertThat(offsets.asMap()).isEqualTo(writer.endOffsets());
            assertThat(paimonRead(id)).hasSize(6);
            // nothing of the tail is left for the store's side of the read
            assertThat(strings(table.newScan().read()))
                    .containsExactlyInAnyOrderElementsOf(paimonRead(id));
        }
    }

    @Test
    void aPrimaryKeyTableMergesUpdatesAndDeletesAsPaimonDoes() throws Exception {
        Identifier id = create("orders", "id", "2");
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            writer.write(row(2, "b"));
            writer.write(row(3, "c"));
            writer.commit();
            // changes on top of the committed rows, and a key that only the store has
            writer.write(kind(RowKind.UPDATE_BEFORE, row(1, "a")));
            writer.write(kind(RowKind.UPDATE_AFTER, row(1, "a2")));
            writer.write(kind(RowKind.DELETE, row(2, "b")));
            writer.write(row(4, "d"));
            writer.write(kind(RowKind.DELETE, row(4, "d")));
            writer.write(row(5, "e"));

            List<String> union = strings(table.newScan().read());
            assertThat(union).containsExactlyInAnyOrder("1:a2", "3:c", "5:e");
            assertThat(paimonRead(id)).containsExactlyInAnyOrder("1:a", "2:b", "3:c");

            writer.commit();
            assertThat(paimonRead(id)).containsExactlyInAnyOrderElementsOf(union);
        }
    }

    @Test
    void aPartialUpdateTableMergesColumnsAsPaimonDoes() throws Exception {
        Map<String, String> tableOptions = new HashMap<>();
        tableOptions.put("merge-engine", "partial-update");
        Identifier id = create("profiles", "id", "1", tableOptions);
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            writer.commit();
            writer.write(GenericRow.of(1, null));
            writer.write(GenericRow.of(2, null));
            writer.write(row(2, "b"));
            List<String> union = strings(table.newScan().read());
            assertThat(union).containsExactlyInAnyOrder("1:a", "2:b");

            writer.commit();
            assertThat(paimonRead(id)).containsExactlyInAnyOrderElementsOf(union);
        }
    }

    @Test
    void aFirstRowTableIsCommittedSoThatPaimonsOwnReadHoldsEveryRow() throws Exception {
        Map<String, String> firstRow = new HashMap<>();
        firstRow.put("merge-engine", "first-row");
        Identifier id = create("first_rows", "id", "2", firstRow);
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            writer.commit();
            writer.write(row(1, "later"));
            writer.write(row(2, "b"));
            List<String> union = strings(table.newScan().read());
            assertThat(union).containsExactlyInAnyOrder("1:a", "2:b");

            // Paimon's batch read leaves level 0 of a first-row table out: the commit compacts it,
            // as Paimon's own writer does before its commit ('lookup-wait')
            writer.commit();
            assertThat(paimonRead(id)).containsExactlyInAnyOrderElementsOf(union);
        }
    }

    @Test
    void readCommittedReadsTheSnapshotAlone() throws Exception {
        Identifier id = create("isolated", "id", "1");
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            writer.commit();
            writer.write(row(2, "b"));
        }
        Map<String, String> committed = new HashMap<>(options);
        committed.put("lake-stream.read.isolation", "read-committed");
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, committed)) {
            assertThat(strings(table.newScan().read())).containsExactly("1:a");
        }
    }

    @Test
    void rowsAWriterNeverCommittedAreFencedByTheNextWriter() throws Exception {
        Identifier id = create("fenced", "id", "2");
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options)) {
            try (LakeStreamWriter writer = table.newWriter("first")) {
                writer.write(row(1, "a"));
                writer.commit();
                writer.write(row(2, "lost"));
                assertThat(strings(table.newScan().read())).contains("2:lost");
            }
            try (LakeStreamWriter writer = table.newWriter("second")) {
                assertThat(strings(table.newScan().read())).containsExactly("1:a");
                writer.write(row(3, "c"));
                writer.commit();
                assertThat(strings(table.newScan().read()))
                        .containsExactlyInAnyOrder("1:a", "3:c")
                        .containsExactlyInAnyOrderElementsOf(paimonRead(id));
            }
        }
    }

    @Test
    void aSchemaChangeThroughPaimonsCatalogLeavesAnUncommittedTailReadableAndCommittable()
            throws Exception {
        Identifier id = create("evolving", "id", "2");
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            writer.commit();
            writer.write(row(2, "b"));
            writer.write(kind(RowKind.DELETE, row(1, "a")));

            // another client evolves the table while the writer holds an uncommitted tail
            catalog.alterTable(
                    id,
                    Arrays.asList(
                            SchemaChange.addColumn("note", DataTypes.STRING()),
                            SchemaChange.renameColumn("name", "label")),
                    false);
            try (LakeStreamTable evolved = LakeStreamTable.open(catalog, id, options)) {
                List<InternalRow> rows = evolved.newScan().read();
                assertThat(rows).hasSize(1);
                assertThat(rows.get(0).getFieldCount()).isEqualTo(3);
                assertThat(string(rows.get(0))).isEqualTo("2:b");
                assertThat(rows.get(0).isNullAt(2)).isTrue();
            }

            // the writer of the old schema writes on and commits, as Paimon's own writer would
            writer.write(row(3, "c"));
            writer.commit();
            try (LakeStreamTable evolved = LakeStreamTable.open(catalog, id, options)) {
                assertThat(strings(evolved.newScan().read()))
                        .containsExactlyInAnyOrder("2:b", "3:c")
                        .containsExactlyInAnyOrderElementsOf(paimonRead(id));
            }
        }
    }

    @Test
    void aSecondLiveWriterIsRefused() throws Exception {
        Identifier id = create("contended", "id", "1");
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("holder")) {
            writer.write(row(1, "a"));
            assertThatThrownBy(() -> table.newWriter("intruder"))
                    .isInstanceOf(WriterConflictException.class)
                    .hasMessageContaining("holder");
        }
    }

    @Test
    void aTableNotInLakeStreamModeOrThatCannotBeIsRefusedNamingIt() throws Exception {
        Identifier id = Identifier.create("db", "plain");
        catalog.createTable(
                id,
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("name", DataTypes.STRING())
                        .option("bucket", "1")
                        .option("bucket-key", "id")
                        .build(),
                false);
        assertThatThrownBy(() -> LakeStreamTable.open(catalog, id, options))
                .isInstanceOf(LakeStreamRefusedException.class)
                .hasMessageContaining("db.plain")
                .hasMessageContaining("not in lake-stream mode");

        // a table lake-stream mode cannot hold: refused by name, not with Paimon's bare error
        Identifier dynamic = Identifier.create("db", "dynamic_buckets");
        catalog.createTable(
                dynamic,
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("name", DataTypes.STRING())
                        .primaryKey("id")
                        .option("bucket", "-1")
                        .build(),
                false);
        assertThatThrownBy(() -> LakeStreamTable.enable(catalog, dynamic, options))
                .isInstanceOf(LakeStreamRefusedException.class)
                .hasMessageContaining("db.dynamic_buckets");
    }

    private Identifier create(String name, String primaryKey, String buckets) throws Exception {
        return create(name, primaryKey, buckets, new HashMap<>());
    }

    private Identifier create(
            String name, String primaryKey, String buckets, Map<String, String> tableOptions)
            throws Exception {
        Identifier id = Identifier.create("db", name);
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("name", DataTypes.STRING())
                        .option("bucket", buckets)
                        .options(tableOptions);
        if (primaryKey != null) {
            schema.primaryKey(primaryKey);
        } else {
            schema.option("bucket-key", "id");
        }
        catalog.createTable(id, schema.build(), false);
        LakeStreamTable.enable(catalog, id, options);
        return id;
    }

    private List<String> paimonRead(Identifier id) throws Exception {
        Table table = catalog.getTable(id);
        ReadBuilder readBuilder = table.newReadBuilder();
        List<String> rows = new ArrayList<>();
        try (RecordReader<InternalRow> reader =
                readBuilder.newRead().createReader(readBuilder.newScan().plan())) {
            reader.forEachRemaining(row -> rows.add(string(row)));
        }
        return rows;
    }

    private static GenericRow row(int id, String name) {
        return GenericRow.of(id, BinaryString.fromString(name));
    }

    private static GenericRow kind(RowKind kind, GenericRow row) {
        row.setRowKind(kind);
        return row;
    }

    private static List<String> strings(List<InternalRow> rows) {
        List<String> strings = new ArrayList<>();
        rows.forEach(row -> strings.add(string(row)));
        return strings;
    }

    private static String string(InternalRow row) {
        return row.getInt(0) + ":" + (row.isNullAt(1) ? "null" : row.getString(1).toString());
    }
}
