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
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.executiongraph.ErrorInfo;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store outage while a lake-stream job runs: the Fluss tablet server stops, the job fails with an
 * error that names the table and the store, commits no snapshot past what the store holds, and once
 * the server is back it recovers and ends with every row exactly once. The shared MiniCluster
 * restarts whole jobs, so that each failure is recorded as the job's failure.
 */
@ExtendWith({SharedFlussCluster.class, SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamSinkOutageITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static SinkTestTables tables;
    private static Map<String, String> ownClient;

    @BeforeAll
    static void open() throws Exception {
        // a store client of this test's own: connections are shared per configuration, and the
        // in-process tablet server comes back on another port, which a Fluss 0.9.1 client that
        // knew the old one never learns; the tests after this one must not get that client
        ownClient = SharedFlussCluster.lakeStreamOptions();
        ownClient.put(LakeStreamOptions.storeOptionsPrefix("fluss") + "client.id", "outage-test");
        tables = new SinkTestTables(warehouse, "sink_it", ownClient);
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    /**
     * The Fluss tablet server stops while the job runs: the job fails with an error that names the
     * table and the store's address, commits no snapshot past what the store holds, and once the
     * server is back the job recovers and ends with every row exactly once.
     */
    @Test
    void aStoreOutageFailsTheJobAndLosesNothing() throws Exception {
        MiniCluster miniCluster = SharedMiniCluster.miniCluster();
        FileStoreTable table = tables.create("outage", false);
        // 30 s of rows: the job must still be writing when the server is down, and stopping it
        // takes Fluss's controlled shutdown up to three attempts (12 s seen in CI)
        int rows = 15_000;
        StreamExecutionEnvironment env = SinkTestTables.env(2, 300);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(1_000, 500));
        DataStream<RowData> input =
                env.fromSource(
                        new DataGeneratorSource<>(
                                SinkTestTables::row,
                                rows,
                                RateLimiterStrategy.perSecond(500),
                                TypeInformation.of(RowData.class)),
                        WatermarkStrategy.noWatermarks(),
                        "rows");
        LakeStreamSink.builder()
                .setTable(table)
                // the job's connections too are this test's own
                .setOptions(ownClient)
                .setOption(LakeStreamOptions.STORE_WRITE_TIMEOUT.key(), "3 s")
                .setOption(LakeStreamOptions.STORE_REQUEST_TIMEOUT.key(), "3 s")
                .build()
                .sinkFrom(input);
        JobClient job = env.executeAsync("outage");
        Identifier identifier = tables.identifier("outage");
        Await.until(
                () -> tables.latestSnapshotId("outage") >= 2, "two snapshots before the outage");

        SharedFlussCluster.cluster().stopTabletServer(0);
        String failure;
        try {
            Await.until(
                    () -> failureInfo(miniCluster, job) != null,
                    "the job fails while the store is down");
            ErrorInfo first = failureInfo(miniCluster, job);
            failure = first.getExceptionAsString();
            // the restarted job fails again while the store is still down
            Await.until(
                    () -> failureInfo(miniCluster, job).getTimestamp() > first.getTimestamp(),
                    "the restarted job fails again");
        } finally {
            SharedFlussCluster.cluster().startTabletServer(0);
        }
        System.out.println("Failure while the store was down: " + failure.split("\n")[0]);
        // the error names the table and the store's address
        assertThat(failure)
                .contains("sink_it.outage")
                .contains("Fluss cluster at " + SharedFlussCluster.bootstrapServers());
        job.getJobExecutionResult().get(3, java.util.concurrent.TimeUnit.MINUTES);

        table = tables.table("outage");
        long latest = table.snapshotManager().latestSnapshotId();
        // a client of its own (connections are shared per configuration, hence a client id of its
        // own): the in-process tablet server came back on another port, which a Fluss 0.9.1
        // client that knew the old one never learns
        Map<String, String> afterOutage = SharedFlussCluster.lakeStreamOptions();
        afterOutage.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "client.id", "after-the-outage");
        try (StreamStore fresh =
                StreamStoreLoader.create(
                        afterOutage, LakeStreamSinkOutageITCase.class.getClassLoader())) {
            long fenced =
                    new SinkVerification(tables.catalog, fresh).assertExactlyOnce(identifier, rows);
            System.out.println("Records fenced after the outage: " + fenced);
            // no snapshot ever recorded an offset that the store did not hold
            StreamTable streamTable = fresh.get(StreamTableSpec.of(identifier, table));
            for (long id = table.snapshotManager().earliestSnapshotId(); id <= latest; id++) {
                StreamOffsets offsets = SnapshotOffsets.ofSnapshot(table, id).orElseThrow();
                Map<PartitionBucket, Long> ends =
                        fresh.listOffsets(
                                streamTable, offsets.asMap().keySet(), OffsetPosition.LATEST);
                offsets.asMap()
                        .forEach(
                                (pb, offset) ->
                                        assertThat(ends.get(pb))
                                                .as("store end of %s", pb)
                                                .isGreaterThanOrEqualTo(offset));
            }
        }
    }

    private static ErrorInfo failureInfo(MiniCluster miniCluster, JobClient job) throws Exception {
        return miniCluster.getExecutionGraph(job.getJobID()).get().getFailureInfo();
    }
}
