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

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.sink.LakeStreamFixedBucketSink;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Enabling lake-stream mode on a table that has never had it writes {@code
 * 'lake-stream.sink.store-writer-chaining' = 'false'} into its options, so that its streaming sinks
 * write the store from a task of their own, which Paimon's prepare at a checkpoint does not stop; a
 * table that had the mode before, a statement's choice and the catalog's choice are kept.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class FirstEnableDefaultsITCase {

    private static final String CHAINING = LakeStreamOptions.SINK_STORE_WRITER_CHAINING.key();

    @TempDir static Path warehouse;

    @Test
    void everyWayOfEnablingATableForTheFirstTimeTakesTheStoresWriterOutOfPaimonsTask()
            throws Exception {
        StreamTableEnvironment tEnv = new LakeSqlEnvironments(warehouse).streaming(null);
        tEnv.executeSql(
                LakeSqlEnvironments.oneBucketTableDdl(
                        "created", ", 'lake-stream.enabled' = 'true'"));
        tEnv.executeSql(LakeSqlEnvironments.oneBucketTableDdl("altered", ""));
        tEnv.executeSql("ALTER TABLE lake.db.altered SET ('lake-stream.enabled' = 'true')");
        tEnv.executeSql(LakeSqlEnvironments.oneBucketTableDdl("by_procedure", ""));
        tEnv.executeSql("CALL lake.sys.enable_lake_stream(`table` => 'db.by_procedure')").await();

        for (String table : new String[] {"created", "altered", "by_procedure"}) {
            assertThat(option(tEnv, table)).as("the option of table %s", table).isEqualTo("false");
            assertThat(operators(tEnv, table))
                    .as("the streaming INSERT into table %s", table)
                    .anyMatch(
                            name ->
                                    name.equals(
                                            LakeStreamFixedBucketSink.STORE_WRITER_NAME
                                                    + " : "
                                                    + table));
        }
    }

    @Test
    void aTableThatHadTheModeBeforeAndAChoiceOfTheStatementOrCatalogAreKept() throws Exception {
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        StreamTableEnvironment tEnv = environments.streaming(null);
        // as a table disabled before has it: its running jobs may hold the chained writer
        tEnv.executeSql(
                LakeSqlEnvironments.oneBucketTableDdl(
                        "disabled_before", ", 'lake-stream.enabled' = 'false'"));
        tEnv.executeSql("ALTER TABLE lake.db.disabled_before SET ('lake-stream.enabled' = 'true')");
        tEnv.executeSql(
                LakeSqlEnvironments.oneBucketTableDdl(
                        "chosen", ", 'lake-stream.enabled' = 'true', '" + CHAINING + "' = 'true'"));
        tEnv.executeSql(
                environments.catalogDdl("chaining_catalog", ", '" + CHAINING + "' = 'true'"));
        tEnv.executeSql(
                "CREATE TABLE chaining_catalog.db.by_catalog (id INT, name STRING) WITH ("
                        + "'bucket' = '1', 'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");

        assertThat(option(tEnv, "disabled_before")).isNull();
        assertThat(option(tEnv, "chosen")).isEqualTo("true");
        assertThat(option(tEnv, "by_catalog")).isNull();
        for (String table : new String[] {"disabled_before", "chosen", "by_catalog"}) {
            assertThat(operators(tEnv, table))
                    .as("the streaming INSERT into table %s", table)
                    .noneMatch(name -> name.startsWith(LakeStreamFixedBucketSink.STORE_WRITER_NAME))
                    .anyMatch(name -> name.equals("Writer : " + table));
        }
    }

    /** The table's value of the option, null when it has none. */
    private static String option(TableEnvironment tEnv, String table) throws Exception {
        return LakeSqlEnvironments.paimonTable(tEnv, "db." + table).options().get(CHAINING);
    }

    /** The operators of the job a streaming INSERT into {@code table} would run. */
    private static List<String> operators(TableEnvironment tEnv, String table) throws Exception {
        String explained =
                tEnv.explainSql(
                        "INSERT INTO lake.db." + table + " VALUES (1, 'one')",
                        ExplainDetail.JSON_EXECUTION_PLAN);
        String json =
                explained.substring(
                        explained.indexOf('{', explained.indexOf("== Physical Execution Plan ==")));
        List<String> names = new ArrayList<>();
        for (JsonNode node : new ObjectMapper().readTree(json).get("nodes")) {
            names.add(node.get("type").asText());
        }
        return names;
    }
}
