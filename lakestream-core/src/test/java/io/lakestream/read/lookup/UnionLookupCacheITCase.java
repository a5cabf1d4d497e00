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

package io.lakestream.read.lookup;

import io.lakestream.embedded.LakeStreamTable;
import io.lakestream.embedded.LakeStreamWriter;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.table.StreamTableLookup;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lookup cache on the {@code memory} store and a local Paimon warehouse: after every refresh it
 * holds exactly what the bounded union read returns (the embedded scan, the same planner and
 * merge), and once everything is committed exactly what Paimon's own read returns; each store
 * record is merged once, whatever commits follow.
 */
class UnionLookupCacheITCase {

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
    void aDeduplicateTableIsLookedUpWithItsUncommittedUpdatesAndDeletes() throws Exception {
        Identifier id = create("dedup", new HashMap<>());
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID());
                UnionLookupCache cache = cache(id, "id")) {
            writer.write(row(1, "a", 1));
            writer.write(row(2, "b", 1));
            writer.write(row(3, "c", 1));
            writer.commit();
            cache.refresh();
            assertThat(looked(cache, 4)).isEqualTo(paimonRead(id));

            writer.write(row(2, "b2", 2));
            writer.write(kind(RowKind.DELETE, row(3, "c", 1)));
            writer.write(row(4, "d", 1));
            writer.flush();
            cache.refresh();
            assertThat(looked(cache, 4))
                    .isEqualTo(unionRead(table))
                    .containsEntry(2, "b2:2")
                    .containsEntry(4, "d:1")
                    .doesNotContainKey(3);

            writer.commit();
            cache.refresh();
            assertThat(looked(cache, 4)).isEqualTo(paimonRead(id));
            assertThat(cache.loads()).as("own commits need no load").isEqualTo(1);
        }
    }

    @Test
    void anAggregationTableMergesEachStoreRecordOnceAcrossRefreshesAndCommits() throws Exception {
        Map<String, String> sum = new HashMap<>();
        sum.put("merge-engine", "aggregation");
        sum.put("fields.amount.aggregate-function", "sum");
        sum.put("fields.name.aggregate-function", "last_non_null_value");
        Identifier id = create("sums", sum);
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID());
                UnionLookupCache cache = cache(id, "id")) {
            writer.write(row(1, "a", 5));
            writer.commit();
            cache.refresh();
            writer.write(row(1, null, 3));
            writer.flush();
            cache.refresh();
            assertThat(looked(cache, 2)).containsEntry(1, "a:8").isEqualTo(unionRead(table));
            writer.write(row(1, null, 2));
            writer.write(row(2, "b", 7));
            writer.flush();
            cache.refresh();
            assertThat(looked(cache, 2)).containsEntry(1, "a:10").isEqualTo(unionRead(table));

            writer.commit();
            cache.refresh();
            writer.write(row(2, null, 1));
            writer.commit();
            cache.refresh();
            assertThat(looked(cache, 2))
                    .containsEntry(1, "a:10")
                    .containsEntry(2, "b:8")
                    .isEqualTo(paimonRead(id));
        }
    }

    @Test
    void aPartialUpdateTableMergesColumnsOfTheTailIntoTheCommittedRow() throws Exception {
        Map<String, String> partial = new HashMap<>();
        partial.put("merge-engine", "partial-update");
        Identifier id = create("partial", partial);
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID());
                UnionLookupCache cache = cache(id, "id")) {
            writer.write(row(1, "a", (Long) null));
            writer.commit();
            cache.refresh();
            writer.write(row(1, null, 9L));
            writer.flush();
            cache.refresh();
            assertThat(looked(cache, 1)).containsEntry(1, "a:9").isEqualTo(unionRead(table));
            writer.commit();
            cache.refresh();
            assertThat(looked(cache, 1)).isEqualTo(paimonRead(id));
        }
    }

    @Test
    void readCommittedSeesTheTailAtItsCommit() throws Exception {
        Identifier id = create("committed", new HashMap<>());
        Map<String, String> readCommitted = new HashMap<>(options);
        readCommitted.put("lake-stream.read.isolation", "read-committed");
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID());
                UnionLookupCache cache = cache(id, "id", readCommitted)) {
            writer.write(row(1, "a", 1));
            writer.commit();
            writer.write(row(1, "a2", 2));
            writer.write(row(2, "b", 1));
            writer.flush();
            cache.refresh();
            assertThat(looked(cache, 2)).isEqualTo(paimonRead(id)).containsEntry(1, "a:1");
            writer.commit();
            cache.refresh();
            assertThat(looked(cache, 2))
                    .isEqualTo(paimonRead(id))
                    .containsEntry(1, "a2:2")
                    .containsEntry(2, "b:1");
            assertThat(cache.loads()).isEqualTo(1);
        }
    }

    @Test
    void anotherWritersCommitAndAFencedTailLoadTheTableAgain() throws Exception {
        Identifier id = create("shared", new HashMap<>());
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                UnionLookupCache cache = cache(id, "id")) {
            try (LakeStreamWriter writer = table.newWriter("first")) {
                writer.write(row(1, "a", 1));
                writer.commit();
                writer.write(row(2, "lost", 1));
                writer.flush();
                cache.refresh();
                assertThat(looked(cache, 3)).containsEntry(2, "lost:1");
            }
            // the writer is gone without committing: its tail is no writer's any more
            cache.refresh();
            assertThat(looked(cache, 3)).isEqualTo(unionRead(table)).doesNotContainKey(2);

            LocalPaimonTables.commitWithoutOffsets(
                    (FileStoreTable) catalog.getTable(id),
                    Collections.singletonList(row(3, "paimon", 1)));
            cache.refresh();
            assertThat(looked(cache, 3)).isEqualTo(paimonRead(id)).containsEntry(3, "paimon:1");

            try (LakeStreamWriter writer = table.newWriter("second")) {
                writer.write(row(1, "a2", 2));
                writer.flush();
                cache.refresh();
                assertThat(looked(cache, 3)).isEqualTo(unionRead(table));
                writer.commit();
            }
            cache.refresh();
            assertThat(looked(cache, 3)).isEqualTo(paimonRead(id));
            assertThat(cache.loads()).isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void aJoinKeyOtherThanThePrimaryKeyFindsEveryRowOfTheValue() throws Exception {
        Identifier id = create("by_name", new HashMap<>());
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID());
                UnionLookupCache cache = cache(id, "name")) {
            writer.write(row(1, "x", 1));
            writer.write(row(2, "x", 2));
            writer.write(row(3, "y", 3));
            writer.commit();
            writer.write(row(2, "y", 4));
            writer.flush();
            cache.refresh();
            assertThat(ids(cache.get(nameKey("x")))).containsExactly(1);
            assertThat(ids(cache.get(nameKey("y")))).containsExactlyInAnyOrder(2, 3);
            assertThat(cache.get(nameKey("z"))).isEmpty();
        }
    }

    @Test
    void aTableLargerThanTheBoundEmptiesTheCacheInsteadOfHoldingPartOfIt() throws Exception {
        Identifier id = create("large", new HashMap<>());
        Map<String, String> small = new HashMap<>(options);
        small.put("lake-stream.lookup.cache.max-rows", "2");
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID());
                UnionLookupCache cache = cache(id, "id", small)) {
            writer.write(row(1, "a", 1));
            writer.write(row(2, "b", 1));
            writer.commit();
            cache.refresh();
            assertThat(cache.overflowed()).isFalse();
            writer.write(row(3, "c", 1));
            writer.flush();
            cache.refresh();
            assertThat(cache.overflowed()).isTrue();
            assertThat(cache.size()).isZero();
        }
    }

    private UnionLookupCache cache(Identifier id, String joinKey) throws Exception {
        return cache(id, joinKey, options);
    }

    private UnionLookupCache cache(Identifier id, String joinKey, Map<String, String> readOptions)
            throws Exception {
        FileStoreTable paimon = (FileStoreTable) catalog.getTable(id);
        StreamTable streamTable;
        try (StreamTableLookup.Connected connected =
                StreamTableLookup.open(
                        StreamTableSpec.of(id, paimon), readOptions, getClass().getClassLoader())) {
            streamTable = connected.table();
        }
        return new UnionLookupCache(
                paimon,
                streamTable,
                null,
                Collections.singletonList(joinKey),
                readOptions,
                () -> StreamStoreLoader.create(readOptions, getClass().getClassLoader()));
    }

    /** What the cache holds for ids 1 to {@code maxId}: id to "name:amount". */
    private static Map<Integer, String> looked(UnionLookupCache cache, int maxId) {
        InternalRowSerializer keys = new InternalRowSerializer(RowType.of(DataTypes.INT()));
        Map<Integer, String> rows = new TreeMap<>();
        for (int i = 1; i <= maxId; i++) {
            BinaryRow key = keys.toBinaryRow(GenericRow.of(i)).copy();
            for (InternalRow row : cache.get(key)) {
                rows.put(row.getInt(0), string(row));
            }
        }
        return rows;
    }

    private static BinaryRow nameKey(String name) {
        return new InternalRowSerializer(RowType.of(DataTypes.STRING()))
                .toBinaryRow(GenericRow.of(BinaryString.fromString(name)))
                .copy();
    }

    private static List<Integer> ids(List<InternalRow> rows) {
        List<Integer> ids = new ArrayList<>();
        rows.forEach(row -> ids.add(row.getInt(0)));
        return ids;
    }

    private static Map<Integer, String> unionRead(LakeStreamTable table) throws Exception {
        Map<Integer, String> rows = new TreeMap<>();
        for (InternalRow row : table.newScan().read()) {
            rows.put(row.getInt(0), string(row));
        }
        return rows;
    }

    private Map<Integer, String> paimonRead(Identifier id) throws Exception {
        ReadBuilder read = catalog.getTable(id).newReadBuilder();
        Map<Integer, String> rows = new TreeMap<>();
        try (RecordReader<InternalRow> reader =
                read.newRead().createReader(read.newScan().plan())) {
            reader.forEachRemaining(row -> rows.put(row.getInt(0), string(row)));
        }
        return rows;
    }

    private Identifier create(String name, Map<String, String> tableOptions) throws Exception {
        Identifier id = Identifier.create("db", name);
        catalog.createTable(
                id,
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("name", DataTypes.STRING())
                        .column("amount", DataTypes.BIGINT())
                        .primaryKey("id")
                        .option("bucket", "2")
                        .options(tableOptions)
                        .build(),
                false);
        LakeStreamTable.enable(catalog, id, options);
        return id;
    }

    private static GenericRow row(int id, String name, Integer amount) {
        return row(id, name, amount == null ? null : amount.longValue());
    }

    private static GenericRow row(int id, String name, Long amount) {
        return GenericRow.of(id, name == null ? null : BinaryString.fromString(name), amount);
    }

    private static GenericRow kind(RowKind kind, GenericRow row) {
        row.setRowKind(kind);
        return row;
    }

    private static String string(InternalRow row) {
        return (row.isNullAt(1) ? "null" : row.getString(1).toString())
                + ":"
                + (row.isNullAt(2) ? "null" : String.valueOf(row.getLong(2)));
    }
}
