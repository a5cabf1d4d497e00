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

package io.lakestream.store.fluss;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Columns added to a Paimon table reach its stream table, and records written under either schema
 * read back under both, by writers and readers opened before and after the change.
 */
@ExtendWith(SharedFlussCluster.class)
class StreamTableEvolutionITCase {

    private static final int BUCKETS = 2;

    private static StreamStore store;

    @BeforeAll
    static void open() {
        store = SharedFlussCluster.newStore();
    }

    @AfterAll
    static void close() {
        store.close();
    }

    /**
     * (id INT NOT NULL, v STRING), or with {@code note INT} between them: a field added after the
     * others, so with the next field id, and placed in the middle, as Paimon can place one.
     */
    private static StreamTableSpec spec(String table, boolean withNote, boolean primaryKey) {
        List<DataField> fields = new ArrayList<>();
        fields.add(new DataField(0, "id", DataTypes.INT().notNull()));
        if (withNote) {
            // in the middle: Paimon adds a column anywhere, Fluss only at the end
            fields.add(new DataField(2, "note", DataTypes.INT()));
        }
        fields.add(new DataField(1, "v", DataTypes.STRING()));
        return new StreamTableSpec(
                Identifier.create("evolution_it", table),
                new RowType(fields),
                Collections.emptyList(),
                Collections.singletonList("id"),
                primaryKey ? Collections.singletonList("id") : Collections.emptyList(),
                BUCKETS);
    }

    private static GenericRow row(boolean withNote, RowKind kind, int id) {
        GenericRow row =
                withNote
                        ? GenericRow.of(id, id * 10, BinaryString.fromString("v" + id))
                        : GenericRow.of(id, BinaryString.fromString("v" + id));
        row.setRowKind(kind);
        return row;
    }

    private static void write(StreamWriter writer, boolean withNote, int from, int to) {
        for (int id = from; id < to; id++) {
            RowKind kind = id % 2 == 0 ? RowKind.INSERT : RowKind.UPDATE_AFTER;
            GenericRow row = row(withNote, kind, id);
            writer.write(
                    new PartitionBucket(
                            BinaryRow.EMPTY_ROW,
                            FlussStreamRoundTripITCase.paimonBucket(id, BUCKETS)),
                    row);
        }
        writer.flush();
    }

    @Test
    void anAddedColumnIsCarriedToThePrimaryKeyStreamTable() {
        addedColumnRoundTrip("pk_added", true);
    }

    @Test
    void anAddedColumnIsCarriedToTheAppendStreamTable() {
        addedColumnRoundTrip("append_added", false);
    }

    private void addedColumnRoundTrip(String name, boolean primaryKey) {
        StreamTableSpec before = spec(name, false, primaryKey);
        StreamTableSpec after = spec(name, true, primaryKey);
        StreamTable oldTable = store.provision(before);
        // a reader opened before the change: its client knows only the old schema
        StreamReader earlyReader = store.createReader(oldTable);
        try (StreamWriter oldWriter = store.createWriter(oldTable)) {
            write(oldWriter, false, 0, 10);

            store.checkEvolution(before, after);
            StreamTable newTable = store.provision(after);
            assertThat(newTable.storeTableId()).isEqualTo(oldTable.storeTableId());
            assertThat(store.provision(after)).as("provisioning again").isEqualTo(newTable);

            // a writer planned before the change goes on writing its columns
            write(oldWriter, false, 10, 20);
        }
        StreamTable newTable = store.get(after);
        try (StreamWriter newWriter = store.createWriter(newTable)) {
            write(newWriter, true, 20, 30);
        }
        List<PartitionBucket> buckets = new ArrayList<>();
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            buckets.add(new PartitionBucket(BinaryRow.EMPTY_ROW, bucket));
        }
        Map<PartitionBucket, Long> ends =
                store.listOffsets(newTable, buckets, OffsetPosition.LATEST);

        Map<Integer, String> underNewSchema = new TreeMap<>();
        for (StreamRecord record : FlussStreamRoundTripITCase.readAll(store, newTable, ends)) {
            InternalRow row = record.row();
            assertThat(row.getFieldCount()).isEqualTo(3);
            int id = row.getInt(0);
            assertThat(record.rowKind())
                    .isEqualTo(primaryKey && id % 2 == 1 ? RowKind.UPDATE_AFTER : RowKind.INSERT);
            underNewSchema.put(
                    id, (row.isNullAt(1) ? "null" : row.getInt(1)) + "," + row.getString(2));
        }
        assertThat(underNewSchema).hasSize(30);
        for (int id = 0; id < 30; id++) {
            // rows written under the old schema have no note
            assertThat(underNewSchema.get(id)).isEqualTo((id < 20 ? "null" : id * 10) + ",v" + id);
        }

        // a job planned before the change reads every record with the columns it knows, whether
        // its reader was opened before the change or after it (after a restart)
        assertOldColumns(FlussStreamRoundTripITCase.readAll(store, store.get(before), ends));
        List<StreamRecord> early = new ArrayList<>();
        try (StreamReader reader = earlyReader) {
            ends.forEach((pb, end) -> reader.subscribe(pb, 0, end));
            long deadline = System.currentTimeMillis() + 60_000;
            int finished = 0;
            while (finished < ends.size() && System.currentTimeMillis() < deadline) {
                early.addAll(reader.poll(Duration.ofMillis(200)));
                finished += reader.finished().size();
            }
        }
        assertOldColumns(early);
    }

    private static void assertOldColumns(List<StreamRecord> records) {
        Map<Integer, String> underOldSchema = new TreeMap<>();
        for (StreamRecord record : records) {
            assertThat(record.row().getFieldCount()).isEqualTo(2);
            underOldSchema.put(record.row().getInt(0), record.row().getString(1).toString());
        }
        assertThat(underOldSchema).hasSize(30);
        underOldSchema.forEach((id, v) -> assertThat(v).isEqualTo("v" + id));
    }

    @Test
    void changesAreFollowedByFieldIdAndATypeChangeFlussCannotHoldIsRefusedSayingWhy() {
        StreamTableSpec base = spec("refused", true, true);
        RowType type = base.rowType();
        DataField note = type.getFields().get(type.getFieldIndex("note"));
        // renamed, dropped, added again under its name (a new field id), moved, NOT NULL added,
        // nullability: all followed, by field id
        store.checkEvolution(base, withType(base, type.project("id", "v")));
        store.checkEvolution(
                base,
                withType(
                        base,
                        new RowType(
                                Arrays.asList(
                                        type.getFields().get(0),
                                        type.getFields().get(2),
                                        // Paimon never gives an id again
                                        new DataField(3, "note", DataTypes.BIGINT())))));
        store.checkEvolution(base, withType(base, replaced(type, note.newName("remark"))));
        store.checkEvolution(base, withType(base, type.project("v", "id", "note")));
        store.checkEvolution(
                base, withType(base, type.appendDataField("strict", DataTypes.INT().notNull())));
        store.checkEvolution(
                base, withType(base, replaced(type, note.newType(DataTypes.INT().notNull()))));
        // the same field id with another Fluss type: refused, naming both types
        assertRefused(base, replaced(type, note.newType(DataTypes.BIGINT())))
                .hasMessageContaining("turn column 'note' of table evolution_it.refused from INT")
                .hasMessageContaining("into BIGINT");
        assertRefused(base, type.appendDataField("tags", DataTypes.ARRAY(DataTypes.INT())))
                .hasMessageContaining("'tags'");
    }

    /** {@code type} with the field of {@code field}'s id replaced by it. */
    private static RowType replaced(RowType type, DataField field) {
        List<DataField> fields = new ArrayList<>();
        for (DataField next : type.getFields()) {
            fields.add(next.id() == field.id() ? field : next);
        }
        return new RowType(fields);
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertRefused(
            StreamTableSpec from, RowType to) {
        return assertThatThrownBy(() -> store.checkEvolution(from, withType(from, to)))
                .isInstanceOf(StreamStoreException.class);
    }

    private static StreamTableSpec withType(StreamTableSpec spec, RowType rowType) {
        return new StreamTableSpec(
                spec.identifier(),
                rowType,
                spec.partitionKeys(),
                spec.bucketKeys(),
                spec.primaryKeys(),
                spec.numBuckets());
    }
}
