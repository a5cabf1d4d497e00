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
import io.lakestream.testutils.Await;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schema changes of an enabled table are followed by Paimon field id, made through Paimon's own
 * catalog (as Spark, a CDC action or another Flink job makes them) or through the lake-stream
 * catalog, while a writer planned before them runs with an uncommitted tail: a renamed field keeps
 * its values, a dropped field's values are gone, a name dropped and added again is a new field that
 * never shows the old one's values, a moved field, a longer VARCHAR and a NOT NULL field made
 * nullable need nothing. The union read equals Paimon's read once everything is committed, before
 * and after a writer planned after the change writes, in batch and unbounded: an unbounded read
 * planned before the changes equals Paimon's own unbounded read planned then, and one planned after
 * equals Paimon's planned after. Jobs of a failed test are cancelled after it, so that they do not
 * hold the next test's slots.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class FieldIdSchemaChangeITCase {

    @TempDir static java.nio.file.Path tempDir;
    @TempDir static java.nio.file.Path savepointsDir;

    /** The warehouse and the savepoint folder of the steps below. */
    private static java.nio.file.Path warehouse;

    private static java.nio.file.Path savepoints;

    static LakeSqlEnvironments environments;

    @BeforeAll
    static void createDatabase() {
        openOn(tempDir, savepointsDir);
    }

    /**
     * Points the steps of this class at {@code warehouse} and {@code savepoints}, for a class of a
     * store's module that runs a test of its own with them.
     */
    static void openOn(java.nio.file.Path warehouse, java.nio.file.Path savepoints) {
        FieldIdSchemaChangeITCase.warehouse = warehouse;
        FieldIdSchemaChangeITCase.savepoints = savepoints;
        environments = new LakeSqlEnvironments(warehouse);
        environments.streaming(null);
    }

    @AfterEach
    void cancelJobs() {
        SharedMiniCluster.cancelAllJobs();
    }

    @ParameterizedTest(name = "through the {0} catalog")
    @ValueSource(strings = {"paimon", "lake"})
    void renameDropReAddMoveAndWidenAreFollowedByFieldId(String catalog) throws Exception {
        String table = "db.fields_" + catalog;
        StreamTableEnvironment tEnv = createEnabled(table, "id INT, v STRING, n INT, s VARCHAR(5)");
        tEnv.executeSql("INSERT INTO lake." + table + " VALUES (1, 'one', 10, 'abc')").await();
        // a writer planned before the changes, whose rows stay uncommitted across them, and
        // unbounded reads planned before them: the project's and Paimon's own
        JobClient oldWriter = startGeneratedWriter(tEnv, table, "INT", "id, v, n, v", 21);
        ChangelogFollower lakeBefore = follow("lake", table, 0);
        ChangelogFollower paimonBefore = follow("paimon", table, 0);

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
        List<Row> committed =
                writeAfterTheChanges(
                        table, " (id, label, s, n) VALUES (-1, 'new', 'longer than five', 'x')");
        List<Row> after = all(table);
        // the unbounded reads planned before the changes read the renamed field under its old
        // name, the dropped one as null, and equal Paimon's own unbounded read: a value longer
        // than the VARCHAR(5) they were planned with, written after the field was widened, is
        // cut as Paimon cuts the values of a file written under the wider type
        lakeBefore.awaitEqual(paimonBefore, committed);
        lakeBefore.close();
        paimonBefore.close();
        assertUnboundedReadsPlannedNowEqualPaimons(table, 1, committed);
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
     * A {@code NOT NULL} field made nullable, through either catalog, while a writer planned before
     * the change runs: the stream column keeps the records written before, a writer planned after
     * the change writes nulls, and the union read, batch and unbounded, equals Paimon's. (An
     * unbounded read planned before the change is left out: its plan enforces {@code NOT NULL} on
     * what it emits, Paimon's own read as much as the project's.)
     */
    @ParameterizedTest(name = "through the {0} catalog")
    @ValueSource(strings = {"paimon", "lake"})
    void aNotNullFieldMadeNullableTakesNulls(String catalog) throws Exception {
        String table = "db.nullable_" + catalog;
        StreamTableEnvironment tEnv = createEnabled(table, "id INT, v STRING, n INT NOT NULL");
        tEnv.executeSql("INSERT INTO lake." + table + " VALUES (1, 'one', 10)").await();
        JobClient oldWriter = startGeneratedWriter(tEnv, table, "INT", "id, v, n", 21);

        tEnv.executeSql("ALTER TABLE " + catalog + "." + table + " MODIFY n INT");
        assertThat(all(table)).hasSizeGreaterThanOrEqualTo(21).allMatch(r -> r.getField(2) != null);
        commitAndRelease(oldWriter, tEnv, table);
        List<Row> committed =
                writeAfterTheChanges(
                        table,
                        " VALUES (-1, 'none', CAST(NULL AS INT)), (1, 'one', CAST(NULL AS INT))");
        List<Row> after = all(table);
        assertThat(after)
                .filteredOn(row -> row.getField(2) == null)
                .extracting(row -> row.getField(0))
                .containsExactlyInAnyOrder(-1, 1);
        assertUnboundedReadsPlannedNowEqualPaimons(table, 0, committed);
    }

    /**
     * Writes {@code values} (a VALUES clause, after a column list if any) with a job planned now
     * and returns Paimon's read of the table once it is committed, which the union read equals.
     */
    static List<Row> writeAfterTheChanges(String table, String values) throws Exception {
        environments
                .streaming(Duration.ofHours(1))
                .executeSql("INSERT INTO lake." + table + values)
                .await();
        List<Row> committed = allOfPaimon(table);
        assertThat(all(table)).containsExactlyInAnyOrderElementsOf(committed);
        return committed;
    }

    /**
     * Unbounded reads of {@code table} planned now, the project's and Paimon's own, keyed by field
     * {@code keyField}: equal to each other and to {@code committed}, Paimon's batch read.
     */
    static void assertUnboundedReadsPlannedNowEqualPaimons(
            String table, int keyField, List<Row> committed) throws Exception {
        try (ChangelogFollower lake = follow("lake", table, keyField);
                ChangelogFollower paimon = follow("paimon", table, keyField)) {
            lake.awaitEqual(paimon, committed);
            lake.assertHolds(committed);
        }
    }

    /**
     * Stops {@code writer} with a savepoint, which commits its tail: the union read then equals
     * Paimon's read; returns once its writer lease is free for the next writer.
     */
    static void commitAndRelease(JobClient writer, TableEnvironment tEnv, String table)
            throws Exception {
        writer.stopWithSavepoint(
                        false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                .get(60, TimeUnit.SECONDS);
        writer.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        assertThat(all(table)).containsExactlyInAnyOrderElementsOf(allOfPaimon(table));
        LakeSqlEnvironments.awaitWriterLeaseExpired(
                tEnv, table, LakeSqlEnvironments.WRITER_LEASE_TIMEOUT);
    }

    /**
     * An unbounded read of {@code table} through {@code catalog}, planned now with the table's
     * columns now, keyed by its field {@code keyField}.
     */
    static ChangelogFollower follow(String catalog, String table, int keyField) {
        StreamTableEnvironment reading = environments.streaming(null);
        reading.executeSql(paimonCatalogDdl());
        return ChangelogFollower.start(reading, "SELECT * FROM " + catalog + "." + table, keyField);
    }

    /**
     * A streaming environment with both catalogs, in which table {@code table} of {@code columns}
     * and the primary key {@code id} is created in lake-stream mode with two buckets.
     */
    static StreamTableEnvironment createEnabled(String table, String columns) {
        StreamTableEnvironment tEnv = environments.streaming(Duration.ofHours(1));
        tEnv.executeSql(paimonCatalogDdl());
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " ("
                        + columns
                        + ", PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        return tEnv;
    }

    /**
     * Writes generated rows of {@code columns}, 50 a second, with ids from 100 and {@code n} of
     * type {@code nType}, until stopped; returns once the union read holds {@code rows} rows.
     */
    static JobClient startGeneratedWriter(
            StreamTableEnvironment tEnv, String table, String nType, String columns, int rows)
            throws Exception {
        String generator = "gen_" + nType.toLowerCase(Locale.ROOT);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE IF NOT EXISTS "
                        + generator
                        + " (id INT, v STRING, n "
                        + nType
                        + ") WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '50', "
                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '100', "
                        + "'fields.id.end' = '1000000', 'fields.v.length' = '4')");
        JobClient writer =
                tEnv.executeSql(
                                "INSERT INTO lake."
                                        + table
                                        + " SELECT "
                                        + columns
                                        + " FROM "
                                        + generator)
                        .getJobClient()
                        .orElseThrow();
        Await.until(() -> countAll(table) >= rows, "rows of the running writer in the union read");
        return writer;
    }

    private static long countAll(String table) {
        return LakeSqlEnvironments.count(environments.batch(), "lake." + table);
    }

    /** The union read of a session planned now. */
    static List<Row> all(String table) {
        return CollectionUtil.iteratorToList(
                environments.batch().executeSql("SELECT * FROM lake." + table).collect());
    }

    /** Paimon's own read of the same table. */
    static List<Row> allOfPaimon(String table) {
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
