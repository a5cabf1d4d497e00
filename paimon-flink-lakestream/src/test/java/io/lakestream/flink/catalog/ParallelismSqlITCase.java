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

import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parallelism of lake-stream reads and writes is Paimon's: {@code 'scan.parallelism'}, else,
 * when the job leaves it to the planner, one inferred from the buckets (unbounded) or the
 * partition-buckets read (bounded) and capped by {@code 'scan.infer-parallelism.max'}, unless
 * {@code 'scan.infer-parallelism'} is off; {@code 'sink.parallelism'} for the writers, which an
 * unpartitioned table otherwise gets one per bucket at most. The rows are the same whatever the
 * parallelism: Paimon's read of the table.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class ParallelismSqlITCase {

    @TempDir static Path warehouse;

    @BeforeAll
    static void createTables() throws Exception {
        TableEnvironment batch = environment(RuntimeExecutionMode.BATCH, 1);
        // two partitions of two buckets each: four partition-buckets
        batch.executeSql(
                "CREATE TABLE lake.db.par_read (id INT, dt STRING) PARTITIONED BY (dt) WITH "
                        + "('bucket' = '2', 'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");
        batch.executeSql(
                        "INSERT INTO lake.db.par_read VALUES (1, 'a'), (2, 'a'), (3, 'b'), "
                                + "(4, 'b'), (5, 'b')")
                .await();
        batch.executeSql(
                "CREATE TABLE lake.db.par_pk (id INT PRIMARY KEY NOT ENFORCED, v STRING) WITH "
                        + "('bucket' = '3', 'lake-stream.enabled' = 'true')");
        batch.executeSql(
                "CREATE TABLE lake.db.par_write (id INT, v STRING) WITH ('bucket' = '2', "
                        + "'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");
        batch.executeSql(
                "CREATE TABLE lake.db.par_write_parted (id INT, dt STRING) PARTITIONED BY (dt) "
                        + "WITH ('bucket' = '2', 'bucket-key' = 'id', "
                        + "'lake-stream.enabled' = 'true')");
    }

    @Test
    void aBoundedReadInfersItsPartitionBucketsOrTakesTheOptions() throws Exception {
        TableEnvironment batch = environment(RuntimeExecutionMode.BATCH, null);
        String table = "lake.db.par_read";
        assertThat(sourceParallelism(batch, "SELECT * FROM " + table)).isEqualTo(4);
        assertThat(sourceParallelism(batch, "SELECT * FROM " + table + " WHERE dt = 'a'"))
                .as("the partitions the filter keeps")
                .isEqualTo(2);
        assertThat(
                        sourceParallelism(
                                batch,
                                "SELECT * FROM "
                                        + hinted(table, "scan.infer-parallelism.max", "3")))
                .isEqualTo(3);
        assertThat(
                        sourceParallelism(
                                batch, "SELECT * FROM " + hinted(table, "scan.parallelism", "2")))
                .isEqualTo(2);
        assertThat(
                        sourceParallelism(
                                batch,
                                "SELECT * FROM "
                                        + hinted(table, "scan.infer-parallelism", "false")))
                .as("the job's default")
                .isEqualTo(ExecutionConfig.PARALLELISM_DEFAULT);

        TableEnvironment notInferring = environment(RuntimeExecutionMode.BATCH, null);
        notInferring.getConfig().set("paimon.scan.infer-parallelism", "false");
        assertThat(sourceParallelism(notInferring, "SELECT * FROM " + table))
                .isEqualTo(ExecutionConfig.PARALLELISM_DEFAULT);
        TableEnvironment fixed = environment(RuntimeExecutionMode.BATCH, 1);
        assertThat(sourceParallelism(fixed, "SELECT * FROM " + table))
                .as("a job with a parallelism of its own infers none")
                .isEqualTo(1);

        List<String> paimon = LakeSqlEnvironments.rows(batch, "paimon.db.par_read");
        assertThat(paimon).hasSize(5);
        assertThat(LakeSqlEnvironments.rows(batch, table))
                .containsExactlyInAnyOrderElementsOf(paimon);
        assertThat(LakeSqlEnvironments.rows(batch, hinted(table, "scan.parallelism", "3")))
                .containsExactlyInAnyOrderElementsOf(paimon);
    }

    @Test
    void anUnboundedReadInfersItsBucketsOrTakesTheOptions() throws Exception {
        TableEnvironment streaming = environment(RuntimeExecutionMode.STREAMING, null);
        assertThat(sourceParallelism(streaming, "SELECT * FROM lake.db.par_read"))
                .as("buckets, whatever the partitions")
                .isEqualTo(2);
        assertThat(sourceParallelism(streaming, "SELECT * FROM lake.db.par_pk")).isEqualTo(3);
        assertThat(
                        sourceParallelism(
                                streaming,
                                "SELECT * FROM "
                                        + hinted("lake.db.par_pk", "scan.parallelism", "1")))
                .isEqualTo(1);
        assertThat(
                        sourceParallelism(
                                streaming,
                                "SELECT * FROM "
                                        + hinted(
                                                "lake.db.par_pk",
                                                "scan.infer-parallelism.max",
                                                "1")))
                .as("the cap is a bounded read's, as in Paimon")
                .isEqualTo(3);
    }

    @Test
    void theWritersTakeSinkParallelismOrOnePerBucketOfAnUnpartitionedTable() throws Exception {
        TableEnvironment batch = environment(RuntimeExecutionMode.BATCH, 4);
        // an input of the job's parallelism, 4
        String insert = "INSERT INTO %s SELECT id, dt FROM lake.db.par_read";
        assertThat(writerParallelism(batch, String.format(insert, "lake.db.par_write")))
                .as("two buckets")
                .isEqualTo(2);
        assertThat(writerParallelism(batch, String.format(insert, "lake.db.par_write_parted")))
                .as("a partitioned table's writers: the input's")
                .isEqualTo(4);
        String hinted = hinted("lake.db.par_write", "sink.parallelism", "3");
        assertThat(writerParallelism(batch, String.format(insert, hinted))).isEqualTo(3);

        batch.executeSql(String.format(insert, hinted)).await();
        List<String> paimon = LakeSqlEnvironments.rows(batch, "paimon.db.par_write");
        assertThat(paimon).hasSize(5);
        assertThat(LakeSqlEnvironments.rows(batch, "lake.db.par_write"))
                .containsExactlyInAnyOrderElementsOf(paimon);
    }

    private static String hinted(String table, String key, String value) {
        return String.format("%s /*+ OPTIONS('%s' = '%s') */", table, key, value);
    }

    /**
     * A table environment on the shared MiniCluster with catalogs {@code lake} and {@code paimon}
     * (Paimon's own, on the same warehouse); its jobs' parallelism is left to the planner when
     * {@code parallelism} is null, as in a SQL client without {@code 'parallelism.default'}.
     */
    private static StreamTableEnvironment environment(
            RuntimeExecutionMode mode, Integer parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism == null ? ExecutionConfig.PARALLELISM_DEFAULT : parallelism);
        env.setRuntimeMode(mode);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(ExecutionOptions.RUNTIME_MODE, mode);
        tEnv.executeSql(new LakeSqlEnvironments(warehouse).catalogDdl("lake", ""));
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        tEnv.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
        return tEnv;
    }

    /** The parallelism of the statement's one source. */
    private static int sourceParallelism(TableEnvironment tEnv, String query) throws Exception {
        return parallelismOf(tEnv, query, "pact", "Data Source");
    }

    /** The parallelism of the writers of the statement's lake-stream sink. */
    private static int writerParallelism(TableEnvironment tEnv, String insert) throws Exception {
        return parallelismOf(tEnv, insert, "type", "Writer : ");
    }

    /** The parallelism of the one operator of the statement's job whose {@code field} starts so. */
    private static int parallelismOf(
            TableEnvironment tEnv, String statement, String field, String prefix) throws Exception {
        String explained = tEnv.explainSql(statement, ExplainDetail.JSON_EXECUTION_PLAN);
        String json =
                explained.substring(
                        explained.indexOf('{', explained.indexOf("== Physical Execution Plan ==")));
        List<Integer> found = new ArrayList<>();
        for (JsonNode node : new ObjectMapper().readTree(json).get("nodes")) {
            if (node.get(field).asText().startsWith(prefix)) {
                found.add(node.get("parallelism").asInt());
            }
        }
        assertThat(found)
                .as("operators whose %s starts with '%s' in %s", field, prefix, json)
                .hasSize(1);
        return found.get(0);
    }
}
