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

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.FileStoreTable;

import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.server.testutils.FlussClusterExtension;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A table whose partitions roll, as an hourly table's do, on a Fluss cluster that allows a table
 * {@value #PARTITION_LIMIT} partitions: it writes twice as many partitions as that and keeps
 * writing, because every partition dropped from the table loses its stream partition too, whoever
 * dropped it (this project's catalog, Paimon's own catalog, Paimon's procedures, partition expiry).
 * After every step the union read equals Paimon's read of the same table, and the stream table
 * holds the table's live partitions only; a dropped partition written again starts over.
 *
 * <p>The partition limit is a cluster option of Fluss, so this class runs its own small cluster
 * (about ten seconds of start and stop) rather than lowering the limit of the shared one, on which
 * other tests create hundreds of partitions in one table.
 */
@ExtendWith(SharedMiniCluster.class)
class PartitionLifecycleITCase {

    private static final int PARTITION_LIMIT = 4;

    @RegisterExtension
    static final FlussClusterExtension SMALL_FLUSS =
            FlussClusterExtension.builder()
                    .setNumOfTabletServers(1)
                    .setClusterConf(partitionLimit())
                    .build();

    @TempDir static Path warehouse;

    private static Configuration partitionLimit() {
        Configuration conf = new Configuration();
        conf.set(ConfigOptions.MAX_PARTITION_NUM, PARTITION_LIMIT);
        return conf;
    }

    @Test
    void aRollingTableRunsPastTheStorePartitionLimit() throws Exception {
        TableEnvironment tEnv = batch();
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake.db").await();
        tEnv.executeSql(
                        "CREATE TABLE lake.db.hourly (hr STRING, id INT, v STRING) "
                                + "PARTITIONED BY (hr) WITH ('bucket' = '2', 'bucket-key' = 'id')")
                .await();
        tEnv.executeSql("ALTER TABLE lake.db.hourly SET ('lake-stream.enabled' = 'true')").await();

        int partitions = 2 * PARTITION_LIMIT;
        for (int i = 0; i < partitions; i++) {
            tEnv.executeSql(
                            String.format(
                                    "INSERT INTO lake.db.hourly VALUES ('%s', %d, 'a'), "
                                            + "('%s', %d, 'b'), ('%s', %d, 'c')",
                                    hour(i), 3 * i, hour(i), 3 * i + 1, hour(i), 3 * i + 2))
                    .await();
            // the commit dropped the stream partitions of what was dropped before it
            assertSameAsPaimon(tEnv, "after writing " + hour(i));
            assertThat(streamPartitions(tEnv))
                    .as("stream partitions after writing %s", hour(i))
                    .isEqualTo(paimonPartitions(tEnv));
            if (i >= 1) {
                dropPartition(tEnv, i, hour(i - 1));
                assertSameAsPaimon(tEnv, "after dropping " + hour(i - 1));
            }
        }

        // a dropped partition written again: its logs start over at offset 0, and neither the
        // commit nor the read takes the old offsets for the new records
        tEnv.executeSql(
                        String.format(
                                "INSERT INTO lake.db.hourly VALUES ('%s', 100, 'again'), "
                                        + "('%s', 101, 'again')",
                                hour(1), hour(1)))
                .await();
        assertSameAsPaimon(tEnv, "after writing " + hour(1) + " again");
        assertThat(streamPartitions(tEnv)).isEqualTo(paimonPartitions(tEnv));

        // partition expiry, by Paimon's procedure: every partition here is in the past
        tEnv.executeSql(
                        "CALL paimon.sys.expire_partitions(`table` => 'db.hourly', "
                                + "expiration_time => '1 d', "
                                + "timestamp_formatter => 'yyyyMMddHH')")
                .await();
        assertThat(paimonPartitions(tEnv)).isEmpty();
        assertSameAsPaimon(tEnv, "after the expiry");
        tEnv.executeSql("INSERT INTO lake.db.hourly VALUES ('2030010100', 1, 'later')").await();
        assertSameAsPaimon(tEnv, "after writing past the expiry");
        assertThat(streamPartitions(tEnv)).containsExactly("2030010100");
    }

    /**
     * Drops {@code hour} in one of four ways, taking turns: the ways that bypass this project's
     * catalog are followed at the next commit.
     */
    private static void dropPartition(TableEnvironment tEnv, int step, String hour)
            throws Exception {
        switch (step % 4) {
            case 0:
                tEnv.executeSql("ALTER TABLE lake.db.hourly DROP PARTITION (hr = '" + hour + "')")
                        .await();
                // no job writes the table: the catalog dropped the stream partition at once
                assertThat(streamPartitions(tEnv)).isEqualTo(paimonPartitions(tEnv));
                break;
            case 1:
                tEnv.executeSql("ALTER TABLE paimon.db.hourly DROP PARTITION (hr = '" + hour + "')")
                        .await();
                break;
            case 2:
                tEnv.executeSql("CALL paimon.sys.drop_partition('db.hourly', 'hr=" + hour + "')")
                        .await();
                break;
            default:
                tEnv.executeSql("CALL lake.sys.drop_partition('db.hourly', 'hr=" + hour + "')")
                        .await();
                break;
        }
    }

    private static String hour(int i) {
        return String.format("20260101%02d", i);
    }

    private static void assertSameAsPaimon(TableEnvironment tEnv, String when) {
        assertThat(rows(tEnv, "lake")).as("union read " + when).isEqualTo(rows(tEnv, "paimon"));
    }

    private static List<String> rows(TableEnvironment tEnv, String catalog) {
        List<Row> rows =
                CollectionUtil.iteratorToList(
                        tEnv.executeSql("SELECT * FROM " + catalog + ".db.hourly").collect());
        return rows.stream().map(Row::toString).sorted().collect(Collectors.toList());
    }

    private static Set<String> paimonPartitions(TableEnvironment tEnv) {
        List<Row> rows =
                CollectionUtil.iteratorToList(
                        tEnv.executeSql("SELECT DISTINCT hr FROM paimon.db.hourly").collect());
        Set<String> partitions = new TreeSet<>();
        rows.forEach(row -> partitions.add((String) row.getField(0)));
        return partitions;
    }

    private static Set<String> streamPartitions(TableEnvironment tEnv) throws Exception {
        FileStoreTable table = LakeSqlEnvironments.paimonTable(tEnv, "db.hourly");
        try (StreamStore store =
                StreamStoreLoader.create(
                        storeOptions(), PartitionLifecycleITCase.class.getClassLoader())) {
            StreamTable streamTable =
                    store.get(StreamTableSpec.of(Identifier.create("db", "hourly"), table));
            Set<String> partitions = new TreeSet<>();
            for (BinaryRow partition : store.listPartitions(streamTable)) {
                partitions.add(partition.getString(0).toString());
            }
            return partitions;
        }
    }

    private static Map<String, String> storeOptions() {
        Map<String, String> options = new HashMap<>();
        options.put(LakeStreamOptions.STORE.key(), "fluss");
        options.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "bootstrap.servers",
                SMALL_FLUSS.getBootstrapServers());
        return options;
    }

    private static TableEnvironment batch() {
        StreamTableEnvironment tEnv = LakeSqlEnvironments.plainBatch();
        List<String> ddl = new ArrayList<>();
        ddl.add(
                String.format(
                        "CREATE CATALOG lake WITH ('type' = 'paimon-lakestream', "
                                + "'warehouse' = '%s', "
                                + "'lake-stream.fluss.bootstrap.servers' = '%s', "
                                + "'lake-stream.sink.writer-lease-timeout' = '1 s')",
                        warehouse.toUri(), SMALL_FLUSS.getBootstrapServers()));
        ddl.add(
                String.format(
                        "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '%s')",
                        warehouse.toUri()));
        ddl.forEach(tEnv::executeSql);
        return tEnv;
    }
}
