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
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two warehouses, each with an enabled {@code db.orders}, on one Fluss cluster (invariant "one
 * stream table, one owner"): without a database prefix the second table is refused the first one's
 * stream table; with a prefix per catalog both run side by side, never read each other's records
 * and never drop each other's stream table.
 */
@ExtendWith({SharedFlussCluster.class, SharedMiniCluster.class})
class TwoWarehousesOneFlussClusterITCase {

    private static final String ORDERS_DDL =
            "CREATE TABLE %s.db.orders (id BIGINT, amount BIGINT, PRIMARY KEY (id) NOT ENFORCED)"
                    + " WITH ('bucket' = '2')";

    @TempDir Path firstWarehouse;
    @TempDir Path secondWarehouse;

    private static String catalogDdl(String name, Path warehouse, String prefix) {
        return String.format(
                "CREATE CATALOG %s WITH ('type' = 'paimon-lakestream', 'warehouse' = '%s', "
                        + "'lake-stream.fluss.bootstrap.servers' = '%s', "
                        + "'lake-stream.sink.writer-lease-timeout' = '1 s', "
                        // two catalogs over one warehouse below: each sees the other's changes
                        + "'cache-enabled' = 'false'%s)",
                name,
                warehouse.toUri(),
                SharedFlussCluster.bootstrapServers(),
                prefix == null
                        ? ""
                        : String.format(
                                ", '%s' = '%s'",
                                LakeStreamOptions.STORE_DATABASE_PREFIX.key(), prefix));
    }

    /** A batch environment with the catalogs {@code wh1} and {@code wh2}. */
    private TableEnvironment batch(String firstPrefix, String secondPrefix) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        tEnv.executeSql(catalogDdl("wh1", firstWarehouse, firstPrefix));
        tEnv.executeSql(catalogDdl("wh2", secondWarehouse, secondPrefix));
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS wh1.db");
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS wh2.db");
        return tEnv;
    }

    /** A streaming environment with the catalog {@code name}, whose checkpoints are far away. */
    private static StreamTableEnvironment streaming(String name, Path warehouse, String prefix) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(Duration.ofMinutes(10).toMillis());
        env.getCheckpointConfig().setMinPauseBetweenCheckpoints(Duration.ofMinutes(10).toMillis());
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(catalogDdl(name, warehouse, prefix));
        return tEnv;
    }

    private static FileStoreTable paimonTable(TableEnvironment tEnv, String catalog)
            throws Exception {
        LakeStreamPaimonCatalog paimon =
                (LakeStreamPaimonCatalog)
                        ((LakeStreamFlinkCatalog) tEnv.getCatalog(catalog).orElseThrow()).catalog();
        return (FileStoreTable) paimon.getTable(Identifier.create("db", "orders"));
    }

    private static StreamStore store(String prefix) {
        Map<String, String> options = SharedFlussCluster.lakeStreamOptions();
        options.put(LakeStreamOptions.STORE_DATABASE_PREFIX.key(), prefix);
        return StreamStoreLoader.create(
                options, TwoWarehousesOneFlussClusterITCase.class.getClassLoader());
    }

    @Test
    void withoutAPrefixTheSecondWarehouseIsRefusedTheFirstOnesStreamTable() throws Exception {
        TableEnvironment tEnv = batch(null, null);
        tEnv.executeSql(String.format(ORDERS_DDL, "wh1"));
        tEnv.executeSql("ALTER TABLE wh1.db.orders SET ('lake-stream.enabled' = 'true')");
        tEnv.executeSql("INSERT INTO wh1.db.orders VALUES (1, 10), (2, 20), (3, 30)").await();
        tEnv.executeSql(String.format(ORDERS_DDL, "wh2"));
        tEnv.executeSql("INSERT INTO wh2.db.orders VALUES (7, 70), (8, 80)").await();
        String firstLocation = paimonTable(tEnv, "wh1").location().toString();
        String secondLocation = paimonTable(tEnv, "wh2").location().toString();

        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "ALTER TABLE wh2.db.orders SET ("
                                                + "'lake-stream.enabled' = 'true')"))
                .satisfies(
                        e -> {
                            String message = ExceptionUtils.stringifyException(e);
                            assertThat(message)
                                    .contains("Cannot enable lake-stream mode on table db.orders")
                                    .contains("The stream table db.orders in the Fluss cluster")
                                    .contains("belongs to the Paimon table at " + firstLocation)
                                    .contains("not to Paimon table db.orders at " + secondLocation)
                                    .contains("'lake-stream.store.database-prefix'");
                        });
        assertThat(paimonTable(tEnv, "wh2").options())
                .as("the refused table stays out of lake-stream mode")
                .doesNotContainKey(LakeStreamOptions.ENABLED.key());
        assertThat(count(tEnv, "wh2.db.orders")).isEqualTo(2);

        // the second warehouse enables its table through a catalog with a prefix; a second
        // definition of that catalog without the prefix (a misconfiguration) now sees an enabled
        // table whose stream table under the unprefixed name is the first warehouse's
        tEnv.executeSql(catalogDdl("wh2_prefixed", secondWarehouse, "wh2_"));
        tEnv.executeSql("ALTER TABLE wh2_prefixed.db.orders SET ('lake-stream.enabled' = 'true')");
        for (String refused :
                new String[] {
                    "INSERT INTO wh2.db.orders VALUES (9, 90)",
                    "SELECT * FROM wh2.db.orders",
                    "CALL wh2.sys.lake_stream_status(`table` => 'db.orders')",
                    "CALL wh2.sys.disable_lake_stream(`table` => 'db.orders', "
                            + "drop_stream_table => true)"
                }) {
            assertThatThrownBy(
                            () -> CollectionUtil.iteratorToList(tEnv.executeSql(refused).collect()))
                    .as(refused)
                    .satisfies(
                            e ->
                                    assertThat(ExceptionUtils.stringifyException(e))
                                            .contains(
                                                    "belongs to the Paimon table at "
                                                            + firstLocation));
        }
        // the disabling went through, its drop did not: enable again for the DROP TABLE below
        tEnv.executeSql("ALTER TABLE wh2_prefixed.db.orders SET ('lake-stream.enabled' = 'true')");
        tEnv.executeSql("DROP TABLE wh2.db.orders");

        assertThat(count(tEnv, "wh1.db.orders")).isEqualTo(3);
        try (StreamStore store = store("")) {
            StreamTable kept =
                    store.get(
                            StreamTableSpec.of(
                                    Identifier.create("db", "orders"), paimonTable(tEnv, "wh1")));
            assertThat(kept.storeTableName()).isEqualTo("db.orders");
        }
        tEnv.executeSql("DROP TABLE wh1.db.orders");
    }

    /**
     * With a prefix per catalog: fresh records of one table, in the store and not yet in Paimon,
     * are read by a union read of that table alone; the other table's union read equals Paimon's
     * own read of it. Dropping one table leaves the other's stream table and records as they were.
     */
    @Test
    void withAPrefixPerCatalogTheTablesNeverSeeOrDropEachOthersRecords() throws Exception {
        TableEnvironment tEnv = batch("wh1_", "wh2_");
        for (String catalog : new String[] {"wh1", "wh2"}) {
            tEnv.executeSql(String.format(ORDERS_DDL, catalog));
            tEnv.executeSql(
                    "ALTER TABLE " + catalog + ".db.orders SET ('lake-stream.enabled' = 'true')");
        }
        tEnv.executeSql("INSERT INTO wh1.db.orders VALUES (1, 10), (2, 20), (3, 30)").await();
        tEnv.executeSql("INSERT INTO wh2.db.orders VALUES (1, 11), (2, 21)").await();

        // records of the second table that only the store holds: its checkpoint is far away
        StreamTableEnvironment writer = streaming("wh2", secondWarehouse, "wh2_");
        writer.executeSql(
                "CREATE TEMPORARY TABLE gen (id BIGINT, amount BIGINT) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '50', "
                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '100', "
                        + "'fields.id.end' = '100000')");
        // the job keeps writing while the tables are read: the store's records past the last
        // commit are read only while a job holds the table's writer lease
        TableResult insert = writer.executeSql("INSERT INTO wh2.db.orders SELECT * FROM gen");
        try {
            Await.until(
                    () -> count(tEnv, "wh2.db.orders") > 2,
                    "the second table's union read sees records Paimon has not committed");
            assertReadsStayApartWhileOneIsDropped(tEnv);
        } finally {
            insert.getJobClient().orElseThrow().cancel().get();
        }
        tEnv.executeSql("DROP TABLE wh2.db.orders");
    }

    private void assertReadsStayApartWhileOneIsDropped(TableEnvironment tEnv) throws Exception {
        long[] before = counts(tEnv);
        assertThat(before[0])
                .as("the first table reads none of the second's records")
                .isEqualTo(before[1])
                .isEqualTo(3);
        assertThat(before[3]).as("Paimon's own read of the second table").isEqualTo(2);
        assertThat(before[2]).as("the second table reads its fresh records").isGreaterThan(2);

        try (StreamStore first = store("wh1_");
                StreamStore second = store("wh2_")) {
            StreamTableSpec firstSpec =
                    StreamTableSpec.of(Identifier.create("db", "orders"), paimonTable(tEnv, "wh1"));
            StreamTableSpec secondSpec =
                    StreamTableSpec.of(Identifier.create("db", "orders"), paimonTable(tEnv, "wh2"));
            assertThat(first.get(firstSpec).storeTableName()).isEqualTo("wh1_db.orders");
            StreamTable secondTable = second.get(secondSpec);
            assertThat(secondTable.storeTableName()).isEqualTo("wh2_db.orders");

            tEnv.executeSql("DROP TABLE wh1.db.orders");

            assertThatThrownBy(() -> first.get(firstSpec)).hasMessageContaining("does not exist");
            assertThat(second.get(secondSpec))
                    .as("the second table's stream table is the same one")
                    .isEqualTo(secondTable);
        }
        assertThat(count(tEnv, "wh2.db.orders"))
                .as("the second table still reads its fresh records from the store")
                .isGreaterThanOrEqualTo(before[2]);
    }

    /**
     * In one job: the union read and Paimon's own read of the first table, then of the second. One
     * job instead of four: each costs seconds on a small machine.
     */
    private static long[] counts(TableEnvironment tEnv) {
        String lakeOnly = " /*+ OPTIONS('lake-stream.read.lake-only' = 'true') */";
        List<Row> rows =
                CollectionUtil.iteratorToList(
                        tEnv.executeSql(
                                        "SELECT 0, COUNT(*) FROM wh1.db.orders UNION ALL "
                                                + "SELECT 1, COUNT(*) FROM wh1.db.orders"
                                                + lakeOnly
                                                + " UNION ALL "
                                                + "SELECT 2, COUNT(*) FROM wh2.db.orders UNION ALL "
                                                + "SELECT 3, COUNT(*) FROM wh2.db.orders"
                                                + lakeOnly)
                                .collect());
        long[] counts = new long[4];
        for (Row row : rows) {
            counts[(Integer) row.getField(0)] = (Long) row.getField(1);
        }
        return counts;
    }
}
