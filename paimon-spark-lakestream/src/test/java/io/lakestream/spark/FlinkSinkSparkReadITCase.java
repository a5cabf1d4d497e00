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

package io.lakestream.spark;

import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.testutils.Await;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A table that Flink's lake-stream sink writes, on a real Fluss cluster, read by Spark in the same
 * JVM while the sink holds an uncommitted tail: Spark's batch read equals Flink's union read of the
 * same moment, Spark's stream of the table's audit log applies to the same rows, and once the sink
 * commits its tail, both equal Paimon's own read.
 */
@ExtendWith(SharedFlussCluster.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FlinkSinkSparkReadITCase {

    @TempDir static Path warehouse;

    private final String prefix = "flinkspark" + UUID.randomUUID().toString().substring(0, 8) + "_";
    private SparkSession spark;

    @BeforeAll
    void start() {
        Map<String, String> options = new HashMap<>();
        options.put("lake-stream.fluss.bootstrap.servers", SharedFlussCluster.bootstrapServers());
        options.put("lake-stream.store.database-prefix", prefix);
        spark = LocalSpark.start(2, warehouse.toUri().toString(), options);
    }

    @AfterAll
    void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    @Test
    void sparkReadsWhatTheFlinkSinkWroteAsFlinksUnionReadAndPaimonsAfterTheCommit()
            throws Exception {
        TableEnvironment batch = flink(RuntimeExecutionMode.BATCH);
        batch.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        batch.executeSql(
                "CREATE TABLE lake.db.orders (id INT, name STRING, dt STRING, "
                        + "PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) "
                        + "WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        // committed history: a bounded job commits at its end
        batch.executeSql(
                        "INSERT INTO lake.db.orders VALUES "
                                + "(1, 'a', 'd1'), (2, 'b', 'd1'), (3, 'c', 'd2')")
                .await(2, TimeUnit.MINUTES);

        // the tail: a running job that checkpoints (and so commits) once an hour
        TableEnvironment streaming = flink(RuntimeExecutionMode.STREAMING);
        streaming.executeSql(
                "CREATE TEMPORARY TABLE idle (id INT) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '1', "
                        + "'fields.id.min' = '0', 'fields.id.max' = '9')");
        JobClient writer =
                streaming
                        .executeSql(
                                "INSERT INTO lake.db.orders SELECT * FROM (VALUES "
                                        + "(1, 'a2', 'd1'), (4, 'd', 'd1'), (5, 'e', 'd3')) "
                                        + "UNION ALL SELECT id, 'never', 'dx' FROM idle "
                                        + "WHERE id < 0")
                        .getJobClient()
                        .orElseThrow();
        Await.until(
                () -> flinkRows(batch).contains("1:a2:d1") && flinkRows(batch).size() == 5,
                "the running job's rows in Flink's union read");

        List<String> flink = flinkRows(batch);
        assertThat(flink)
                .containsExactlyInAnyOrder("1:a2:d1", "2:b:d1", "3:c:d2", "4:d:d1", "5:e:d3");
        assertThat(sparkRows("SELECT id, name, dt FROM lake.db.orders"))
                .containsExactlyInAnyOrderElementsOf(flink);
        assertThat(sparkRows("SELECT id, name, dt FROM lake.db.orders WHERE dt = 'd1'"))
                .containsExactlyInAnyOrder("1:a2:d1", "2:b:d1", "4:d:d1");
        assertThat(streamAppliedByKey("lake.db.`orders$audit_log`"))
                .containsExactlyInAnyOrderElementsOf(flink);

        // the savepoint commits the tail
        writer.stopWithSavepoint(
                        false,
                        warehouse.resolve("savepoints").toUri().toString(),
                        SavepointFormatType.CANONICAL)
                .get(2, TimeUnit.MINUTES);
        List<String> paimon = new ArrayList<>();
        TableEnvironment paimonRead = flink(RuntimeExecutionMode.BATCH);
        paimonRead.executeSql(
                "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse.toUri()
                        + "')");
        for (Row row :
                CollectionUtil.iteratorToList(
                        paimonRead.executeSql("SELECT * FROM paimon.db.orders").collect())) {
            paimon.add(row.getField(0) + ":" + row.getField(1) + ":" + row.getField(2));
        }
        assertThat(paimon).containsExactlyInAnyOrderElementsOf(flink);
        assertThat(sparkRows("SELECT id, name, dt FROM lake.db.orders"))
                .containsExactlyInAnyOrderElementsOf(paimon);
    }

    /** A Flink table environment with the lake-stream catalog {@code lake} of the warehouse. */
    private TableEnvironment flink(RuntimeExecutionMode mode) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.setRuntimeMode(mode);
        if (mode == RuntimeExecutionMode.STREAMING) {
            env.enableCheckpointing(TimeUnit.HOURS.toMillis(1));
            // the first checkpoint at a random time between the pause and the interval: an hour
            env.getCheckpointConfig().setMinPauseBetweenCheckpoints(TimeUnit.HOURS.toMillis(1));
        }
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(ExecutionOptions.RUNTIME_MODE, mode);
        tEnv.executeSql(
                "CREATE CATALOG lake WITH ('type' = 'paimon-lakestream', 'warehouse' = '"
                        + warehouse.toUri()
                        + "', 'lake-stream.fluss.bootstrap.servers' = '"
                        + SharedFlussCluster.bootstrapServers()
                        + "', 'lake-stream.store.database-prefix' = '"
                        + prefix
                        + "', 'lake-stream.sink.writer-lease-timeout' = '2 s')");
        return tEnv;
    }

    /** Flink's union read of the table, planned now. */
    private static List<String> flinkRows(TableEnvironment tEnv) {
        List<String> rows = new ArrayList<>();
        for (Row row :
                CollectionUtil.iteratorToList(
                        tEnv.executeSql("SELECT id, name, dt FROM lake.db.orders").collect())) {
            rows.add(row.getField(0) + ":" + row.getField(1) + ":" + row.getField(2));
        }
        return rows;
    }

    private List<String> sparkRows(String query) {
        List<String> rows = new ArrayList<>();
        for (org.apache.spark.sql.Row row : spark.sql(query).collectAsList()) {
            rows.add(row.get(0) + ":" + row.get(1) + ":" + row.get(2));
        }
        return rows;
    }

    /** Streams {@code auditLog} to its end now and applies its changes by key. */
    private List<String> streamAppliedByKey(String auditLog) throws Exception {
        Map<String, String> rows = Collections.synchronizedMap(new LinkedHashMap<>());
        StreamingQuery query =
                spark.readStream()
                        .table(auditLog)
                        .writeStream()
                        .option(
                                "checkpointLocation",
                                warehouse.resolve("stream-checkpoint").toUri().toString())
                        .trigger(Trigger.AvailableNow())
                        .foreachBatch(
                                (org.apache.spark.api.java.function.VoidFunction2<
                                                org.apache.spark.sql.Dataset<
                                                        org.apache.spark.sql.Row>,
                                                Long>)
                                        (batch, id) -> {
                                            for (org.apache.spark.sql.Row change :
                                                    batch.collectAsList()) {
                                                String key = change.get(1) + ":" + change.get(3);
                                                String kind = change.getString(0);
                                                if (kind.equals("+I") || kind.equals("+U")) {
                                                    rows.put(
                                                            key,
                                                            change.get(1)
                                                                    + ":"
                                                                    + change.get(2)
                                                                    + ":"
                                                                    + change.get(3));
                                                } else {
                                                    rows.remove(key);
                                                }
                                            }
                                        })
                        .start();
        query.awaitTermination();
        return new ArrayList<>(rows.values());
    }
}
