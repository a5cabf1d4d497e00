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

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code DROP DATABASE ... CASCADE} drops the stream tables of the database's tables in lake-stream
 * mode, as {@code DROP TABLE} does, so that a table created again under the same name can be
 * enabled and reads only its own rows; {@code RESTRICT} refuses a database with tables, as Paimon
 * does, and drops nothing.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class DropDatabaseITCase {

    private static final String TABLE = "lake.drop_db_cascade.orders";
    private static final String CREATE =
            "CREATE TABLE "
                    + TABLE
                    + " (id INT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id')";
    private static final String ENABLE =
            "ALTER TABLE " + TABLE + " SET ('lake-stream.enabled' = 'true')";

    @TempDir static Path warehouse;

    @Test
    void cascadeDropsTheStreamTablesAndRestrictRefusesADatabaseWithTables() throws Exception {
        TableEnvironment batch = new LakeSqlEnvironments(warehouse).batch();
        batch.executeSql(LakeSqlEnvironments.paimonCatalogDdl(warehouse));
        batch.executeSql("CREATE DATABASE lake.drop_db_cascade");
        batch.executeSql(CREATE);
        batch.executeSql(ENABLE);
        batch.executeSql("INSERT INTO " + TABLE + " VALUES (1, 'old'), (2, 'old')").await();
        batch.executeSql(
                "CREATE TABLE lake.drop_db_cascade.plain (id INT) WITH ('bucket' = '1', "
                        + "'bucket-key' = 'id')");

        for (String restrict :
                new String[] {
                    "DROP DATABASE lake.drop_db_cascade",
                    "DROP DATABASE lake.drop_db_cascade RESTRICT"
                }) {
            assertThatThrownBy(() -> batch.executeSql(restrict))
                    .as(restrict)
                    .hasStackTraceContaining(
                            "Database drop_db_cascade in catalog lake is not empty");
        }
        assertThat(LakeSqlEnvironments.rows(batch, TABLE))
                .as("refused, nothing was dropped")
                .containsExactlyInAnyOrder("+I[1, old]", "+I[2, old]");

        batch.executeSql("DROP DATABASE lake.drop_db_cascade CASCADE");
        batch.executeSql("CREATE DATABASE lake.drop_db_cascade");
        batch.executeSql(CREATE);
        // refused as another table's stream table while the dropped table's stream table was kept
        batch.executeSql(ENABLE);
        batch.executeSql("INSERT INTO " + TABLE + " VALUES (3, 'new')").await();

        List<String> paimon = LakeSqlEnvironments.rows(batch, "paimon.drop_db_cascade.orders");
        assertThat(paimon).containsExactly("+I[3, new]");
        assertThat(LakeSqlEnvironments.rows(batch, TABLE)).containsExactlyElementsOf(paimon);
    }
}
