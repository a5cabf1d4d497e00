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

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ALTER TABLE ... ADD} on a table in lake-stream mode while a streaming INSERT and a
 * streaming SELECT run: the column reaches the stream table, the running jobs go on with the
 * columns they were planned with (as Paimon's own jobs do), and jobs planned after the change see
 * the new column, null in rows written before it.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamSchemaChangeITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static LakeSqlEnvironments environments;

    @BeforeAll
    static void createDatabase() {
        environments = new LakeSqlEnvironments(warehouse);
        environments.streaming(null);
    }

    @ParameterizedTest(name = "primary key: {0}")
    @ValueSource(booleans = {false, true})
    void anAddedColumnReachesTheStreamTableWhileJobsRun(boolean primaryKey) throws Exception {
        String table = primaryKey ? "db.added_pk" : "db.added_append";
        StreamTableEnvironment tEnv = environments.streaming(Duration.ofSeconds(2));
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (id INT, v STRING"
                        + (primaryKey ? ", PRIMARY KEY (id) NOT ENFORCED" : "")
                        + ") WITH ('bucket' = '2', 'lake-stream.enabled' = 'false'"
                        + (primaryKey ? "" : ", 'bucket-key' = 'id'")
                        + ")");
        tEnv.executeSql("INSERT INTO lake." + table + " VALUES (1, 'a'), (2, 'b')").await();
        tEnv.executeSql("ALTER TABLE lake." + table + " SET ('lake-stream.enabled' = 'true')");

        tEnv.executeSql(
                "CREATE TEMPORARY TABLE gen (id INT, v STRING) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '100', "
                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '100', "
                        + "'fields.id.end' = '1000000', 'fields.v.length' = '4')");
        TableResult oldWriter = tEnv.executeSql("INSERT INTO lake." + table + " SELECT * FROM gen");
        StreamTableEnvironment readers = environments.streaming(null);
        try (CloseableIterator<Row> oldReader =
                readers.executeSql("SELECT * FROM lake." + table).collect()) {
            int maxBefore = readUntil(oldReader, 120, 2);

            long schemaBefore = paimonTable(tEnv, table).schema().id();
            tEnv.executeSql("ALTER TABLE lake." + table + " ADD note STRING AFTER id");
            assertThat(paimonTable(tEnv, table).schema().id()).isEqualTo(schemaBefore + 1);

            // the jobs planned before the change go on: rows written after it reach the reader,
            // and the writer commits them
            long snapshotAfterChange = latestSnapshot(tEnv, table);
            int maxAfter = readUntil(oldReader, maxBefore + 300, 2);
            assertThat(maxAfter).isGreaterThanOrEqualTo(maxBefore + 300);
            Await.until(
                    () -> latestSnapshot(tEnv, table) > snapshotAfterChange,
                    "a commit of the job planned before the change");
            oldWriter.getJobClient().orElseThrow().cancel().get();

            // a job planned after the change writes the new column (it takes the writer lease
            // over from the cancelled job within the lease timeout)
            tEnv.executeSql("INSERT INTO lake." + table + " VALUES (-1, 'noted', 'marker')")
                    .await();
            // the old reader gets that row too, without the column it does not know
            readUntilId(oldReader, -1, 2);
        }

        // a batch read planned after the change: the new column, null where written before it
        TableEnvironment batch = environments.batch();
        Map<Integer, Row> rows = new HashMap<>();
        for (Row row :
                CollectionUtil.iteratorToList(
                        batch.executeSql("SELECT * FROM lake." + table).collect())) {
            assertThat(row.getArity()).isEqualTo(3);
            rows.put((Integer) row.getField(0), row);
        }
        assertThat(rows.get(-1).getField(1)).isEqualTo("noted");
        assertThat(rows.get(1).getField(1)).isNull();
        assertThat(rows.get(1).getField(2)).isEqualTo("a");
        assertThat(rows.get(150).getField(1)).isNull();
        assertThat(rows.get(150).getField(2)).asString().hasSize(4);

        // so does a streaming read (in a new session: a session's catalog caches tables)
        try (CloseableIterator<Row> newReader =
                environments.streaming(null).executeSql("SELECT * FROM lake." + table).collect()) {
            boolean sawMarker = false;
            while (!sawMarker) {
                Row row = newReader.next();
                assertThat(row.getArity()).isEqualTo(3);
                sawMarker = row.getField(0).equals(-1);
                if (sawMarker) {
                    assertThat(row.getField(1)).isEqualTo("noted");
                    assertThat(row.getKind()).isEqualTo(RowKind.INSERT);
                }
            }
        }
    }

    /**
     * A column added through Paimon's own catalog, behind the lake-stream catalog's back (as a CDC
     * action or Spark adds one): the next read and the next writer add it to the stream table
     * themselves, and the union read equals Paimon's read, before and after a write with the new
     * column. Re-enabling the table is no longer needed.
     */
    @Test
    void aColumnAddedThroughPaimonsCatalogIsFollowedWithoutHelp() throws Exception {
        StreamTableEnvironment tEnv = environments.streaming(Duration.ofSeconds(1));
        tEnv.executeSql(
                "CREATE TABLE lake.db.missed (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('bucket' = '2')");
        tEnv.executeSql("CALL lake.sys.enable_lake_stream(`table` => 'db.missed')");
        tEnv.executeSql("INSERT INTO lake.db.missed VALUES (1, 'a')").await();
        // Paimon's schema changes behind the lake-stream catalog's back
        LakeSqlEnvironments.paimonCatalog(tEnv)
                .wrapped()
                .alterTable(
                        Identifier.fromString("db.missed"),
                        Collections.singletonList(SchemaChange.addColumn("extra", DataTypes.INT())),
                        false);

        TableEnvironment batch = environments.batch();
        batch.executeSql(
                "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse.toUri()
                        + "')");
        assertThat(rows(batch, "lake.db.missed")).hasToString("[+I[1, a, null]]");

        StreamTableEnvironment fresh = environments.streaming(Duration.ofSeconds(1));
        fresh.executeSql("INSERT INTO lake.db.missed VALUES (2, 'b', 20)").await();
        assertThat(rows(batch, "lake.db.missed"))
                .hasToString("[+I[1, a, null], +I[2, b, 20]]")
                .isEqualTo(rows(batch, "paimon.db.missed"));
    }

    private static List<Row> rows(TableEnvironment tEnv, String table) {
        return CollectionUtil.iteratorToList(
                tEnv.executeSql("SELECT * FROM " + table + " ORDER BY id").collect());
    }

    private static long latestSnapshot(TableEnvironment tEnv, String table) throws Exception {
        Long latest = paimonTable(tEnv, table).snapshotManager().latestSnapshotId();
        return latest == null ? 0 : latest;
    }

    /** Reads rows of {@code arity} until one has an id of at least {@code id}; the largest id. */
    private static int readUntil(CloseableIterator<Row> rows, int id, int arity) {
        int max = Integer.MIN_VALUE;
        while (max < id) {
            Row row = rows.next();
            assertThat(row.getArity()).isEqualTo(arity);
            max = Math.max(max, (Integer) row.getField(0));
        }
        return max;
    }

    private static void readUntilId(CloseableIterator<Row> rows, int id, int arity) {
        while (true) {
            Row row = rows.next();
            assertThat(row.getArity()).isEqualTo(arity);
            if (row.getField(0).equals(id)) {
                return;
            }
        }
    }
}
