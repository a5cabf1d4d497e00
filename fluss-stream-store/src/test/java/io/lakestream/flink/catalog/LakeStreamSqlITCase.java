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
import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.table.LakeStreamEnablement;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.count;
import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonCatalog;
import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Lake-stream mode in Flink SQL alone, through a {@code paimon-lakestream} catalog on real Fluss, a
 * MiniCluster and a local Paimon warehouse: the whole life of a table, and the errors of bad input.
 */
@ExtendWith({SharedFlussCluster.class, SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamSqlITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static LakeSqlEnvironments environments;

    private static StreamTableEnvironment streaming(Duration checkpointInterval) {
        return environments.streaming(checkpointInterval);
    }

    private static TableEnvironment batch() {
        return environments.batch();
    }

    @BeforeAll
    static void createDatabase() {
        environments = new LakeSqlEnvironments(warehouse);
        streaming(Duration.ofSeconds(1));
    }

    private static long snapshots(TableEnvironment tEnv, String table) throws Exception {
        FileStoreTable paimon = paimonTable(tEnv, table);
        Long latest = paimon.snapshotManager().latestSnapshotId();
        return latest == null ? 0 : latest;
    }

    /**
     * Create with data, enable by ALTER, a streaming INSERT whose checkpoint is ten minutes away, a
     * streaming SELECT that sees its rows before any commit, a batch SELECT that sees them too,
     * status rows, disable, enable again by procedure, drop.
     */
    @ParameterizedTest(name = "primary key: {0}")
    @ValueSource(booleans = {false, true})
    void theWholeLifeOfATableInSql(boolean primaryKey) throws Exception {
        String name = primaryKey ? "life_pk" : "life_append";
        String table = "db." + name;
        StreamTableEnvironment tEnv = streaming(Duration.ofMinutes(10));
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (dt INT, id INT, v BIGINT"
                        + (primaryKey ? ", PRIMARY KEY (dt, id) NOT ENFORCED" : "")
                        + ") PARTITIONED BY (dt) WITH ('bucket' = '2'"
                        + (primaryKey ? "" : ", 'bucket-key' = 'id'")
                        + ")");
        tEnv.executeSql("INSERT INTO lake." + table + " VALUES (1, 1, 10), (1, 2, 20), (2, 3, 30)")
                .await();

        tEnv.executeSql("ALTER TABLE lake." + table + " SET ('lake-stream.enabled' = 'true')");
        long snapshotsAfterEnable = snapshots(tEnv, table);

        tEnv.executeSql(
                "CREATE TEMPORARY TABLE gen_"
                        + name
                        + " (dt INT, id INT, v BIGINT) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '50', "
                        + "'fields.dt.min' = '1', 'fields.dt.max' = '3', "
                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '100', "
                        + "'fields.id.end' = '1000000')");
        TableResult insert =
                tEnv.executeSql("INSERT INTO lake." + table + " SELECT * FROM gen_" + name);
        // without checkpoints: a collecting job with checkpoints hands rows over at checkpoints
        StreamTableEnvironment reader = streaming(null);
        try (CloseableIterator<Row> rows =
                reader.executeSql("SELECT * FROM lake." + table).collect()) {
            boolean sawNewRow = false;
            while (!sawNewRow) {
                Row row = rows.next();
                sawNewRow = (Integer) row.getField(1) >= 100;
            }
            assertThat(snapshots(tEnv, table))
                    .as("the new rows arrived before any commit")
                    .isEqualTo(snapshotsAfterEnable);

            TableEnvironment batch = batch();
            assertThat(count(batch, "lake." + table))
                    .as("a batch union read counts the uncommitted rows too")
                    .isGreaterThan(3);
            assertThat(
                            count(
                                    batch,
                                    "lake."
                                            + table
                                            + " /*+ OPTIONS('lake-stream.read.lake-only' ="
                                            + " 'true') */"))
                    .as("a hinted lake-only read counts the committed rows alone")
                    .isEqualTo(3);
            List<Row> status =
                    CollectionUtil.iteratorToList(
                            tEnv.executeSql(
                                            "CALL lake.sys.lake_stream_status(`table` => '"
                                                    + table
                                                    + "')")
                                    .collect());
            System.out.println("lake_stream_status of " + table + ": " + status);
            assertThat(status).isNotEmpty();
            assertThat(status.stream().mapToLong(r -> (Long) r.getField(5)).sum())
                    .as("records readable but not yet tiered")
                    .isPositive();
        } finally {
            insert.getJobClient().orElseThrow().cancel().get();
        }
        // enabling is refused while the cancelled job's writer lease lasts
        LakeSqlEnvironments.awaitWriterLeaseExpired(
                tEnv, table, LakeSqlEnvironments.WRITER_LEASE_TIMEOUT);

        // disabled: reads read Paimon alone, which holds the three committed rows
        tEnv.executeSql("ALTER TABLE lake." + table + " SET ('lake-stream.enabled' = 'false')");
        assertThat(count(batch(), "lake." + table)).isEqualTo(3);

        // enabled again by the procedure
        List<Row> enabled =
                CollectionUtil.iteratorToList(
                        tEnv.executeSql(
                                        "CALL lake.sys.enable_lake_stream(`table` => '"
                                                + table
                                                + "')")
                                .collect());
        assertThat(enabled.toString()).contains("enabled");
        assertThat(
                        tEnv.getCatalog("lake")
                                .orElseThrow()
                                .getTable(new ObjectPath("db", name))
                                .getOptions())
                .containsEntry("lake-stream.enabled", "true");

        // dropped: the stream table goes with it
        FileStoreTable paimon =
                (FileStoreTable) paimonCatalog(tEnv).getTable(Identifier.fromString(table));
        StreamTableSpec spec = StreamTableSpec.of(Identifier.fromString(table), paimon);
        tEnv.executeSql("DROP TABLE lake." + table);
        try (StreamStore store = SharedFlussCluster.newStore()) {
            assertThatThrownBy(() -> store.get(spec)).hasMessageContaining("does not exist");
        }
    }

    /**
     * An enablement that stopped after creating the stream table and recording its start offsets,
     * before the option was written, is completed by enabling again.
     */
    @Test
    void anEnablementStoppedHalfwayIsCompletedByRunningItAgain() throws Exception {
        StreamTableEnvironment tEnv = streaming(Duration.ofSeconds(1));
        tEnv.executeSql(
                "CREATE TABLE lake.db.halfway (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('bucket' = '2')");
        tEnv.executeSql("INSERT INTO lake.db.halfway VALUES (1, 'a'), (2, 'b')").await();
        LakeStreamEnablement enablement = paimonCatalog(tEnv).enablement();
        Identifier identifier = Identifier.fromString("db.halfway");
        FileStoreTable table = enablement.fileStoreTable(identifier);
        // the first two steps, then the operation dies
        enablement.recordStartOffsets(identifier, table, enablement.provision(identifier, table));
        assertThat(LakeStreamEnablement.isEnabled(enablement.fileStoreTable(identifier).options()))
                .isFalse();

        tEnv.executeSql("ALTER TABLE lake.db.halfway SET ('lake-stream.enabled' = 'true')");
        tEnv.executeSql("INSERT INTO lake.db.halfway VALUES (3, 'c')").await();
        assertThat(count(batch(), "lake.db.halfway")).isEqualTo(3);
        List<Row> status =
                CollectionUtil.iteratorToList(
                        tEnv.executeSql("CALL lake.sys.lake_stream_status(`table` => 'db.halfway')")
                                .collect());
        assertThat(status.stream().mapToLong(r -> (Long) r.getField(2)).sum())
                .as("the committed record is tiered")
                .isEqualTo(1);
    }

    /**
     * System tables and Paimon's own procedures work through the lake-stream catalog. Catalog views
     * are Paimon's too: the filesystem metastore of this test has none, as with Paimon's catalog.
     */
    @Test
    void theCatalogServesWhatPaimonsCatalogServes() throws Exception {
        StreamTableEnvironment tEnv = streaming(Duration.ofSeconds(1));
        tEnv.executeSql(
                "CREATE TABLE lake.db.served (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        TableEnvironment batch = batch();
        batch.executeSql("INSERT INTO lake.db.served VALUES (1, 'a'), (2, 'b'), (3, 'c')").await();

        List<Row> snapshots =
                CollectionUtil.iteratorToList(
                        batch.executeSql("SELECT commit_kind FROM lake.db.`served$snapshots`")
                                .collect());
        assertThat(snapshots).as("the data commit").isNotEmpty();

        // a view of the session over the table reads through the lake-stream source
        batch.executeSql(
                "CREATE TEMPORARY VIEW served_view AS SELECT id FROM lake.db.served WHERE id > 1");
        assertThat(count(batch, "served_view")).isEqualTo(2);

        tEnv.executeSql("CALL lake.sys.create_tag(`table` => 'db.served', tag => 'first')").await();
        List<Row> tags =
                CollectionUtil.iteratorToList(
                        batch.executeSql("SELECT tag_name FROM lake.db.`served$tags`").collect());
        assertThat(tags.toString()).contains("first");
    }

    @Test
    void badInputIsRefusedWithAnErrorThatNamesIt() throws Exception {
        StreamTableEnvironment tEnv = streaming(Duration.ofSeconds(1));
        tEnv.executeSql(
                "CREATE TABLE lake.db.dynamic_bucket (id INT, v STRING, PRIMARY KEY (id) NOT"
                        + " ENFORCED)");
        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "ALTER TABLE lake.db.dynamic_bucket SET"
                                                + " ('lake-stream.enabled' = 'true')"))
                .hasStackTraceContaining("db.dynamic_bucket")
                .hasStackTraceContaining("fixed bucket");

        // created in lake-stream mode: refused as a whole, nothing is left behind
        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "CREATE TABLE lake.db.dynamic_enabled (id INT, v STRING,"
                                                + " PRIMARY KEY (id) NOT ENFORCED) WITH"
                                                + " ('lake-stream.enabled' = 'true')"))
                .hasStackTraceContaining("db.dynamic_enabled")
                .hasStackTraceContaining("fixed bucket");
        assertThat(
                        tEnv.getCatalog("lake")
                                .orElseThrow()
                                .tableExists(new ObjectPath("db", "dynamic_enabled")))
                .isFalse();

        tEnv.executeSql(
                "CREATE TABLE lake.db.nested (id INT, tags ARRAY<STRING>) WITH ('bucket' = '1',"
                        + " 'bucket-key' = 'id')");
        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "CALL lake.sys.enable_lake_stream(`table` =>"
                                                + " 'db.nested')"))
                .hasStackTraceContaining("tags");

        tEnv.executeSql(
                "CREATE TABLE lake.db.plain (id INT, v STRING, n INT, PRIMARY KEY (id) NOT"
                        + " ENFORCED) WITH ('bucket' = '2')");
        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "CALL lake.sys.enable_lake_stream(`table` => 'db.plain',"
                                                + " options => 'lake-stream.store=nope')"))
                .hasStackTraceContaining("nope")
                .hasStackTraceContaining("fluss");
        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "CALL lake.sys.enable_lake_stream(`table` => 'db.plain',"
                                                + " options => 'not-a-pair')"))
                .hasStackTraceContaining("'options'")
                .hasStackTraceContaining("not-a-pair");
        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "CALL lake.sys.enable_lake_stream(`table` =>"
                                                + " 'db.missing')"))
                .hasStackTraceContaining("db.missing");

        tEnv.executeSql("CALL lake.sys.enable_lake_stream(`table` => 'db.plain')");
        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "CALL lake.sys.enable_lake_stream(`table` => 'db.plain')"))
                .hasStackTraceContaining("already in lake-stream mode");
        // schema changes the stream table cannot follow change nothing (renames and drops are
        // followed by field id: FieldIdSchemaChangeITCase)
        long schemaId = paimonTable(tEnv, "db.plain").schema().id();
        assertThatThrownBy(() -> tEnv.executeSql("ALTER TABLE lake.db.plain MODIFY n BIGINT"))
                .hasStackTraceContaining("db.plain is in lake-stream mode")
                .hasStackTraceContaining("turn column 'n' of table db.plain from INT into BIGINT");
        assertThatThrownBy(() -> tEnv.executeSql("ALTER TABLE lake.db.plain SET ('bucket' = '4')"))
                .hasStackTraceContaining("'bucket'");
        assertThat(paimonTable(tEnv, "db.plain").schema().id()).isEqualTo(schemaId);
        assertThatThrownBy(
                        () -> tEnv.executeSql("ALTER TABLE lake.db.plain RENAME TO lake.db.other"))
                .hasStackTraceContaining("cannot be renamed");

        // a catalog whose store cannot be reached: the error names the address
        tEnv.executeSql(
                environments
                        .catalogDdl("unreachable", ", 'lake-stream.store.request-timeout' = '2 s'")
                        .replace(SharedFlussCluster.bootstrapServers(), "127.0.0.1:1"));
        tEnv.executeSql(
                "CREATE TABLE unreachable.db.far (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH"
                        + " ('bucket' = '1')");
        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "ALTER TABLE unreachable.db.far SET"
                                                + " ('lake-stream.enabled' = 'true')"))
                .hasStackTraceContaining("127.0.0.1:1");
        // the enabled table seen through that catalog: its schema does not change without the store
        assertThatThrownBy(() -> tEnv.executeSql("ALTER TABLE unreachable.db.plain ADD extra INT"))
                .hasStackTraceContaining("db.plain")
                .hasStackTraceContaining("127.0.0.1:1");
        assertThat(paimonTable(tEnv, "db.plain").schema().id()).isEqualTo(schemaId);

        List<Row> procedures =
                CollectionUtil.iteratorToList(
                        tEnv.executeSql("SHOW PROCEDURES IN lake.sys").collect());
        assertThat(procedures.toString())
                .contains("enable_lake_stream")
                .contains("disable_lake_stream")
                .contains("lake_stream_status")
                .contains("expire_snapshots");
    }
}
