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

import io.lakestream.flink.LakeStreamOptions;
import io.lakestream.flink.offsets.PartitionBucket;
import io.lakestream.flink.offsets.SnapshotOffsets;
import io.lakestream.flink.offsets.StreamOffsets;
import io.lakestream.flink.store.OffsetPosition;
import io.lakestream.flink.store.StreamStore;
import io.lakestream.flink.store.StreamTable;
import io.lakestream.flink.store.StreamTableSpec;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store outage while a lake-stream job runs: the Fluss tablet server stops, the job fails with an
 * error that names the table and the store, commits no snapshot past what the store holds, and once
 * the server is back it recovers and ends with every row exactly once. Its own MiniCluster restarts
 * whole jobs, so that each failure is recorded as the job's failure.
 */
@ExtendWith(SharedFlussCluster.class)
class LakeStreamSinkOutageITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(fullRestarts())
                            .build());

    @TempDir static java.nio.file.Path warehouse;

    private static Catalog catalog;

    private static org.apache.flink.configuration.Configuration fullRestarts() {
        org.apache.flink.configuration.Configuration conf =
                new org.apache.flink.configuration.Configuration();
        conf.set(
                org.apache.flink.configuration.JobManagerOptions.EXECUTION_FAILOVER_STRATEGY,
                "full");
        return conf;
    }

    @BeforeAll
    static void open() throws Exception {
        catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(new Path(warehouse.toUri().toString())));
        catalog.createDatabase("sink_it", true);
    }

    @AfterAll
    static void close() throws Exception {
        catalog.close();
    }

    private static FileStoreTable createTable(String name) throws Exception {
        Identifier identifier = Identifier.create("sink_it", name);
        catalog.createTable(
                identifier,
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("payload", DataTypes.STRING())
                        .column("dt", DataTypes.STRING().notNull())
                        .partitionKeys("dt")
                        .option("bucket", "3")
                        .option("bucket-key", "id")
                        .option(LakeStreamOptions.ENABLED.key(), "true")
                        .build(),
                false);
        FileStoreTable table = (FileStoreTable) catalog.getTable(identifier);
        try (StreamStore store = SharedFlussCluster.newStore()) {
            store.provision(StreamTableSpec.of(identifier, table));
        }
        return table;
    }

    private static RowData row(long i) {
        return GenericRowData.of(
                (int) i,
                StringData.fromString("payload-" + i),
                StringData.fromString("d" + (i % 3)));
    }

    private static StreamExecutionEnvironment env(long checkpointMillis) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(checkpointMillis);
        return env;
    }

    private static List<String> readPaimon(FileStoreTable table, long snapshotId) throws Exception {
        FileStoreTable at =
                table.copy(java.util.Collections.singletonMap("scan.snapshot-id", "" + snapshotId));
        ReadBuilder read = at.newReadBuilder();
        List<String> rows = new ArrayList<>();
        try (RecordReader<InternalRow> reader =
                read.newRead().createReader(read.newScan().plan())) {
            reader.forEachRemaining(
                    r -> rows.add(r.getInt(0) + "|" + r.getString(1) + "|" + r.getString(2)));
        }
        return rows;
    }

    /**
     * The Fluss tablet server stops while the job runs: the job fails with an error that names the
     * table and the store's address, commits no snapshot past what the store holds, and once the
     * server is back the job recovers and ends with every row exactly once.
     */
    @Test
    void aStoreOutageFailsTheJobAndLosesNothing(@InjectMiniCluster MiniCluster miniCluster)
            throws Exception {
        FileStoreTable table = createTable("outage");
        int rows = 6_000;
        StreamExecutionEnvironment env = env(300);
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(1_000, 500));
        DataStream<RowData> input =
                env.fromSource(
                        new DataGeneratorSource<>(
                                LakeStreamSinkOutageITCase::row,
                                rows,
                                RateLimiterStrategy.perSecond(500),
                                TypeInformation.of(RowData.class)),
                        WatermarkStrategy.noWatermarks(),
                        "rows");
        LakeStreamSink.builder()
                .setTable(table)
                .setOptions(SharedFlussCluster.lakeStreamOptions())
                .setOption(LakeStreamOptions.STORE_WRITE_TIMEOUT.key(), "3 s")
                .setOption(LakeStreamOptions.STORE_REQUEST_TIMEOUT.key(), "3 s")
                .build()
                .sinkFrom(input);
        JobClient job = env.executeAsync("outage");
        Identifier identifier = Identifier.create("sink_it", "outage");
        waitUntil(() -> snapshotCount(identifier) >= 2, "two snapshots before the outage");

        SharedFlussCluster.cluster().stopTabletServer(0);
        String failure;
        try {
            waitUntil(
                    () ->
                            miniCluster.getExecutionGraph(job.getJobID()).get().getFailureInfo()
                                    != null,
                    "the job fails while the store is down");
            failure =
                    miniCluster
                            .getExecutionGraph(job.getJobID())
                            .get()
                            .getFailureInfo()
                            .getExceptionAsString();
            Thread.sleep(3_000); // let it fail and restart a few times
        } finally {
            SharedFlussCluster.cluster().startTabletServer(0);
        }
        System.out.println("Failure while the store was down: " + failure.split("\n")[0]);
        // the error names the table and the store's address
        assertThat(failure)
                .contains("sink_it.outage")
                .contains("Fluss cluster at " + SharedFlussCluster.bootstrapServers());
        job.getJobExecutionResult().get(3, java.util.concurrent.TimeUnit.MINUTES);

        table = (FileStoreTable) catalog.getTable(identifier);
        long latest = table.snapshotManager().latestSnapshotId();
        List<String> lake = readPaimon(table, latest);
        Map<String, Integer> counts = new HashMap<>();
        lake.forEach(r -> counts.merge(r, 1, Integer::sum));
        assertThat(counts).hasSize(rows);
        assertThat(counts.values()).containsOnly(1);
        try (StreamStore fresh = SharedFlussCluster.newStore()) {
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

    private static long snapshotCount(Identifier identifier) throws Exception {
        Long latest =
                ((FileStoreTable) catalog.getTable(identifier))
                        .snapshotManager()
                        .latestSnapshotId();
        return latest == null ? 0 : latest;
    }

    /** A condition to wait for. */
    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void waitUntil(Condition condition, String what) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        while (!condition.holds()) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("Timed out waiting until " + what);
            }
            Thread.sleep(100);
        }
    }
}
