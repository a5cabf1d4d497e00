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

package io.lakestream.flink.sink;

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.fs.Path;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;

import java.util.Map;

/**
 * The tables, rows and jobs of the sink tests: a Paimon catalog on a local warehouse, one database,
 * and enabled tables {@code (id INT, payload STRING, dt STRING)} partitioned by {@code dt} into
 * {@code d0}, {@code d1} and {@code d2}, with their stream tables provisioned in the shared Fluss
 * cluster.
 */
final class SinkTestTables implements AutoCloseable {

    static final int PARTITIONS = 3;

    final String database;
    final Catalog catalog;
    final StreamStore store;
    final SinkVerification verify;

    SinkTestTables(java.nio.file.Path warehouse, String database) throws Exception {
        this(warehouse, database, ownClient(database));
    }

    /**
     * Store options with a client of the test's own: connections are shared per configuration, and
     * a client that another test class left knowing a restarted tablet server's old port (Fluss
     * 0.9.1 never learns the new one) must not serve this one.
     */
    static Map<String, String> ownClient(String database) {
        Map<String, String> options = SharedStreamStore.lakeStreamOptions();
        options.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "client.id", "tables-" + database);
        return options;
    }

    /** Tables whose store client has {@code storeOptions}, e.g. a client of a test's own. */
    SinkTestTables(java.nio.file.Path warehouse, String database, Map<String, String> storeOptions)
            throws Exception {
        this(warehouse.toUri().toString(), database, storeOptions);
    }

    /** Tables in the warehouse at {@code warehouseUri}, e.g. on a file system of a test's own. */
    SinkTestTables(String warehouseUri, String database, Map<String, String> storeOptions)
            throws Exception {
        this.database = database;
        this.catalog = CatalogFactory.createCatalog(CatalogContext.create(new Path(warehouseUri)));
        catalog.createDatabase(database, true);
        this.store = SharedStreamStore.newStore(storeOptions);
        this.verify = new SinkVerification(catalog, store);
    }

    Identifier identifier(String name) {
        return Identifier.create(database, name);
    }

    /** An enabled table with three buckets; see {@link #create(String, boolean, int, Map)}. */
    FileStoreTable create(String name, boolean primaryKey) throws Exception {
        return create(name, primaryKey, 3, Map.of());
    }

    /**
     * Creates an enabled table and its stream table, as enabling lake-stream mode does. A primary
     * key table is keyed by {@code (id, dt)}; an append table is bucketed by {@code id}.
     */
    FileStoreTable create(String name, boolean primaryKey, int buckets, Map<String, String> options)
            throws Exception {
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("payload", DataTypes.STRING())
                        .column("dt", DataTypes.STRING().notNull())
                        .partitionKeys("dt")
                        .option("bucket", String.valueOf(buckets))
                        .option(LakeStreamOptions.ENABLED.key(), "true")
                        .options(options);
        if (primaryKey) {
            schema.primaryKey("id", "dt");
        } else {
            schema.option("bucket-key", "id");
        }
        return create(name, schema.build());
    }

    /** Creates an enabled table of {@code schema} and its stream table. */
    FileStoreTable create(String name, Schema schema) throws Exception {
        Identifier identifier = identifier(name);
        catalog.createTable(identifier, schema, false);
        FileStoreTable table = table(name);
        store.provision(StreamTableSpec.of(identifier, table));
        return table;
    }

    FileStoreTable table(String name) throws Exception {
        return (FileStoreTable) catalog.getTable(identifier(name));
    }

    /** The sink of {@code table} on the shared Fluss cluster, with {@code options} on top. */
    static LakeStreamSink sink(FileStoreTable table, Map<String, String> options) {
        return LakeStreamSink.builder()
                .setTable(table)
                .setOptions(SharedStreamStore.lakeStreamOptions())
                .setOptions(options)
                .build();
    }

    static LakeStreamSink sink(FileStoreTable table) {
        return sink(table, Map.of());
    }

    /** Input row {@code i}: id {@code i}, payload {@code payload-i}, partition {@code d<i % 3>}. */
    static RowData row(long i) {
        return GenericRowData.of(
                (int) i,
                StringData.fromString("payload-" + i),
                StringData.fromString("d" + (i % PARTITIONS)));
    }

    /**
     * Rows {@link #row} at {@code perSecond}; unbounded when {@code count} is {@link
     * Long#MAX_VALUE}.
     */
    static DataStream<RowData> rows(StreamExecutionEnvironment env, long count, int perSecond) {
        return env.fromSource(
                new DataGeneratorSource<>(
                        SinkTestTables::row,
                        count,
                        RateLimiterStrategy.perSecond(perSecond),
                        TypeInformation.of(RowData.class)),
                WatermarkStrategy.noWatermarks(),
                "rows");
    }

    /** A job environment on the shared MiniCluster. */
    static StreamExecutionEnvironment env(int parallelism, long checkpointMillis) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointMillis);
        // Flink starts the first checkpoint at a random time between the minimum pause and the
        // interval: a long interval alone does not keep a short test free of commits
        if (checkpointMillis >= 60_000) {
            env.getCheckpointConfig().setMinPauseBetweenCheckpoints(checkpointMillis);
        }
        return env;
    }

    /** The id of the table's latest snapshot, 0 before the first. */
    long latestSnapshotId(String name) throws Exception {
        Long latest = table(name).snapshotManager().latestSnapshotId();
        return latest == null ? 0 : latest;
    }

    @Override
    public void close() throws Exception {
        store.close();
        catalog.close();
    }
}
