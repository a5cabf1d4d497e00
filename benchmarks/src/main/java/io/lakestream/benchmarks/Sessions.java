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

package io.lakestream.benchmarks;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Table environments on the run's MiniCluster, each with two catalogs over one warehouse: {@code
 * lake} of type {@code paimon-lakestream} on the run's stream store (the run's Fluss cluster, or
 * the process-local memory store), and {@code paimon}, Paimon's own catalog, for Paimon alone. Both
 * sides go through SQL only, as a user would.
 */
final class Sessions {

    /** The parallelism of every job: {@code -Dbench.parallelism}, 2 as in the figures. */
    static final int PARALLELISM = BenchmarkSizes.parallelism();

    /** The database of the benchmark tables, in both catalogs. */
    static final String DATABASE = "bench";

    private final Path warehouse;

    /** The store's options as SQL option pairs. */
    private final String storeOptions;

    /** The run's Fluss cluster, or null when the run's store is not Fluss. */
    private final String flussBootstrapServers;

    Sessions(Path warehouse, String storeOptions, String flussBootstrapServers) {
        this.warehouse = warehouse;
        this.storeOptions = storeOptions;
        this.flussBootstrapServers = flussBootstrapServers;
    }

    /** The run's Fluss cluster, or null when the run's store is not Fluss. */
    String flussBootstrapServers() {
        return flussBootstrapServers;
    }

    Path warehouse() {
        return warehouse;
    }

    /** A batch table environment. */
    TableEnvironment batch() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(PARALLELISM);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        return withCatalogs(tEnv);
    }

    /** A streaming table environment; without checkpoints when {@code interval} is null. */
    StreamTableEnvironment streaming(Duration interval) {
        return tables(streamingEnvironment(interval));
    }

    /** A table environment with the catalogs over {@code env}. */
    StreamTableEnvironment tables(StreamExecutionEnvironment env) {
        return withCatalogs(StreamTableEnvironment.create(env));
    }

    /** A streaming environment; without checkpoints when {@code interval} is null. */
    StreamExecutionEnvironment streamingEnvironment(Duration interval) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(PARALLELISM);
        // Flink's 'execution.buffer-timeout' (100 ms unless set): how long a network buffer
        // waits to fill before it is sent, per shuffle of a streaming job
        String bufferTimeout = System.getProperty("bench.buffer-timeout-ms", "").trim();
        if (!bufferTimeout.isEmpty()) {
            env.setBufferTimeout(Long.parseLong(bufferTimeout));
        }
        if (interval != null) {
            env.enableCheckpointing(interval.toMillis());
            // Flink starts the first checkpoint at a random time up to the interval unless the
            // minimum pause is as long: this way every checkpoint is a whole interval apart
            env.getCheckpointConfig().setMinPauseBetweenCheckpoints(interval.toMillis());
        }
        return env;
    }

    private <T extends TableEnvironment> T withCatalogs(T tEnv) {
        tEnv.executeSql(
                String.format(
                        "CREATE CATALOG lake WITH ('type' = 'paimon-lakestream', "
                                + "'warehouse' = '%s', %s)",
                        warehouse.toUri(), storeOptions));
        tEnv.executeSql(
                String.format(
                        "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '%s')",
                        warehouse.toUri()));
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake." + DATABASE);
        return tEnv;
    }

    /** Runs {@code statement} to its end. */
    static void run(TableEnvironment tEnv, String statement) throws Exception {
        tEnv.executeSql(statement).await();
    }

    /** Seconds that running {@code statement} to its end took, planning and job included. */
    static double timeSeconds(TableEnvironment tEnv, String statement) throws Exception {
        long start = System.nanoTime();
        run(tEnv, statement);
        return (System.nanoTime() - start) / 1e9;
    }

    /** The single BIGINT {@code query} returns. */
    static long single(TableEnvironment tEnv, String query) throws Exception {
        TableResult result = tEnv.executeSql(query);
        try (CloseableIterator<Row> rows = result.collect()) {
            Row row = rows.next();
            return ((Number) row.getField(0)).longValue();
        }
    }
}
