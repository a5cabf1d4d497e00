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

package io.lakestream.flink.catalog;

import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.protocol.WriterLeases;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.WriterLeaseEntry;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Table environments of the SQL tests on the shared MiniCluster, each with the {@code
 * paimon-lakestream} catalog {@code lake} over one warehouse and the shared Fluss cluster.
 */
public final class LakeSqlEnvironments {

    /** The writer lease timeout of the SQL tests: short, so that a take-over comes quickly. */
    static final Duration WRITER_LEASE_TIMEOUT = Duration.ofSeconds(1);

    private final Path warehouse;
    private final Duration writerLeaseTimeout;

    public LakeSqlEnvironments(Path warehouse) {
        this(warehouse, WRITER_LEASE_TIMEOUT);
    }

    LakeSqlEnvironments(Path warehouse, Duration writerLeaseTimeout) {
        this.warehouse = warehouse;
        this.writerLeaseTimeout = writerLeaseTimeout;
    }

    String catalogDdl(String name, String extra) {
        return String.format(
                "CREATE CATALOG %s WITH ("
                        + "'type' = 'paimon-lakestream', "
                        + "'warehouse' = '%s', "
                        + "%s, "
                        + "'lake-stream.sink.writer-lease-timeout' = '%d ms', "
                        + "'lake-stream.read.partition-discovery-interval' = '500 ms'%s)",
                name,
                warehouse.toUri(),
                SharedStreamStore.sqlOptions(),
                writerLeaseTimeout.toMillis(),
                extra);
    }

    /**
     * A streaming table environment with the catalog {@code lake} and its database {@code db};
     * without checkpoints when {@code checkpointInterval} is null.
     */
    StreamTableEnvironment streaming(Duration checkpointInterval) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        // one slot per job: a streaming INSERT, a streaming SELECT and a batch SELECT run at once
        // on the shared MiniCluster's four slots
        env.setParallelism(1);
        if (checkpointInterval != null) {
            env.enableCheckpointing(checkpointInterval.toMillis());
            // Flink starts the first checkpoint at a random time between the minimum pause and
            // the interval; with the pause equal to the interval it comes after a whole interval
            env.getCheckpointConfig().setMinPauseBetweenCheckpoints(checkpointInterval.toMillis());
        }
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(catalogDdl("lake", ""));
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        return tEnv;
    }

    /**
     * The DDL of table {@code lake.db.<table>} {@code (id INT, name STRING)} with one bucket keyed
     * by {@code id}, and {@code options} (each preceded by a comma) in its {@code WITH} clause.
     */
    static String oneBucketTableDdl(String table, String options) {
        return "CREATE TABLE lake.db."
                + table
                + " (id INT, name STRING) WITH ('bucket' = '1', 'bucket-key' = 'id'"
                + options
                + ")";
    }

    /** The DDL of catalog {@code paimon}: Paimon's own catalog of {@code warehouse}. */
    static String paimonCatalogDdl(Path warehouse) {
        return "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                + warehouse.toUri()
                + "')";
    }

    /**
     * Creates {@code table} (id INT, name STRING) in lake-stream mode with one committed row,
     * written by {@code batch}, and starts a job that writes a second row and commits it only after
     * an hour or at a savepoint: a tail in the store.
     */
    JobClient committedRowAndTail(TableEnvironment batch, String table) throws Exception {
        StreamTableEnvironment writing = streaming(Duration.ofHours(1));
        writing.executeSql(
                "CREATE TABLE "
                        + table
                        + " (id INT, name STRING) WITH ('bucket' = '1', "
                        + "'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");
        batch.executeSql("INSERT INTO " + table + " VALUES (1, 'committed')").await();
        return tail(table, "(2, 'tail')");
    }

    /**
     * Starts a job that writes {@code values} (SQL row literals of (INT, STRING), e.g. {@code "(2,
     * 'tail')"}) into {@code table} and commits them only after an hour or at a savepoint: records
     * in the store that no snapshot holds, while the job runs.
     */
    JobClient tail(String table, String values) {
        StreamTableEnvironment writing = streaming(Duration.ofHours(1));
        writing.executeSql(
                "CREATE TEMPORARY TABLE idle (id INT) WITH ('connector' = 'datagen', "
                        + "'rows-per-second' = '1', 'fields.id.min' = '0', 'fields.id.max' = '9')");
        return writing.executeSql(
                        "INSERT INTO "
                                + table
                                + " SELECT * FROM (VALUES "
                                + values
                                + ") UNION ALL SELECT id, 'never' FROM idle WHERE id < 0")
                .getJobClient()
                .orElseThrow();
    }

    /** A batch table environment with the catalog {@code lake}. */
    public TableEnvironment batch() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        tEnv.executeSql(catalogDdl("lake", ""));
        return tEnv;
    }

    public static long count(TableEnvironment tEnv, String table) {
        List<Row> rows =
                CollectionUtil.iteratorToList(
                        tEnv.executeSql("SELECT COUNT(*) FROM " + table).collect());
        return (Long) rows.get(0).getField(0);
    }

    /**
     * Waits until the writer lease of {@code table} is free or has expired, by the same replay and
     * timeout that enabling uses, so that a test can enable a table again after cancelling the job
     * that wrote it.
     */
    public static void awaitWriterLeaseExpired(
            TableEnvironment tEnv, String table, Duration timeout) throws Exception {
        Identifier identifier = Identifier.fromString(table);
        FileStoreTable paimon = paimonTable(tEnv, table);
        try (StreamStore store = SharedStreamStore.newStore()) {
            StreamTable streamTable = store.get(StreamTableSpec.of(identifier, paimon));
            // the store and this test run on one machine: its clock is the store's
            Duration withMargin = timeout.plusMillis(200);
            Await.until(
                    () -> {
                        Optional<WriterLeaseEntry> holder =
                                WriterLeases.holder(store, streamTable, timeout);
                        return !holder.isPresent()
                                || WriterLeases.isExpired(
                                        holder.get(), withMargin, System.currentTimeMillis());
                    },
                    "the writer lease of " + table + " expires");
        }
    }

    static LakeStreamPaimonCatalog paimonCatalog(TableEnvironment tEnv) {
        return (LakeStreamPaimonCatalog)
                ((LakeStreamFlinkCatalog) tEnv.getCatalog("lake").orElseThrow()).catalog();
    }

    static FileStoreTable paimonTable(TableEnvironment tEnv, String table) throws Exception {
        return (FileStoreTable) paimonCatalog(tEnv).getTable(Identifier.fromString(table));
    }

    /** Every row of table {@code table} (hints allowed), rendered with its kind. */
    public static List<String> rows(TableEnvironment tEnv, String table) {
        List<String> rows = new ArrayList<>();
        for (Row row :
                CollectionUtil.iteratorToList(
                        tEnv.executeSql("SELECT * FROM " + table).collect())) {
            rows.add(row.toString());
        }
        return rows;
    }

    /**
     * A batch environment on the shared MiniCluster of parallelism 1 whose statements wait for
     * their jobs, without catalogs: for tests with a Fluss cluster of their own.
     */
    public static StreamTableEnvironment plainBatch() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        tEnv.getConfig().set("table.dml-sync", "true");
        return tEnv;
    }
}
