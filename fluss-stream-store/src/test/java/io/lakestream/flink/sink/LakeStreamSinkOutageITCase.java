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
import io.lakestream.store.StreamWriter;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
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

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A store outage while a lake-stream job runs: the Fluss tablet server stops, the job fails with an
 * error that names the table and the store, commits no snapshot past what the store holds, and once
 * the server is back it recovers and ends with every row exactly once. The shared MiniCluster
 * restarts whole jobs, so that each failure is recorded as the job's failure. A store whose writes
 * the server never acknowledged closes within seconds, without waiting for them.
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

        // a writer of a client of its own whose records the server will never acknowledge, with
        // a write timeout far beyond the test's
        Map<String, String> pendingClient = SharedFlussCluster.lakeStreamOptions();
        pendingClient.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "client.id", "pending-at-close");
        pendingClient.put(LakeStreamOptions.STORE_WRITE_TIMEOUT.key(), "10 min");
        StreamStore pendingStore =
                StreamStoreLoader.create(
                        pendingClient, LakeStreamSinkOutageITCase.class.getClassLoader());
        FileStoreTable pendingTable = tables.create("pending_at_close", false);
        StreamWriter pendingWriter =
                pendingStore.createWriter(
                        pendingStore.get(
                                StreamTableSpec.of(
                                        tables.identifier("pending_at_close"), pendingTable)));
        PartitionBucket pending = new PartitionBucket(BinaryRow.singleColumn("p"), 0);
        pendingWriter.write(
                pending,
                GenericRow.of(
                        1, BinaryString.fromString("acknowledged"), BinaryString.fromString("p")));
        pendingWriter.flush();

        SharedFlussCluster.cluster().stopTabletServer(0);
        pendingWriter.write(
                pending,
                GenericRow.of(2, BinaryString.fromString("pending"), BinaryString.fromString("p")));
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
        // what a task that failed on its flush does when it is cancelled: it closes its writer
        // (whose records the attempt that replaces it fences) and its store. The server is back,
        // on another port, which this client never learns (Fluss 0.9.1): its pending batch would
        // be sent again and again. The close must return within seconds, not after the write
        // timeout: until it returns, Flink cannot cancel the task and the job cannot restart
        long closing = System.nanoTime();
        assertTimeoutPreemptively(
                Duration.ofMinutes(2),
                () -> {
                    pendingWriter.close();
                    pendingStore.close();
                },
                "closing a store whose writes the restarted server never acknowledged");
        System.out.printf(
                "A store with writes the restarted server never acknowledged closed in %d ms%n",
                (System.nanoTime() - closing) / 1_000_000);
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
