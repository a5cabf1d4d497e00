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

import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.store.fluss.testutils.SharedMiniCluster;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An updating query (a {@code GROUP BY}) written into the same table twice, once through Paimon's
 * own sink and once through the lake-stream sink: the two tables end equal in Paimon's batch read,
 * their changelog files (what Paimon's streaming readers in every engine read) are equal, and the
 * lake-stream union read equals Paimon's read.
 */
@ExtendWith({SharedFlussCluster.class, SharedMiniCluster.class})
class SinkChangelogModeITCase {

    @TempDir static java.nio.file.Path warehouse;

    @ParameterizedTest(name = "{0}, changelog producer {1}")
    @CsvSource({"partial-update, none", "deduplicate, input", "aggregation, input"})
    void anUpdatingQueryWritesWhatPaimonsSinkWrites(String engine, String producer)
            throws Exception {
        String name = engine.replace('-', '_') + "_" + producer;
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment tEnv = environments.streaming(Duration.ofSeconds(1));
        tEnv.executeSql(
                "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse.toUri()
                        + "')");
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS paimon.db");
        String ddl =
                " (k INT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2', "
                        + "'merge-engine' = '"
                        + engine
                        + "', 'changelog-producer' = '"
                        + producer
                        + "'%s)";
        tEnv.executeSql(
                "CREATE TABLE lake.db."
                        + name
                        + "_lake"
                        + String.format(ddl, ", 'lake-stream.enabled' = 'true'"));
        tEnv.executeSql("CREATE TABLE paimon.db." + name + "_paimon" + String.format(ddl, ""));
        String query =
                " SELECT k, COUNT(*) FROM (VALUES (1), (2), (1), (3), (1), (2)) AS t(k) GROUP BY k";
        tEnv.executeSql("INSERT INTO lake.db." + name + "_lake" + query).await();
        tEnv.executeSql("INSERT INTO paimon.db." + name + "_paimon" + query).await();

        TableEnvironment batch = environments.batch();
        batch.executeSql(
                "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse.toUri()
                        + "')");
        List<String> paimonSink = rows(batch, "SELECT * FROM paimon.db." + name + "_paimon");
        assertThat(paimonSink).isNotEmpty();
        assertThat(rows(batch, "SELECT * FROM paimon.db." + name + "_lake"))
                .as("Paimon's read of the table the lake-stream sink wrote")
                .containsExactlyInAnyOrderElementsOf(paimonSink);
        assertThat(rows(batch, "SELECT * FROM lake.db." + name + "_lake"))
                .as("the union read")
                .containsExactlyInAnyOrderElementsOf(paimonSink);
        if (producer.equals("input")) {
            List<String> paimonChangelog = changelog(batch, name + "_paimon");
            assertThat(paimonChangelog)
                    .as("Paimon's sink keeps -U with the input changelog producer")
                    .anyMatch(row -> row.startsWith("+I[-U,"));
            assertThat(changelog(batch, name + "_lake"))
                    .as("the changelog files Paimon committed")
                    .containsExactlyInAnyOrderElementsOf(paimonChangelog);
        }
    }

    /** Every row of the changelog files of every snapshot, with its row kind. */
    private static List<String> changelog(TableEnvironment batch, String table) throws Exception {
        long latest = paimonTable(batch, "db." + table).snapshotManager().latestSnapshotId();
        return rows(
                batch,
                "SELECT * FROM paimon.db.`"
                        + table
                        + "$audit_log` /*+ OPTIONS('incremental-between' = '0,"
                        + latest
                        + "', 'incremental-between-scan-mode' = 'changelog') */");
    }

    private static List<String> rows(TableEnvironment tEnv, String query) {
        List<String> rows = new ArrayList<>();
        for (Row row : CollectionUtil.iteratorToList(tEnv.executeSql(query).collect())) {
            rows.add(row.toString());
        }
        return rows;
    }
}
