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
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code TRUNCATE TABLE} of a table in lake-stream mode is Paimon's truncate: the union reads
 * return what Paimon's read returns, with and without a running writer's uncommitted tail (see
 * "Truncate" in docs/consistency.md).
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class TruncateTableITCase {

    private static final String READ_COMMITTED =
            " /*+ OPTIONS('lake-stream.read.isolation' = 'read-committed') */";

    @TempDir static Path warehouse;
    @TempDir static Path savepoints;

    @ParameterizedTest(name = "primary key: {0}")
    @ValueSource(booleans = {false, true})
    void aTruncateWithoutAWriterLeavesNothingToRead(boolean primaryKey) throws Exception {
        String table = primaryKey ? "db.truncate_pk" : "db.truncate_append";
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment batch = batch(environments);
        batch.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        batch.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (dt INT, id INT, v STRING"
                        + (primaryKey ? ", PRIMARY KEY (dt, id) NOT ENFORCED" : "")
                        + ") PARTITIONED BY (dt) WITH ('bucket' = '2', "
                        + (primaryKey ? "" : "'bucket-key' = 'id', ")
                        + "'lake-stream.enabled' = 'true')");
        batch.executeSql("INSERT INTO lake." + table + " VALUES (1, 1, 'a'), (2, 2, 'b')").await();

        truncate(environments, table);
        assertThat(readsEqualPaimons(batch, table)).isEmpty();
        assertThat(streamPartitions(batch, table))
                .as("no job writes the table: its stream partitions went with the truncate")
                .isEmpty();

        batch.executeSql("INSERT INTO lake." + table + " VALUES (1, 3, 'after')").await();
        assertThat(readsEqualPaimons(batch, table)).containsExactly("+I[1, 3, after]");
    }

    @Test
    void aRunningWritersTailIsReadAsPaimonReadsItAfterTheWritersCommit() throws Exception {
        String table = "db.truncate_tail";
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment batch = batch(environments);
        JobClient writer = environments.committedRowAndTail(batch, "lake." + table);
        try {
            Await.until(
                    () -> LakeSqlEnvironments.count(batch, "lake." + table) == 2,
                    "the tail in the union read");

            truncate(environments, table);
            List<String> paimon = LakeSqlEnvironments.rows(batch, "paimon." + table);
            assertThat(paimon).as("Paimon's read at the truncate").isEmpty();
            assertThat(LakeSqlEnvironments.rows(batch, "lake." + table + READ_COMMITTED))
                    .isEqualTo(paimon);
            assertThat(LakeSqlEnvironments.rows(batch, "lake." + table))
                    .as("the tail: Paimon's read after the writer's commit")
                    .containsExactly("+I[2, tail]");

            // the savepoint commits the tail on top of the truncate
            writer.stopWithSavepoint(
                            false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                    .get(60, TimeUnit.SECONDS);
            writer.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        } finally {
            if (!writer.getJobStatus().get().isGloballyTerminalState()) {
                writer.cancel().get();
            }
        }
        assertThat(readsEqualPaimons(batch, table)).containsExactly("+I[2, tail]");

        batch.executeSql("INSERT INTO lake." + table + " VALUES (3, 'after')").await();
        assertThat(readsEqualPaimons(batch, table))
                .containsExactlyInAnyOrder("+I[2, tail]", "+I[3, after]");
    }

    /** Truncates {@code table} in a batch environment: Flink refuses it in a streaming one. */
    private static void truncate(LakeSqlEnvironments environments, String table) throws Exception {
        TableEnvironment truncating = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        truncating.executeSql(environments.catalogDdl("lake", ""));
        truncating.executeSql("TRUNCATE TABLE lake." + table).await();
    }

    private static List<BinaryRow> streamPartitions(TableEnvironment tEnv, String table)
            throws Exception {
        StreamTableSpec spec =
                StreamTableSpec.of(
                        Identifier.fromString(table), LakeSqlEnvironments.paimonTable(tEnv, table));
        try (StreamStore store = SharedStreamStore.newStore()) {
            return store.listPartitions(store.get(spec));
        }
    }

    private static TableEnvironment batch(LakeSqlEnvironments environments) {
        TableEnvironment batch = environments.batch();
        batch.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
        return batch;
    }

    /**
     * Paimon's read of {@code table}, after checking that both batch union reads (read-uncommitted
     * and read-committed) return the same rows.
     */
    private static List<String> readsEqualPaimons(TableEnvironment batch, String table) {
        List<String> paimon = LakeSqlEnvironments.rows(batch, "paimon." + table);
        assertThat(LakeSqlEnvironments.rows(batch, "lake." + table))
                .containsExactlyInAnyOrderElementsOf(paimon);
        assertThat(LakeSqlEnvironments.rows(batch, "lake." + table + READ_COMMITTED))
                .containsExactlyInAnyOrderElementsOf(paimon);
        return paimon;
    }
}
