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

import io.lakestream.store.fluss.testutils.Await;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.store.fluss.testutils.SharedMiniCluster;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Schema changes of an enabled table are followed by Paimon field id, made through Paimon's own
 * catalog (as Spark, a CDC action or another Flink job makes them) or through the lake-stream
 * catalog, while a writer planned before them runs with an uncommitted tail: a renamed field keeps
 * its values, a dropped field's values are gone, a name dropped and added again is a new field that
 * never shows the old one's values, a moved field and a longer VARCHAR need nothing. The union read
 * equals Paimon's read once everything is committed, before and after a writer planned after the
 * change writes.
 */
@ExtendWith({SharedFlussCluster.class, SharedMiniCluster.class})
class FieldIdSchemaChangeITCase {

    @TempDir static java.nio.file.Path warehouse;
    @TempDir static java.nio.file.Path savepoints;

    private static LakeSqlEnvironments environments;

    @BeforeAll
    static void createDatabase() {
        environments = new LakeSqlEnvironments(warehouse);
        environments.streaming(null);
    }

    @ParameterizedTest(name = "through the {0} catalog")
    @ValueSource(strings = {"paimon", "lake"})
    void renameDropReAddMoveAndWidenAreFollowedByFieldId(String catalog) throws Exception {
        String table = "db.fields_" + catalog;
        StreamTableEnvironment tEnv = environments.streaming(Duration.ofHours(1));
        tEnv.executeSql(paimonCatalogDdl());
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (id INT, v STRING, n INT, s VARCHAR(5), PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        tEnv.executeSql("INSERT INTO lake." + table + " VALUES (1, 'one', 10, 'abc')").await();
        // a writer planned before the changes, whose rows stay uncommitted across them
        JobClient oldWriter = startGeneratedWriter(tEnv, table);
        Await.until(() -> countAll(table) >= 21, "rows of the running writer in the union read");

        String alter = "ALTER TABLE " + catalog + "." + table;
        tEnv.executeSql(alter + " RENAME v TO label");
        tEnv.executeSql(alter + " DROP n");
        tEnv.executeSql(alter + " ADD n STRING");
        tEnv.executeSql(alter + " MODIFY s STRING");
        tEnv.executeSql(alter + " MODIFY label STRING FIRST");

        // the tail written under the old schema, read with the new one (a fresh session)
        List<Row> beforeCommit = all(table);
        assertThat(beforeCommit).hasSizeGreaterThanOrEqualTo(21);
        // the columns now: label, id, s, n
        for (Row row : beforeCommit) {
            assertThat(row.getArity()).isEqualTo(4);
            assertThat(row.getField(0)).as("the renamed field keeps its values").isNotNull();
            assertThat(row.getField(3)).as("the new field n, not the dropped one").isNull();
        }

        commitAndRelease(oldWriter, tEnv, table);
        // a writer planned after the changes
        environments
                .streaming(Duration.ofHours(1))
                .executeSql(
                        "INSERT INTO lake."
                                + table
                                + " (id, label, s, n) VALUES (-1, 'new', 'longer than five', 'x')")
                .await();
        List<Row> after = all(table);
        assertThat(after).containsExactlyInAnyOrderElementsOf(allOfPaimon(table));
        assertThat(after).filteredOn(row -> row.getField(3) != null).hasSize(1);
        assertThat(after)
                .filteredOn(row -> row.getField(1).equals(-1))
                .singleElement()
                .hasToString("+I[new, -1, longer than five, x]");
        assertThat(after)
                .filteredOn(row -> row.getField(1).equals(1))
                .singleElement()
                .hasToString("+I[one, 1, abc, null]");
    }

    /**
     * {@code INT} to {@code BIGINT} through Paimon's catalog (as a CDC action widens a column): the
     * stream column keeps its type, since Fluss cannot change one, so the records already in the
     * store are read with Paimon's cast and equal Paimon's read once committed, while a writer
     * planned after the change stops with an error that names the table, the field, both types and
     * the way out. Through the lake-stream catalog the change is refused before anything changes.
     */
    @Test
    void aTypeChangeTheStoreCannotHoldKeepsReadsWorkingAndStopsWritersSayingWhy() throws Exception {
        String table = "db.widened";
        StreamTableEnvironment tEnv = environments.streaming(Duration.ofHours(1));
        tEnv.executeSql(paimonCatalogDdl());
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (id INT, v STRING, n INT, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        assertThatThrownBy(() -> tEnv.executeSql("ALTER TABLE lake." + table + " MODIFY n BIGINT"))
                .hasStackTraceContaining(
                        "turn column 'n' of table db.widened from INT into BIGINT");

        JobClient oldWriter = startGeneratedWriter(tEnv, table);
        Await.until(() -> countAll(table) >= 20, "rows of the running writer in the union read");
        tEnv.executeSql("ALTER TABLE paimon." + table + " MODIFY n BIGINT");
        for (Row row : all(table)) {
            assertThat(row.getField(2)).isInstanceOf(Long.class);
        }
        commitAndRelease(oldWriter, tEnv, table);
        StreamTableEnvironment fresh = environments.streaming(Duration.ofHours(1));
        fresh.getConfig().set("restart-strategy.type", "none");
        assertThatThrownBy(
                        () ->
                                fresh.executeSql(
                                                "INSERT INTO lake."
                                                        + table
                                                        + " VALUES (-1, 'x', 5000000000)")
                                        .await())
                .hasStackTraceContaining("Field 'n' of table db.widened has type BIGINT")
                .hasStackTraceContaining("holds INT")
                .hasStackTraceContaining("drop_stream_table => true");
        assertThat(all(table)).containsExactlyInAnyOrderElementsOf(allOfPaimon(table));
    }

    /**
     * Stops {@code writer} with a savepoint, which commits its tail: the union read then equals
     * Paimon's read; returns once its writer lease is free for the next writer.
     */
    private static void commitAndRelease(JobClient writer, TableEnvironment tEnv, String table)
            throws Exception {
        writer.stopWithSavepoint(
                        false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        writer.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        assertThat(all(table)).containsExactlyInAnyOrderElementsOf(allOfPaimon(table));
        LakeSqlEnvironments.awaitWriterLeaseExpired(
                tEnv, table, LakeSqlEnvironments.WRITER_LEASE_TIMEOUT);
    }

    /** Writes generated rows, 50 a second, with ids from 100, until stopped. */
    private static JobClient startGeneratedWriter(StreamTableEnvironment tEnv, String table) {
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE IF NOT EXISTS gen (id INT, v STRING, n INT) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '50', "
                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '100', "
                        + "'fields.id.end' = '1000000', 'fields.v.length' = '4')");
        String columns = table.endsWith("widened") ? "id, v, n" : "id, v, n, v";
        return tEnv.executeSql("INSERT INTO lake." + table + " SELECT " + columns + " FROM gen")
                .getJobClient()
                .orElseThrow();
    }

    private static long countAll(String table) {
        return LakeSqlEnvironments.count(environments.batch(), "lake." + table);
    }

    /** The union read of a session planned now. */
    private static List<Row> all(String table) {
        return CollectionUtil.iteratorToList(
                environments.batch().executeSql("SELECT * FROM lake." + table).collect());
    }

    /** Paimon's own read of the same table. */
    private static List<Row> allOfPaimon(String table) {
        TableEnvironment batch = environments.batch();
        batch.executeSql(paimonCatalogDdl());
        return CollectionUtil.iteratorToList(
                batch.executeSql("SELECT * FROM paimon." + table).collect());
    }

    private static String paimonCatalogDdl() {
        return "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                + warehouse.toUri()
                + "')";
    }
}
