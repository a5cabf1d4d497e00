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
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The tables, rows and jobs of the source tests: a Paimon catalog on a local warehouse, enabled
 * tables {@code (dt INT, id INT, v BIGINT, name STRING)} partitioned by {@code dt} (also the first
 * primary-key field), committed rows, later rows that stay in the store until a gate opens, and
 * bounded and unbounded reads.
 */
final class SourceTestTables implements AutoCloseable {

    final String database;
    final Catalog catalog;
    final StreamStore store;

    SourceTestTables(java.nio.file.Path warehouse, String database) throws Exception {
        this.database = database;
        this.catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(new Path(warehouse.toUri().toString())));
        catalog.createDatabase(database, true);
        this.store = SharedStreamStore.newStore();
    }

    Identifier identifier(String name) {
        return Identifier.create(database, name);
    }

    FileStoreTable table(String name) throws Exception {
        return (FileStoreTable) catalog.getTable(identifier(name));
    }

    @Override
    public void close() throws Exception {
        store.close();
        catalog.close();
    }

    static final RowTypeInfo ROW_TYPE =
            new RowTypeInfo(
                    new org.apache.flink.api.common.typeinfo.TypeInformation<?>[] {
                        Types.INT, Types.INT, Types.LONG, Types.STRING
                    },
                    new String[] {"dt", "id", "v", "name"});

    /** The kinds of table the union read must get right. */
    enum Kind {
        APPEND(Map.of("bucket-key", "id")),
        DEDUPLICATE(Map.of()),
        SEQUENCE_FIELD(Map.of("sequence.field", "v")),
        PARTIAL_UPDATE(Map.of("merge-engine", "partial-update")),
        AGGREGATION(
                Map.of(
                        "merge-engine",
                        "aggregation",
                        "fields.v.aggregate-function",
                        "sum",
                        "fields.name.aggregate-function",
                        "last_non_null_value")),
        FIRST_ROW(Map.of("merge-engine", "first-row")),
        // the changelog producers change what Paimon writes besides the data files; a union read
        // of the table's rows must not depend on them
        CHANGELOG_LOOKUP(Map.of("changelog-producer", "lookup"), DEDUPLICATE, true),
        CHANGELOG_FULL_COMPACTION(
                Map.of("changelog-producer", "full-compaction"), DEDUPLICATE, true),
        UNPARTITIONED_DEDUPLICATE(Map.of(), DEDUPLICATE, false);

        final Map<String, String> options;

        /** The kind whose changes {@link #laterRows} writes to a table of this kind. */
        private final Kind changes;

        /** Whether the table is partitioned by {@code dt}. */
        final boolean partitioned;

        Kind(Map<String, String> options) {
            this.options = options;
            this.changes = this;
            this.partitioned = true;
        }

        Kind(Map<String, String> options, Kind changes, boolean partitioned) {
            this.options = options;
            this.changes = changes;
            this.partitioned = partitioned;
        }

        boolean primaryKey() {
            return changes != APPEND;
        }
    }

    /**
     * An enabled table partitioned by an INT column {@code dt} (unless the kind says otherwise),
     * which is also the first field of the primary key {@code (dt, id)}.
     */
    FileStoreTable createTable(String name, Kind kind) throws Exception {
        return createTable(name, kind, Map.of());
    }

    /** Like {@link #createTable(String, Kind)}, with {@code options} on top of the kind's. */
    FileStoreTable createTable(String name, Kind kind, Map<String, String> options)
            throws Exception {
        Identifier identifier = Identifier.create(database, name);
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("dt", DataTypes.INT().notNull())
                        .column("id", DataTypes.INT().notNull())
                        .column("v", DataTypes.BIGINT())
                        .column("name", DataTypes.STRING())
                        .option("bucket", "2")
                        .option(LakeStreamOptions.ENABLED.key(), "true")
                        .options(kind.options)
                        .options(options);
        if (kind.partitioned) {
            schema.partitionKeys("dt");
        }
        if (kind.primaryKey()) {
            schema.primaryKey("dt", "id");
        }
        catalog.createTable(identifier, schema.build(), false);
        FileStoreTable table = (FileStoreTable) catalog.getTable(identifier);
        store.provision(StreamTableSpec.of(identifier, table));
        return table;
    }

    static Map<String, String> storeOptions() {
        Map<String, String> options = new HashMap<>(SharedStreamStore.lakeStreamOptions());
        // the jobs of a test write one after the other, each with its own commit user
        options.put(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT.key(), "1 s");
        // new partitions show up in unbounded reads within a second
        options.put(LakeStreamOptions.READ_PARTITION_DISCOVERY_INTERVAL.key(), "500 ms");
        return options;
    }

    /** The committed rows: ids 0..299 in partitions 1 and 2. */
    static List<Row> committedRows() {
        List<Row> rows = new ArrayList<>();
        for (int dt = 1; dt <= 2; dt++) {
            for (int id = 0; id < 300; id++) {
                rows.add(Row.ofKind(RowKind.INSERT, dt, id, (long) id, "a" + id));
            }
        }
        return rows;
    }

    /** The rows written after the commit: updates, deletes and new keys, as the kind allows. */
    static List<Row> laterRows(Kind kind) {
        List<Row> rows = new ArrayList<>();
        for (int dt = 1; dt <= 3; dt++) {
            for (int id = 0; id < 100; id++) {
                switch (kind.changes) {
                    case PARTIAL_UPDATE:
                        // a null leaves the committed value
                        rows.add(Row.ofKind(RowKind.INSERT, dt, id, 2000L + id, null));
                        break;
                    case DEDUPLICATE:
                        rows.add(Row.ofKind(RowKind.UPDATE_AFTER, dt, id, 1000L + id, "b" + id));
                        break;
                    case SEQUENCE_FIELD:
                        // half of them older than the committed row by the sequence field
                        long sequence = id < 50 ? -1L : 1000L + id;
                        rows.add(Row.ofKind(RowKind.UPDATE_AFTER, dt, id, sequence, "b" + id));
                        break;
                    default:
                        rows.add(Row.ofKind(RowKind.INSERT, dt, id, 5L, "b" + id));
                }
            }
            for (int id = 300; id < 350; id++) {
                rows.add(Row.ofKind(RowKind.INSERT, dt, id, (long) id, null));
            }
            if (kind.changes == Kind.DEDUPLICATE) {
                for (int id = 100; id < 120; id++) {
                    rows.add(Row.ofKind(RowKind.DELETE, dt, id, (long) id, "a" + id));
                }
            }
        }
        return rows;
    }

    static void write(FileStoreTable table, List<Row> rows) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        env.setRestartStrategy(RestartStrategies.noRestart());
        LakeStreamSink.builder()
                .setTable(table)
                .setOptions(storeOptions())
                .build()
                .sinkFromRows(env.fromData(ROW_TYPE, rows.toArray(new Row[0])));
        env.execute("write " + table.name());
    }

    /**
     * Starts a job that writes {@code rows} to the store and commits them only when the gate opens.
     */
    static JobClient writeUncommitted(FileStoreTable table, List<Row> rows) throws Exception {
        return writeUncommitted(table, GatedRows.of(rows, ROW_TYPE));
    }

    static JobClient writeUncommitted(FileStoreTable table, GatedRows rows) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(Duration.ofMinutes(10).toMillis());
        // Flink starts the first checkpoint at a random time between the minimum pause and the
        // interval; with the pause equal to the interval nothing is committed during a test
        env.getCheckpointConfig().setMinPauseBetweenCheckpoints(Duration.ofMinutes(10).toMillis());
        env.setRestartStrategy(RestartStrategies.noRestart());
        LakeStreamSink.builder()
                .setTable(table)
                .setOptions(storeOptions())
                .build()
                .sinkFromRows(env.addSource(rows).setParallelism(1));
        return env.executeAsync("write uncommitted " + table.name());
    }

    long storedRecords(FileStoreTable table) {
        StreamTable streamTable =
                store.get(StreamTableSpec.of(Identifier.fromString(table.fullName()), table));
        List<PartitionBucket> all = new ArrayList<>();
        for (org.apache.paimon.data.BinaryRow partition : store.listPartitions(streamTable)) {
            for (int b = 0; b < 2; b++) {
                all.add(new PartitionBucket(partition, b));
            }
        }
        return store.listOffsets(streamTable, all, OffsetPosition.LATEST).values().stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    static List<String> unionRead(FileStoreTable table) throws Exception {
        return read(LakeStreamSource.builder().setTable(table).setBounded(true), r -> render(r));
    }

    /** Runs a bounded read of the source built by {@code builder}, rendering each row. */
    static List<String> read(
            LakeStreamSource.Builder builder, CommittedRows.SerializableRender render)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        LakeStreamSource source = builder.setOptions(storeOptions()).build();
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<RowData> it =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "bounded read")
                        .executeAndCollect()) {
            it.forEachRemaining(r -> rows.add(render.apply(r)));
        }
        return rows;
    }

    static List<String> paimonRead(FileStoreTable table) throws Exception {
        return paimonRead(table, null);
    }

    /** Paimon's own read of the rows that satisfy {@code filter} (all rows when null). */
    static List<String> paimonRead(FileStoreTable table, @Nullable Predicate filter)
            throws Exception {
        ReadBuilder read = table.newReadBuilder();
        if (filter != null) {
            read.withFilter(filter);
        }
        List<String> rows = new ArrayList<>();
        try (RecordReader<InternalRow> reader =
                read.newRead().executeFilter().createReader(read.newScan().plan())) {
            reader.forEachRemaining(r -> rows.add(render(r)));
        }
        return rows;
    }

    /**
     * Paimon's rows as a bounded lake-stream read returns them: as inserts (Paimon keeps the kind
     * of a key's last change on some rows).
     */
    static List<String> asInserts(List<String> rendered) {
        List<String> inserts = new ArrayList<>();
        for (String row : rendered) {
            inserts.add("+I" + row.substring(2));
        }
        return inserts;
    }

    static String render(RowData row) {
        return row.getRowKind().shortString()
                + row.getInt(0)
                + "|"
                + row.getInt(1)
                + "|"
                + (row.isNullAt(2) ? "null" : row.getLong(2))
                + "|"
                + (row.isNullAt(3) ? "null" : row.getString(3));
    }

    static String render(InternalRow row) {
        return row.getRowKind().shortString()
                + row.getInt(0)
                + "|"
                + row.getInt(1)
                + "|"
                + (row.isNullAt(2) ? "null" : row.getLong(2))
                + "|"
                + (row.isNullAt(3) ? "null" : row.getString(3));
    }

    List<String> describeSnapshots(Identifier identifier) throws Exception {
        FileStoreTable table = (FileStoreTable) catalog.getTable(identifier);
        List<String> snapshots = new ArrayList<>();
        table.snapshotManager()
                .snapshots()
                .forEachRemaining(
                        s ->
                                snapshots.add(
                                        s.id()
                                                + " "
                                                + s.commitKind()
                                                + " by "
                                                + s.commitUser()
                                                + " at "
                                                + s.timeMillis()));
        return snapshots;
    }

    /** Writes rows that stay uncommitted until the gate opens, then commits them. */
    void writeThroughTheStore(FileStoreTable table, List<Row> rows) throws Exception {
        long before = storedRecords(table);
        JobClient writer = writeUncommitted(table, rows);
        Await.until(
                () -> storedRecords(table) >= before + rows.size(), "the rows are in the store");
        GatedRows.open();
        writer.getJobExecutionResult().get(2, TimeUnit.MINUTES);
    }

    /** Applies a rendered changelog: the rows it leaves, rendered without their kind. */
    static java.util.Set<String> materialize(List<String> changelog) {
        Map<String, String> state = new HashMap<>();
        for (String change : changelog) {
            String row = change.substring(2);
            String[] fields = row.split("\\|");
            String key = fields[0] + "|" + fields[1];
            if (change.startsWith("+")) {
                state.put(key, row);
            } else {
                state.remove(key);
            }
        }
        return new java.util.HashSet<>(state.values());
    }

    static String render(Row row) {
        return "+I"
                + row.getField(0)
                + "|"
                + row.getField(1)
                + "|"
                + row.getField(2)
                + "|"
                + row.getField(3);
    }
}
