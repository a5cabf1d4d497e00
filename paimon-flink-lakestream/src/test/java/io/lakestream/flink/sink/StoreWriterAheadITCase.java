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

package io.lakestream.flink.sink;

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.lakestream.flink.sink.LakeStreamSinkITCase.storeWriterChaining;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sink with {@code 'lake-stream.sink.store-writer-chaining' = 'false'}: the store's writer is a
 * task of its own ahead of Paimon's writer, which keeps writing rows to the store while Paimon's
 * writer prepares its commit, and stores exactly what Paimon writes. The warehouse is on {@link
 * HeldFileIO}, so that a test can keep Paimon's writer in its prepare.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class StoreWriterAheadITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static SinkTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        String database = "sink_ahead";
        tables =
                new SinkTestTables(
                        HeldFileIO.SCHEME + "://" + warehouse.toAbsolutePath(),
                        database,
                        SinkTestTables.ownClient(database));
    }

    @AfterAll
    static void close() throws Exception {
        HeldFileIO.release();
        tables.close();
    }

    @Test
    void aStreamingJobWritesTheStoreFromATaskAheadOfPaimonsWriterAndABatchJobDoesNot()
            throws Exception {
        FileStoreTable table = tables.create("topology", false);
        String storeWriter = LakeStreamFixedBucketSink.STORE_WRITER_NAME + " : topology";
        // the name Paimon gives its writer
        String paimonWriter = "Writer : topology";

        StreamExecutionEnvironment streaming = SinkTestTables.env(2, 1_000);
        SinkTestTables.sink(table, storeWriterChaining(false))
                .sinkFrom(SinkTestTables.rows(streaming, 10, 10));
        assertThat(vertices(streaming)).contains(storeWriter, paimonWriter);

        StreamExecutionEnvironment batch = SinkTestTables.env(2, 1_000);
        batch.setRuntimeMode(RuntimeExecutionMode.BATCH);
        SinkTestTables.sink(table, storeWriterChaining(false))
                .sinkFrom(SinkTestTables.rows(batch, 10, 10));
        assertThat(vertices(batch))
                .as("a batch job's exchanges are blocking: the store is written in Paimon's writer")
                .contains(paimonWriter)
                .noneMatch(name -> name.contains(LakeStreamFixedBucketSink.STORE_WRITER_NAME));
    }

    private static List<String> vertices(StreamExecutionEnvironment env) {
        List<String> names = new ArrayList<>();
        for (JobVertex vertex : env.getStreamGraph().getJobGraph().getVertices()) {
            names.add(vertex.getName());
        }
        return names;
    }

    /**
     * The store's writer routes each row as Paimon's writer does, apart from it: Paimon's default
     * value fills a null column, deletes that the table ignores are not stored, and every snapshot
     * equals the store's changes below its offsets, merged by key.
     */
    @Test
    void theStoreHoldsExactlyWhatPaimonWritesWithDefaultValuesAndIgnoredDeletes() throws Exception {
        String name = "routing";
        FileStoreTable table =
                tables.create(
                        name,
                        Schema.newBuilder()
                                .column("id", DataTypes.INT().notNull())
                                .column("payload", DataTypes.STRING(), null, "filled")
                                .column("dt", DataTypes.STRING().notNull())
                                .partitionKeys("dt")
                                .primaryKey("id", "dt")
                                .option("bucket", "3")
                                .option("ignore-delete", "true")
                                .option(LakeStreamOptions.ENABLED.key(), "true")
                                .build());
        int rows = 3_000;
        StreamExecutionEnvironment env = SinkTestTables.env(2, 300);
        env.setRestartStrategy(RestartStrategies.noRestart());
        // keys repeat; every 7th row has no payload (Paimon fills the default), every 11th is a
        // delete of its key, which the table ignores
        DataStream<RowData> input =
                env.fromSource(
                        new DataGeneratorSource<>(
                                i -> {
                                    GenericRowData row =
                                            GenericRowData.of(
                                                    (int) (i % 300),
                                                    i % 7 == 0
                                                            ? null
                                                            : StringData.fromString("payload-" + i),
                                                    StringData.fromString("d" + (i % 300 % 3)));
                                    row.setRowKind(i % 11 == 0 ? RowKind.DELETE : RowKind.INSERT);
                                    return row;
                                },
                                rows,
                                RateLimiterStrategy.perSecond(1_000),
                                TypeInformation.of(RowData.class)),
                        WatermarkStrategy.noWatermarks(),
                        "rows");
        SinkTestTables.sink(table, storeWriterChaining(false)).sinkFrom(input);
        env.execute(name);

        table = tables.table(name);
        long latest = table.snapshotManager().latestSnapshotId();
        assertThat(latest).as("several checkpoints committed").isGreaterThan(1);
        tables.verify.assertEverySnapshotEqualsTheStoreMergedByKey(table);
        assertThat(SinkVerification.readPaimon(table, latest))
                .as("every key, with the default where a row had no payload")
                .hasSize(300)
                .anyMatch(row -> row.contains("|filled|"));
    }

    /**
     * While Paimon's writer is held in the prepare of its commit (its data files' closes wait), the
     * store's writer goes on: rows behind the checkpoint's barrier become readable in the store.
     * After the hold, every snapshot still holds exactly the store records below its offsets.
     */
    @Test
    void rowsReachTheStoreWhilePaimonsWriterPreparesItsCommit() throws Exception {
        String name = "held";
        FileStoreTable table = tables.create(name, false, 3, Map.of("write-only", "true"));
        StreamTable streamTable =
                tables.store.get(
                        StreamTableSpec.of(Identifier.fromString(table.fullName()), table));
        List<PartitionBucket> all = new ArrayList<>();
        for (int p = 0; p < SinkTestTables.PARTITIONS; p++) {
            for (int b = 0; b < 3; b++) {
                all.add(new PartitionBucket(BinaryRow.singleColumn("d" + p), b));
            }
        }
        StreamExecutionEnvironment env = SinkTestTables.env(1, 500);
        env.setRestartStrategy(RestartStrategies.noRestart());
        SinkTestTables.sink(table, storeWriterChaining(false))
                .sinkFrom(SinkTestTables.rows(env, Long.MAX_VALUE, 200));
        JobClient job = env.executeAsync(name);
        try {
            Await.until(() -> tables.latestSnapshotId(name) >= 1, "a first snapshot");
            HeldFileIO.hold();
            Await.until(() -> HeldFileIO.waiting() > 0, "Paimon's writer held in its prepare");
            long atHold = tables.verify.storedRecords(streamTable, all);
            Await.until(
                    () -> tables.verify.storedRecords(streamTable, all) >= atHold + 200,
                    "200 more rows in the store while Paimon's writer is held");
            assertThat(HeldFileIO.waiting()).as("Paimon's writer still held").isPositive();
            long snapshotsWhileHeld = tables.latestSnapshotId(name);
            HeldFileIO.release();
            Await.until(
                    () -> tables.latestSnapshotId(name) >= snapshotsWhileHeld + 2,
                    "two snapshots after the hold");
        } finally {
            HeldFileIO.release();
            job.cancel().get();
        }
        tables.verify.assertEverySnapshotHoldsTheStoreBelowItsOffsets(tables.table(name));
    }
}
