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

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Lake-stream mode in Flink SQL, on a Fluss cluster and a Flink mini cluster started in this JVM:
 * create a Paimon table with data, turn lake-stream mode on in place, run a streaming INSERT whose
 * checkpoint (and so its Paimon commit) is minutes away, see its rows in a streaming SELECT within
 * a second and in a batch SELECT, look at the status procedure, and turn the mode off again.
 *
 * <p>Run it from the repository root with {@code mvn -B -q install -DskipTests && mvn -B -q -pl
 * examples exec:exec}. It needs nothing but a JDK.
 */
public final class SqlQuickstart {

    private SqlQuickstart() {}

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        System.out.println("Lake-stream quickstart: Flink SQL on a local Fluss cluster");
        Path warehouse = Files.createTempDirectory("lake-stream-sql-quickstart");
        try (LocalFlussCluster fluss = LocalFlussCluster.start()) {
            step("Started a local Fluss cluster at " + fluss.bootstrapServers());
            run(fluss.bootstrapServers(), warehouse);
        } catch (Throwable t) {
            // printed here: Flink's and Fluss's threads would keep the JVM from ending otherwise
            t.printStackTrace(System.out);
            System.exit(1);
        } finally {
            TemporaryDirectories.delete(warehouse);
        }
        System.out.printf(
                "Stopped everything and deleted the temporary files. Done in %.1f s.%n",
                (System.nanoTime() - start) / 1e9);
        // Flink's and Fluss's non-daemon threads would keep the JVM alive
        System.exit(0);
    }

    /** A local Flink environment; with checkpoints every {@code interval} when given. */
    private static StreamTableEnvironment tableEnv(
            String bootstrapServers, Path warehouse, Duration interval, boolean batch) {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, 4);
        conf.set(RestOptions.BIND_PORT, "0");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, conf);
        if (interval != null) {
            env.enableCheckpointing(interval.toMillis());
            // Flink starts the first checkpoint at a random time up to the interval unless the
            // minimum pause is as long
            env.getCheckpointConfig().setMinPauseBetweenCheckpoints(interval.toMillis());
        }
        if (batch) {
            env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        }
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE CATALOG lake WITH ("
                        + "'type' = 'paimon-lakestream', "
                        + "'warehouse' = '"
                        + warehouse.toUri()
                        + "', "
                        + "'lake-stream.fluss.bootstrap.servers' = '"
                        + bootstrapServers
                        + "', "
                        + "'lake-stream.read.partition-discovery-interval' = '1 s')");
        tEnv.executeSql("USE CATALOG lake");
        return tEnv;
    }

    private static void run(String bootstrapServers, Path warehouse) throws Exception {
        StreamTableEnvironment writer =
                tableEnv(bootstrapServers, warehouse, Duration.ofMinutes(5), false);
        sql(writer, "CREATE DATABASE shop");
        sql(
                writer,
                "CREATE TABLE shop.orders (dt STRING, id INT, amount DOUBLE, written_at BIGINT, "
                        + "PRIMARY KEY (dt, id) NOT ENFORCED) PARTITIONED BY (dt) "
                        + "WITH ('bucket' = '2')");
        sql(
                writer,
                "INSERT INTO shop.orders VALUES "
                        + "('2025-06-01', 1, 10.0, 0), ('2025-06-01', 2, 20.0, 0)");
        step("Paimon alone so far: two committed rows, visible at the commit.");

        sql(writer, "ALTER TABLE shop.orders SET ('lake-stream.enabled' = 'true')");
        step(
                "Lake-stream mode is on: the stream table exists in Fluss and the table's data is"
                        + " kept.");

        writer.executeSql(
                "CREATE TEMPORARY TABLE new_orders (id INT, amount DOUBLE) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '5', "
                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '100', "
                        + "'fields.id.end' = '100000', "
                        + "'fields.amount.min' = '1', 'fields.amount.max' = '99')");
        TableResult insert =
                writer.executeSql(
                        "INSERT INTO shop.orders SELECT '2025-06-02', id, amount, "
                                + "CAST(UNIX_TIMESTAMP() AS BIGINT) * 1000 FROM new_orders");
        step(
                "Started a streaming INSERT with a checkpoint interval of 5 minutes: no Paimon"
                        + " commit will happen while this tour runs.");
        try {
            StreamTableEnvironment reader = tableEnv(bootstrapServers, warehouse, null, false);
            try (CloseableIterator<Row> rows =
                    reader.executeSql("SELECT dt, id, amount FROM shop.orders").collect()) {
                step("A streaming SELECT returns the committed rows, then the new ones:");
                int newRows = 0;
                while (newRows < 5) {
                    Row row = rows.next();
                    System.out.println("    " + row);
                    if ((Integer) row.getField(1) >= 100) {
                        newRows++;
                    }
                }
            }
            StreamTableEnvironment batch = tableEnv(bootstrapServers, warehouse, null, true);
            step("A batch SELECT reads the snapshot plus the store, merged by key:");
            print(batch, "SELECT dt, COUNT(*) AS orders FROM shop.orders GROUP BY dt");
            step("The status procedure, one row per partition-bucket:");
            print(batch, "CALL lake.sys.lake_stream_status(`table` => 'shop.orders')");
        } finally {
            insert.getJobClient().orElseThrow().cancel().get();
        }
        step(
                "Cancelled the INSERT before any checkpoint: its rows were never committed, and"
                        + " a restarted job would fence them.");

        sql(writer, "ALTER TABLE shop.orders SET ('lake-stream.enabled' = 'false')");
        StreamTableEnvironment batch = tableEnv(bootstrapServers, warehouse, null, true);
        step("Lake-stream mode is off: reads read Paimon alone again:");
        print(batch, "SELECT dt, COUNT(*) AS orders FROM shop.orders GROUP BY dt");
    }

    private static void step(String message) {
        System.out.println("-> " + message);
    }

    private static void sql(StreamTableEnvironment tEnv, String statement) throws Exception {
        System.out.println("  > " + statement);
        tEnv.executeSql(statement).await();
    }

    private static void print(StreamTableEnvironment tEnv, String query) throws Exception {
        System.out.println("  > " + query);
        try (CloseableIterator<Row> rows = tEnv.executeSql(query).collect()) {
            rows.forEachRemaining(row -> System.out.println("    " + row));
        }
    }
}
