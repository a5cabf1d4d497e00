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
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code INSERT OVERWRITE} of a table in lake-stream mode: Paimon replaces the partitions, the
 * stream store gets nothing, and union reads before and after later writes agree with Paimon.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamOverwriteITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static LakeSqlEnvironments environments;

    @BeforeAll
    static void createDatabase() {
        environments = new LakeSqlEnvironments(warehouse);
        environments.streaming(null);
    }

    @ParameterizedTest(name = "primary key: {0}")
    @ValueSource(booleans = {false, true})
    void anOverwriteReplacesPartitionsAndTheStreamTableFollows(boolean primaryKey)
            throws Exception {
        String table = primaryKey ? "db.overwrite_pk" : "db.overwrite_append";
        StreamTableEnvironment tEnv = environments.streaming(Duration.ofSeconds(1));
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (dt INT, id INT, v STRING"
                        + (primaryKey ? ", PRIMARY KEY (dt, id) NOT ENFORCED" : "")
                        + ") PARTITIONED BY (dt) WITH ('bucket' = '2'"
                        + (primaryKey ? "" : ", 'bucket-key' = 'id'")
                        + ")");
        tEnv.executeSql("ALTER TABLE lake." + table + " SET ('lake-stream.enabled' = 'true')");
        TableEnvironment batch = environments.batch();
        batch.executeSql(
                        "INSERT INTO lake."
                                + table
                                + " VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 3, 'c')")
                .await();

        batch.executeSql("INSERT OVERWRITE lake." + table + " PARTITION (dt = 1) VALUES (10, 'x')")
                .await();
        assertThat(rows(table)).isEqualTo("[+I[1, 10, x], +I[2, 3, c]]");
        assertThat(streamRecords(tEnv, table)).as("records in the stream table").isEqualTo(3);

        // writing on: the next job neither waits nor fences, and the union read agrees
        batch.executeSql("INSERT INTO lake." + table + " VALUES (1, 11, 'y'), (2, 4, 'd')").await();
        assertThat(rows(table)).isEqualTo("[+I[1, 10, x], +I[1, 11, y], +I[2, 3, c], +I[2, 4, d]]");
        assertThat(streamRecords(tEnv, table)).isEqualTo(5);

        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "INSERT OVERWRITE lake."
                                                + table
                                                + " SELECT * FROM lake."
                                                + table))
                .hasStackTraceContaining("OVERWRITE");
    }

    private static String rows(String table) {
        return CollectionUtil.iteratorToList(
                        environments
                                .batch()
                                .executeSql("SELECT * FROM lake." + table + " ORDER BY dt, id")
                                .collect())
                .toString();
    }

    private static long streamRecords(TableEnvironment tEnv, String table) throws Exception {
        StreamTableSpec spec =
                StreamTableSpec.of(Identifier.fromString(table), paimonTable(tEnv, table));
        try (StreamStore store = SharedStreamStore.newStore()) {
            StreamTable streamTable = store.get(spec);
            return store
                    .listOffsets(
                            streamTable,
                            store.listPartitionBuckets(streamTable),
                            OffsetPosition.LATEST)
                    .values()
                    .stream()
                    .mapToLong(Long::longValue)
                    .sum();
        }
    }
}
