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

import io.lakestream.flink.source.LakeStreamSource;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.testutils.Await;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.sink.TableCommitImpl;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonCatalogDdl;
import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static io.lakestream.flink.catalog.LakeSqlEnvironments.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reads bounded by committed snapshots (incremental reads, bounded {@code compacted-full} and file
 * or creation time reads, {@code scan.bounded.watermark}) of a table in lake-stream mode return,
 * through the {@code paimon-lakestream} catalog, exactly what the same query returns through
 * Paimon's own catalog, while the stream store holds rows that no snapshot committed yet.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class CommittedSnapshotReadsITCase {

    @TempDir static Path warehouse;

    /** Where Paimon's writer of the watermark commits spills (its lookup changelog needs it). */
    @TempDir static Path spill;

    @Test
    void appendTable() throws Exception {
        readsOfCommittedSnapshotsArePaimons(
                "committed_append", "(id INT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id'");
    }

    @Test
    void primaryKeyTableWithLookupChangelog() throws Exception {
        readsOfCommittedSnapshotsArePaimons(
                "committed_pk",
                "(id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2', "
                        + "'changelog-producer' = 'lookup'");
    }

    private void readsOfCommittedSnapshotsArePaimons(String name, String definition)
            throws Exception {
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment batch = environments.batch();
        batch.executeSql(paimonCatalogDdl(warehouse));
        batch.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        String lake = "lake.db." + name;
        String paimon = "paimon.db." + name;
        batch.executeSql(
                        "CREATE TABLE "
                                + lake
                                + " "
                                + definition
                                + ", 'lake-stream.enabled' = 'true')")
                .await();
        batch.executeSql("INSERT INTO " + lake + " VALUES (1, 'a'), (2, 'b')").await();
        batch.executeSql("INSERT INTO " + lake + " VALUES (3, 'c'), (1, 'a2')").await();
        FileStoreTable table = paimonTable(batch, "db." + name);
        // files written from here on are newer than this
        long afterSecondInsert = System.currentTimeMillis() + 1;
        Await.until(
                () -> System.currentTimeMillis() > afterSecondInsert, "the clock passes a commit");
        // commits with watermarks; the batch commits after them have none and inherit the last
        commitWithWatermark(table, 1_000L, row(4, "d"), row(2, "b2"));
        batch.executeSql("INSERT INTO " + lake + " VALUES (5, 'e')").await();
        commitWithWatermark(table, 3_000L, row(6, "f"), row(3, "c2"));
        batch.executeSql("INSERT INTO " + lake + " VALUES (7, 'g')").await();
        batch.getConfig().set("table.dml-sync", "true");
        batch.executeSql(
                        "CALL paimon.sys.compact(`table` => 'db."
                                + name
                                + "', compact_strategy => 'full')")
                .await();
        batch.executeSql("INSERT INTO " + lake + " VALUES (8, 'h'), (5, 'e2')").await();

        JobClient tail = environments.tail(lake, "(100, 'tail'), (1, 'tail')");
        try {
            Await.until(
                    () -> rows(batch, lake).stream().anyMatch(r -> r.contains("tail")),
                    "the uncommitted row is read through the lake-stream catalog");
            assertThat(rows(batch, paimon)).noneMatch(r -> r.contains("tail"));

            Snapshot first = table.snapshotManager().snapshot(1);
            Snapshot latest = table.snapshotManager().latestSnapshot();
            String[] batchOptions = {
                "'incremental-between' = '1," + latest.id() + "'",
                "'incremental-between-timestamp' = '"
                        + first.timeMillis()
                        + ","
                        + latest.timeMillis()
                        + "'",
                "'scan.mode' = 'compacted-full'",
                "'scan.mode' = 'from-file-creation-time', 'scan.file-creation-time-millis' = '"
                        + afterSecondInsert
                        + "'",
                "'scan.creation-time-millis' = '" + afterSecondInsert + "'",
            };
            for (String options : batchOptions) {
                List<String> expected = sorted(rows(batch, hinted(paimon, options)));
                assertThat(expected).as("Paimon's read with %s", options).isNotEmpty();
                assertThat(sorted(rows(batch, hinted(lake, options))))
                        .as("the lake-stream catalog's read with %s", options)
                        .isEqualTo(expected);
            }

            // a streaming read that Paimon ends at the snapshot whose watermark passes 2000
            TableEnvironment streaming = environments.streaming(null);
            streaming.executeSql(paimonCatalogDdl(warehouse));
            String watermarkOptions =
                    "'scan.mode' = 'from-snapshot', 'scan.snapshot-id' = '1', "
                            + "'scan.bounded.watermark' = '2000'";
            List<String> expected = sorted(rows(streaming, hinted(paimon, watermarkOptions)));
            assertThat(expected)
                    .as("the changes before the watermark passed 2000")
                    .anyMatch(r -> r.contains("d"))
                    .noneMatch(r -> r.contains("f") || r.contains("h"));
            assertThat(sorted(rows(streaming, hinted(lake, watermarkOptions)))).isEqualTo(expected);

            // Paimon refuses an unbounded incremental read only when its job plans
            assertThatThrownBy(() -> rows(streaming, hinted(lake, "'incremental-between' = '1,2'")))
                    .hasStackTraceContaining(
                            "db." + name + ": 'incremental-between' = '1,2' reads the changes")
                    .hasStackTraceContaining("needs a bounded read");
            // the DataStream builder cannot return Paimon's source: it names it
            assertThatThrownBy(
                            () ->
                                    LakeStreamSource.builder()
                                            .setTable(table)
                                            .setOptions(SharedStreamStore.lakeStreamOptions())
                                            .setBounded(true)
                                            .setOption("scan.mode", "compacted-full")
                                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("db." + name)
                    .hasMessageContaining("'scan.mode' = 'compacted-full'")
                    .hasMessageContaining("FlinkSourceBuilder");
        } finally {
            tail.cancel().get();
        }
    }

    private static void commitWithWatermark(
            FileStoreTable table, long watermark, GenericRow... rows) throws Exception {
        StreamWriteBuilder builder =
                table.newStreamWriteBuilder().withCommitUser("watermark-writer-" + watermark);
        try (IOManager ioManager = IOManager.create(spill.toString());
                StreamTableWrite write =
                        (StreamTableWrite) builder.newWrite().withIOManager(ioManager);
                TableCommitImpl commit = (TableCommitImpl) builder.newCommit()) {
            for (GenericRow row : rows) {
                write.write(row);
            }
            ManifestCommittable committable = new ManifestCommittable(1L, watermark);
            write.prepareCommit(true, 1L).forEach(committable::addFileCommittable);
            commit.commit(committable);
        }
    }

    private static GenericRow row(int id, String v) {
        return GenericRow.of(id, BinaryString.fromString(v));
    }

    private static String hinted(String table, String options) {
        return table + " /*+ OPTIONS(" + options + ") */";
    }

    private static List<String> sorted(List<String> rows) {
        List<String> sorted = new ArrayList<>(rows);
        Collections.sort(sorted);
        return sorted;
    }
}
