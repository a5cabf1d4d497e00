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

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReaderIterator;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lookup join against a table in lake-stream mode returns what Paimon's own lookup of the table
 * returns: its committed rows, not the store's uncommitted ones.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamLookupJoinITCase {

    @TempDir static Path warehouse;

    @Test
    void lookupJoinReadsTheCommittedRowsOfAnEnabledTable() throws Exception {
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        StreamTableEnvironment tEnv = environments.streaming(Duration.ofMinutes(10));
        tEnv.executeSql(
                "CREATE TABLE lake.db.dim (k INT, v STRING, PRIMARY KEY (k) NOT ENFORCED)"
                        + " WITH ('bucket' = '2')");
        tEnv.executeSql("INSERT INTO lake.db.dim VALUES (1, 'a'), (2, 'b'), (3, 'c')").await();
        tEnv.executeSql("ALTER TABLE lake.db.dim SET ('lake-stream.enabled' = 'true')");
        // committed through the lake-stream sink: key 2 changes, key 4 appears
        tEnv.executeSql("INSERT INTO lake.db.dim VALUES (2, 'b2'), (4, 'd')").await();

        // an uncommitted change in the store: a streaming INSERT whose checkpoint is far away
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE tail (k INT, v STRING) WITH ("
                        + "'connector' = 'datagen', 'rows-per-second' = '1', "
                        + "'number-of-rows' = '1000', "
                        + "'fields.k.kind' = 'sequence', 'fields.k.start' = '3', "
                        + "'fields.k.end' = '1002', 'fields.v.length' = '3')");
        TableResult insert = tEnv.executeSql("INSERT INTO lake.db.dim SELECT * FROM tail");
        try {
            TableEnvironment batch = environments.batch();
            // the freshest read sees key 3's uncommitted change; the lookup must not
            awaitUnionReadChanged(batch);

            batch.executeSql(
                    "CREATE TEMPORARY TABLE probe (k INT, pt AS PROCTIME()) WITH ("
                            + "'connector' = 'datagen', 'number-of-rows' = '5', "
                            + "'fields.k.kind' = 'sequence', 'fields.k.start' = '1', "
                            + "'fields.k.end' = '5')");
            List<Row> joined =
                    CollectionUtil.iteratorToList(
                            batch.executeSql(
                                            "SELECT p.k, d.v FROM probe AS p "
                                                    + "LEFT JOIN lake.db.dim "
                                                    + "FOR SYSTEM_TIME AS OF p.pt AS d "
                                                    + "ON p.k = d.k")
                                    .collect());

            Map<Integer, String> committed = paimonRead(paimonTable(batch, "db.dim"));
            List<Row> expected = new ArrayList<>();
            for (int k = 1; k <= 5; k++) {
                expected.add(Row.of(k, committed.get(k)));
            }
            assertThat(committed).containsEntry(2, "b2").containsEntry(3, "c");
            assertThat(joined).containsExactlyInAnyOrderElementsOf(expected);
        } finally {
            insert.getJobClient().orElseThrow().cancel().get();
        }
    }

    /** Waits until the batch union read shows the store's change of key 3. */
    private static void awaitUnionReadChanged(TableEnvironment batch) throws Exception {
        Await.until(
                () -> {
                    List<Row> rows =
                            CollectionUtil.iteratorToList(
                                    batch.executeSql("SELECT v FROM lake.db.dim WHERE k = 3")
                                            .collect());
                    return !rows.isEmpty() && !"c".equals(rows.get(0).getField(0));
                },
                "the batch union read shows the store's change of key 3");
    }

    /** Paimon's own read of the table's latest snapshot: key to value. */
    private static Map<Integer, String> paimonRead(FileStoreTable table) throws Exception {
        ReadBuilder read = table.newReadBuilder();
        Map<Integer, String> rows = new HashMap<>();
        try (RecordReaderIterator<InternalRow> it =
                new RecordReaderIterator<>(
                        read.newRead().createReader(read.newScan().plan().splits()))) {
            while (it.hasNext()) {
                InternalRow row = it.next();
                rows.put(row.getInt(0), row.getString(1).toString());
            }
        }
        return rows;
    }
}
