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
import io.lakestream.flink.sink.LakeStreamSink;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store receives exactly the row and row kind that Paimon's writer writes, for the write
 * options that decide or drop the kind: {@code 'rowkind.field'} (the kind comes from a column, the
 * input rows are all +I), {@code 'ignore-delete'} and {@code 'ignore-update-before'} (Paimon drops
 * the rows, so the store must not get them). For each, a union read taken while the changes are in
 * the store but not committed equals Paimon's read once they are committed, and the store holds
 * every change Paimon kept, with Paimon's kind, and none it dropped.
 *
 * <p>The table is {@code (dt INT, id INT, v BIGINT, name STRING, op STRING)} with primary key
 * {@code (dt, id)}, partitioned by {@code dt}; {@code op} holds each change's kind, and {@code
 * name} has a default value, which Paimon's writer fills into rows without a name, so the store
 * must get the filled-in row.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamRowKindITCase {

    private static final RowTypeInfo ROW_TYPE =
            new RowTypeInfo(
                    new TypeInformation<?>[] {
                        Types.INT, Types.INT, Types.LONG, Types.STRING, Types.STRING
                    },
                    new String[] {"dt", "id", "v", "name", "op"});

    private static final int BUCKETS = 2;

    /** The default value of column {@code name}. */
    private static final String DEFAULT_NAME = "unnamed";

    @TempDir static java.nio.file.Path warehouse;

    private static SourceTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SourceTestTables(warehouse, "rowkind_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    /** Where the kind of a change is, and which kinds Paimon's writer drops. */
    enum Case {
        ROWKIND_FIELD(true, Map.of("rowkind.field", "op")),
        ROWKIND_FIELD_IGNORE_DELETE(true, Map.of("rowkind.field", "op", "ignore-delete", "true")),
        ROWKIND_FIELD_IGNORE_UPDATE_BEFORE(
                true, Map.of("rowkind.field", "op", "ignore-update-before", "true")),
        ROW_KIND_IGNORE_DELETE(false, Map.of("ignore-delete", "true")),
        // the store's writer a task of its own ahead of Paimon's: it routes rows as Paimon's does
        ROWKIND_FIELD_IGNORE_UPDATE_BEFORE_STORE_WRITER_AHEAD(
                true,
                Map.of(
                        "rowkind.field",
                        "op",
                        "ignore-update-before",
                        "true",
                        "lake-stream.sink.store-writer-chaining",
                        "false")),
        ROW_KIND_IGNORE_DELETE_STORE_WRITER_AHEAD(
                false,
                Map.of("ignore-delete", "true", "lake-stream.sink.store-writer-chaining", "false"));

        /** Whether the kind is only in the {@code op} column (the input rows are all +I). */
        final boolean kindInField;

        final Map<String, String> options;

        Case(boolean kindInField, Map<String, String> options) {
            this.kindInField = kindInField;
            this.options = options;
        }

        /** Whether Paimon's writer drops a change of this kind (its {@code RowKindFilter}). */
        boolean drops(RowKind kind) {
            boolean ignoreDelete = "true".equals(options.get("ignore-delete"));
            boolean ignoreUpdateBefore = "true".equals(options.get("ignore-update-before"));
            switch (kind) {
                case DELETE:
                    return ignoreDelete;
                case UPDATE_BEFORE:
                    return ignoreDelete || ignoreUpdateBefore;
                default:
                    return false;
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Case.class)
    void theStoreGetsPaimonsRowsAndKindsSoAUnionReadEqualsPaimonsRead(Case c) throws Exception {
        String name = c.name().toLowerCase();
        FileStoreTable table = createTable(name, c.options);
        List<Row> committed = committedRows(c);
        write(table, committed);
        List<Row> later = laterRows(c);
        // the changes Paimon's writer keeps, in order
        List<Row> kept = new ArrayList<>(committed);
        for (Row row : later) {
            if (!c.drops(kindOf(row))) {
                kept.add(row);
            }
        }

        JobClient writer = writeUncommitted(table, GatedRows.of(later, ROW_TYPE));
        FileStoreTable written = table;
        Await.until(
                () -> tables.storedRecords(written) >= kept.size(), "the changes are in the store");
        table = tables.table(name);
        long snapshotBefore = table.snapshotManager().latestSnapshotId();

        // (a) the union read while the changes are in the store only
        List<String> union =
                SourceTestTables.read(
                        LakeStreamSource.builder().setTable(table).setBounded(true),
                        LakeStreamRowKindITCase::render);

        assertThat(tables.table(name).snapshotManager().latestSnapshotId())
                .as("nothing committed while the union read ran")
                .isEqualTo(snapshotBefore);
        GatedRows.open();
        writer.getJobExecutionResult().get(2, TimeUnit.MINUTES);

        // (b) Paimon's own read once everything is committed
        List<String> paimon = paimonRead(tables.table(name));
        assertThat(union).containsExactlyInAnyOrderElementsOf(asInserts(paimon));
        assertThat(asInserts(paimon))
                .as("Paimon's rows")
                .containsExactlyInAnyOrderElementsOf(expectedState(kept));

        // the store holds exactly the changes Paimon kept, each with the kind Paimon wrote
        List<StreamRecord> records = readStore(tables.table(name));
        assertThat(records).hasSize(kept.size());
        for (StreamRecord record : records) {
            assertThat(record.rowKind().shortString())
                    .as("kind of stored change %s", renderStored(record))
                    .isEqualTo(record.row().getString(4).toString());
        }
        assertThat(records.stream().map(LakeStreamRowKindITCase::renderStored))
                .containsExactlyInAnyOrderElementsOf(
                        kept.stream()
                                .map(LakeStreamRowKindITCase::renderInput)
                                .collect(Collectors.toList()));
    }

    private static FileStoreTable createTable(String name, Map<String, String> options)
            throws Exception {
        Identifier identifier = tables.identifier(name);
        Schema schema =
                Schema.newBuilder()
                        .column("dt", DataTypes.INT().notNull())
                        .column("id", DataTypes.INT().notNull())
                        .column("v", DataTypes.BIGINT())
                        // Paimon's writer fills a null name in: the store must get it filled
                        .column("name", DataTypes.STRING(), null, DEFAULT_NAME)
                        .column("op", DataTypes.STRING())
                        .partitionKeys("dt")
                        .primaryKey("dt", "id")
                        .option("bucket", String.valueOf(BUCKETS))
                        .option(LakeStreamOptions.ENABLED.key(), "true")
                        .options(options)
                        .build();
        tables.catalog.createTable(identifier, schema, false);
        FileStoreTable table = tables.table(name);
        tables.store.provision(StreamTableSpec.of(identifier, table));
        return table;
    }

    /** A change of key {@code (dt, id)}; its kind is in {@code op}, and in the row unless not. */
    private static Row change(Case c, RowKind kind, int dt, int id, long v, String name) {
        return Row.ofKind(
                c.kindInField ? RowKind.INSERT : kind, dt, id, v, name, kind.shortString());
    }

    private static RowKind kindOf(Row row) {
        return RowKind.fromByteValue(fromShortString((String) row.getField(4)));
    }

    private static byte fromShortString(String shortString) {
        for (RowKind kind : RowKind.values()) {
            if (kind.shortString().equals(shortString)) {
                return kind.toByteValue();
            }
        }
        throw new IllegalArgumentException(shortString);
    }

    /** Keys 0..29 of partitions 1 and 2, inserted. */
    private static List<Row> committedRows(Case c) {
        List<Row> rows = new ArrayList<>();
        for (int dt = 1; dt <= 2; dt++) {
            for (int id = 0; id < 30; id++) {
                rows.add(change(c, RowKind.INSERT, dt, id, id, "a" + id));
            }
        }
        return rows;
    }

    /**
     * Per partition 1 and 2: deletes of keys 0..9, update-befores alone of keys 10..19, updates (-U
     * then +U) of keys 20..24, inserts of new keys 30..34, and key 35 inserted then deleted.
     */
    private static List<Row> laterRows(Case c) {
        List<Row> rows = new ArrayList<>();
        for (int dt = 1; dt <= 2; dt++) {
            for (int id = 0; id < 10; id++) {
                rows.add(change(c, RowKind.DELETE, dt, id, id, "a" + id));
            }
            for (int id = 10; id < 20; id++) {
                rows.add(change(c, RowKind.UPDATE_BEFORE, dt, id, id, "a" + id));
            }
            for (int id = 20; id < 25; id++) {
                rows.add(change(c, RowKind.UPDATE_BEFORE, dt, id, id, "a" + id));
                rows.add(change(c, RowKind.UPDATE_AFTER, dt, id, 1000 + id, "b" + id));
            }
            for (int id = 30; id < 35; id++) {
                // without a name: Paimon writes the column's default value
                rows.add(change(c, RowKind.INSERT, dt, id, id, null));
            }
            rows.add(change(c, RowKind.INSERT, dt, 35, 35, "n35"));
            rows.add(change(c, RowKind.DELETE, dt, 35, 35, "n35"));
        }
        return rows;
    }

    /** The rows left by applying {@code changes} in order, as +I rows rendered. */
    private static Set<String> expectedState(List<Row> changes) {
        Map<String, String> state = new HashMap<>();
        for (Row row : changes) {
            String key = row.getField(0) + "|" + row.getField(1);
            RowKind kind = kindOf(row);
            if (kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE) {
                state.remove(key);
            } else {
                state.put(
                        key,
                        "+I"
                                + row.getField(0)
                                + "|"
                                + row.getField(1)
                                + "|"
                                + row.getField(2)
                                + "|"
                                + nameOf(row)
                                + "|"
                                + row.getField(4));
            }
        }
        return new HashSet<>(state.values());
    }

    private static void write(FileStoreTable table, List<Row> rows) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        env.setRestartStrategy(RestartStrategies.noRestart());
        LakeStreamSink.builder()
                .setTable(table)
                .setOptions(SourceTestTables.storeOptions())
                .build()
                .sinkFromRows(env.fromData(ROW_TYPE, rows.toArray(new Row[0])));
        env.execute("write " + table.name());
    }

    /** A job that writes {@code rows} to the store and commits them when the gate opens. */
    private static JobClient writeUncommitted(FileStoreTable table, GatedRows rows)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(Duration.ofMinutes(10).toMillis());
        env.getCheckpointConfig().setMinPauseBetweenCheckpoints(Duration.ofMinutes(10).toMillis());
        env.setRestartStrategy(RestartStrategies.noRestart());
        LakeStreamSink.builder()
                .setTable(table)
                .setOptions(SourceTestTables.storeOptions())
                .build()
                .sinkFromRows(env.addSource(rows).setParallelism(1));
        return env.executeAsync("write uncommitted " + table.name());
    }

    private static List<String> paimonRead(FileStoreTable table) throws Exception {
        ReadBuilder read = table.newReadBuilder();
        List<String> rows = new ArrayList<>();
        try (RecordReader<InternalRow> reader =
                read.newRead().createReader(read.newScan().plan())) {
            reader.forEachRemaining(r -> rows.add(r.getRowKind().shortString() + fields(r)));
        }
        return rows;
    }

    private static List<String> asInserts(List<String> rendered) {
        return rendered.stream().map(r -> "+I" + r.substring(2)).collect(Collectors.toList());
    }

    /** Every record the store holds for the table, fenced or not (these jobs never fail). */
    private static List<StreamRecord> readStore(FileStoreTable table) {
        StreamTable streamTable =
                tables.store.get(
                        StreamTableSpec.of(Identifier.fromString(table.fullName()), table));
        List<PartitionBucket> all = new ArrayList<>();
        for (BinaryRow partition : tables.store.listPartitions(streamTable)) {
            for (int b = 0; b < BUCKETS; b++) {
                all.add(new PartitionBucket(partition, b));
            }
        }
        Map<PartitionBucket, Long> ends =
                tables.store.listOffsets(streamTable, all, OffsetPosition.LATEST);
        List<StreamRecord> records = new ArrayList<>();
        try (StreamReader reader = tables.store.createReader(streamTable)) {
            int expected = 0;
            for (Map.Entry<PartitionBucket, Long> e : ends.entrySet()) {
                if (e.getValue() > 0) {
                    reader.subscribe(e.getKey(), 0, e.getValue());
                    expected++;
                }
            }
            int finished = 0;
            long deadline = System.currentTimeMillis() + 60_000;
            while (finished < expected && System.currentTimeMillis() < deadline) {
                records.addAll(reader.poll(Duration.ofMillis(200)));
                finished += reader.finished().size();
            }
            assertThat(finished).as("partition-buckets read to their end").isEqualTo(expected);
        }
        return records;
    }

    private static String render(RowData row) {
        return row.getRowKind().shortString()
                + row.getInt(0)
                + "|"
                + row.getInt(1)
                + "|"
                + (row.isNullAt(2) ? "null" : row.getLong(2))
                + "|"
                + (row.isNullAt(3) ? "null" : row.getString(3))
                + "|"
                + (row.isNullAt(4) ? "null" : row.getString(4));
    }

    private static String fields(InternalRow row) {
        return row.getInt(0)
                + "|"
                + row.getInt(1)
                + "|"
                + (row.isNullAt(2) ? "null" : row.getLong(2))
                + "|"
                + (row.isNullAt(3) ? "null" : row.getString(3))
                + "|"
                + (row.isNullAt(4) ? "null" : row.getString(4));
    }

    /** A stored change: its kind in the store, then its fields. */
    private static String renderStored(StreamRecord record) {
        return record.rowKind().shortString() + fields(record.row());
    }

    /** An input change as the store must hold it: the kind Paimon takes, then its fields. */
    private static String renderInput(Row row) {
        return row.getField(4)
                + ""
                + row.getField(0)
                + "|"
                + row.getField(1)
                + "|"
                + row.getField(2)
                + "|"
                + nameOf(row)
                + "|"
                + row.getField(4);
    }

    /** The name Paimon writes for an input change: its own, or the column's default. */
    private static String nameOf(Row row) {
        return row.getField(3) == null ? DEFAULT_NAME : (String) row.getField(3);
    }
}
