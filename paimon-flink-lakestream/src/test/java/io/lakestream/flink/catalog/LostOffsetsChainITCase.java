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
import io.lakestream.offsets.OffsetsDirectory;
import io.lakestream.offsets.SnapshotOffsets;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.count;
import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A table whose offsets chain was lost (enabled by a version that wrote no anchors, and Paimon
 * expired its last snapshot with offsets before a committer anchored it): a read fails naming the
 * table and the way out instead of reading the store from offset 0, and the way out works.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LostOffsetsChainITCase {

    private static final String TABLE = "db.lost";

    @TempDir static java.nio.file.Path warehouse;

    private static LakeSqlEnvironments environments;

    @BeforeAll
    static void open() {
        environments = new LakeSqlEnvironments(warehouse);
    }

    @Test
    void readFailsNamingTheWayOutWhichRecordsTheStoreEnds() throws Exception {
        TableEnvironment tEnv = environments.batch();
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + TABLE
                        + " (id INT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id', "
                        + "'snapshot.num-retained.min' = '3', 'snapshot.num-retained.max' = '3')");
        tEnv.executeSql("INSERT INTO lake." + TABLE + " VALUES (1, 'paimon'), (2, 'paimon')")
                .await();
        tEnv.executeSql("ALTER TABLE lake." + TABLE + " SET ('lake-stream.enabled' = 'true')");
        tEnv.executeSql(
                        "INSERT INTO lake."
                                + TABLE
                                + " VALUES (3, 'lake'), (4, 'lake'), (5, 'lake')")
                .await();
        assertThat(count(tEnv, "lake." + TABLE)).isEqualTo(5);

        // as a version without anchors left it, then other writers commit and Paimon expires
        FileStoreTable table = paimonTable(tEnv, TABLE);
        table.fileIO()
                .delete(
                        new Path(new Path(table.location(), OffsetsDirectory.DIR), "anchors"),
                        true);
        for (int i = 0; i < 4; i++) {
            commitWithPaimonAlone(table, 100 + i);
        }
        table = paimonTable(tEnv, TABLE);
        Long earliest = table.snapshotManager().earliestSnapshotId();
        for (long id = earliest; id <= table.snapshotManager().latestSnapshotId(); id++) {
            assertThat(SnapshotOffsets.ownOffsetsFile(table.snapshotManager().snapshot(id)))
                    .as("snapshot %s names no offsets", id)
                    .isEmpty();
        }

        assertThatThrownBy(() -> count(tEnv, "lake." + TABLE))
                .hasStackTraceContaining("stream offsets of lake-stream table " + TABLE)
                .hasStackTraceContaining("cannot be determined")
                .hasStackTraceContaining("CALL sys.enable_lake_stream");

        tEnv.executeSql("CALL lake.sys.disable_lake_stream(`table` => '" + TABLE + "')").await();
        tEnv.executeSql("CALL lake.sys.enable_lake_stream(`table` => '" + TABLE + "')").await();

        // Paimon holds every row; the store's records are below the recorded ends
        assertThat(count(tEnv, "lake." + TABLE)).isEqualTo(5 + 4);
    }

    private static void commitWithPaimonAlone(FileStoreTable table, int id) throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            write.write(GenericRow.of(id, BinaryString.fromString("other")));
            commit.commit(write.prepareCommit());
        }
    }
}
