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

package io.lakestream.examples;

import io.lakestream.spark.catalog.LakeStreamSparkCatalog;

import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;

import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Spark Structured Streaming read of the quickstart's table through the lake-stream Spark
 * catalog, in this JVM beside the Flink jobs: for every new row, how long after its {@code
 * written_at} the micro-batch that returned it reached the driver.
 */
final class SparkProbe implements AutoCloseable {

    private final SparkSession spark;
    private final StreamingQuery query;
    private final List<Long> latencies = new ArrayList<>();

    /**
     * Starts the read of {@code table} ({@code database.table}) of {@code warehouse}, with the
     * store's catalog options, from the table's latest snapshot on.
     */
    SparkProbe(String warehouse, Map<String, String> storeOptions, String table, Path checkpoint)
            throws Exception {
        SparkSession.Builder builder =
                SparkSession.builder()
                        .master("local[1]")
                        .appName("lake-stream-quickstart")
                        .config("spark.driver.host", "127.0.0.1")
                        .config("spark.driver.bindAddress", "127.0.0.1")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "1");
        LakeStreamSparkCatalog.register(builder, "lake", warehouse, storeOptions);
        this.spark = builder.getOrCreate();
        this.query =
                spark.readStream()
                        .table("lake." + table)
                        .where("id >= " + SqlQuickstart.FIRST_NEW_ID)
                        .select("written_at")
                        .writeStream()
                        .option("checkpointLocation", checkpoint.toUri().toString())
                        .foreachBatch((VoidFunction2<Dataset<Row>, Long>) this::measure)
                        .start();
    }

    private void measure(Dataset<Row> batch, long batchId) {
        List<Row> rows = batch.collectAsList();
        long now = System.currentTimeMillis();
        synchronized (latencies) {
            for (Row row : rows) {
                latencies.add(now - ((Timestamp) row.get(0)).getTime());
            }
        }
    }

    /** Waits until the query ran its first micro-batch (the snapshot's rows), for at most 2 min. */
    void awaitRunning() throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(2);
        while (query.recentProgress().length == 0) {
            check();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The Spark read did not start within 2 min");
            }
            Thread.sleep(100);
        }
    }

    /** Fails when the read failed, so that a broken read is not shown as a slow one. */
    void check() {
        if (query.exception().isDefined()) {
            throw new IllegalStateException("The Spark read failed", query.exception().get());
        }
    }

    List<Long> latencies() {
        synchronized (latencies) {
            return new ArrayList<>(latencies);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            query.stop();
        } finally {
            spark.stop();
        }
    }
}
