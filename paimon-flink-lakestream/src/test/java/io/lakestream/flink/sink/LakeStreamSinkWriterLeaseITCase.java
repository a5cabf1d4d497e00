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
import io.lakestream.offsets.AbortedRanges;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.protocol.WriterConflictException;
import io.lakestream.protocol.WriterLeaseReplay;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.WriterLeaseLog;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * One writing job per table (invariant "one owner per bucket"): a second job that starts writing a
 * table while the first runs is refused before it fences or writes anything, and a job started
 * after the first one stopped takes the table over once the first one's lease expired.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamSinkWriterLeaseITCase {

    private static final String LEASE_TIMEOUT = "3 s";

    /** The ids of the rows of the job that takes over start here, apart from the first job's. */
    private static final long SECOND_WRITER_IDS = 1_000_000;

    @TempDir static java.nio.file.Path warehouse;

    private static SinkTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SinkTestTables(warehouse, "lease_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    private static JobClient start(
            FileStoreTable table, long firstId, long rows, int rowsPerSecond, String name)
            throws Exception {
        return start(table, firstId, rows, rowsPerSecond, name, LEASE_TIMEOUT);
    }

    private static JobClient start(
            FileStoreTable table,
            long firstId,
            long rows,
            int rowsPerSecond,
            String name,
            String leaseTimeout)
            throws Exception {
        return start(
                table,
                firstId,
                rows,
                rowsPerSecond,
                name,
                leaseTimeout,
                RestartStrategies.noRestart());
    }

    private static JobClient start(
            FileStoreTable table,
            long firstId,
            long rows,
            int rowsPerSecond,
            String name,
            String leaseTimeout,
            RestartStrategies.RestartStrategyConfiguration restarts)
            throws Exception {
        StreamExecutionEnvironment env = SinkTestTables.env(2, 300);
        env.setRestartStrategy(restarts);
        SinkTestTables.sink(
                        table,
                        Map.of(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT.key(), leaseTimeout))
                .sinkFrom(
                        env.fromSource(
                                new DataGeneratorSource<>(
                                        i -> SinkTestTables.row(firstId + i),
                                        rows,
                                        RateLimiterStrategy.perSecond(rowsPerSecond),
                                        TypeInformation.of(RowData.class)),
                                WatermarkStrategy.noWatermarks(),
                                "rows"));
        return env.executeAsync(name);
    }

    /** How often {@code job} restarted, from the shared MiniCluster's metrics. */
    @SuppressWarnings("unchecked")
    private static long restarts(JobClient job) {
        return SharedMiniCluster.metrics()
                .findMetric(job.getJobID(), "numRestarts")
                .map(gauge -> ((org.apache.flink.metrics.Gauge<Long>) gauge).getValue())
                .orElse(0L);
    }

    @Test
    void aSecondJobIsRefusedBeforeItWritesAndATakeOverFencesTheFirstJobsTail() throws Exception {
        String name = "two_jobs";
        Identifier identifier = tables.identifier(name);
        FileStoreTable table = tables.create(name, false);
        StreamTable streamTable = tables.store.get(StreamTableSpec.of(identifier, table));

        JobClient first = start(table, 0, Long.MAX_VALUE, 300, "first writer");
        Await.until(() -> tables.latestSnapshotId(name) >= 2, "the first job commits twice");

        // a second job while the first one runs: refused, without a fence and without a record
        int fencesBefore = fenceCount(streamTable);
        JobClient second = start(table, SECOND_WRITER_IDS, 1_000, 1_000, "second writer");
        Throwable refusal = failureOf(second);
        Optional<WriterConflictException> conflict =
                ExceptionUtils.findThrowable(refusal, WriterConflictException.class);
        assertThat(conflict).as("the second job's failure: %s", refusal).isPresent();
        System.out.println("Second job refused: " + conflict.get().getMessage());
        assertThat(conflict.get().getMessage())
                .contains("lease_it.two_jobs")
                .contains("first writer")
                .contains(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT.key());
        assertThat(first.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
        assertThat(fenceCount(streamTable)).as("fences after the refusal").isEqualTo(fencesBefore);

        // the first job stops without a final commit; a new job takes over after its lease ended
        first.cancel().get();
        Await.until(
                () -> first.getJobStatus().get().isGloballyTerminalState(),
                "the first job is cancelled");
        table = tables.table(name);
        long committedByFirst =
                SinkVerification.readPaimon(table, tables.latestSnapshotId(name)).size();
        Map<PartitionBucket, Long> firstEnds = storeEnds(streamTable);
        int taken = 2_000;
        // restarts as production jobs do: a compaction of its own can meet a Paimon commit
        // conflict ("give up committing"), which Paimon resolves by a restart from the checkpoint
        JobClient takeOver =
                start(
                        table,
                        SECOND_WRITER_IDS,
                        taken,
                        2_000,
                        "take-over writer",
                        LEASE_TIMEOUT,
                        RestartStrategies.fixedDelayRestart(2, 500));
        takeOver.getJobExecutionResult().get(2, TimeUnit.MINUTES);

        long fenced = tables.verify.assertExactlyOnce(identifier, (int) (committedByFirst + taken));
        long uncommittedByFirst =
                firstEnds.values().stream().mapToLong(Long::longValue).sum() - committedByFirst;
        System.out.printf(
                "First job: %d rows committed, %d left uncommitted; %d fenced by the take-over%n",
                committedByFirst, uncommittedByFirst, fenced);
        if (restarts(takeOver) == 0) {
            assertThat(fenced).as("the first job's uncommitted tail").isEqualTo(uncommittedByFirst);
        } else {
            // a restarted take-over fences its own failed attempt's tail too
            assertThat(fenced)
                    .as("the first job's uncommitted tail, and the take-over's own")
                    .isGreaterThanOrEqualTo(uncommittedByFirst);
        }
        Set<Integer> ids = new HashSet<>();
        for (String row :
                SinkVerification.readPaimon(tables.table(name), tables.latestSnapshotId(name))) {
            ids.add(Integer.parseInt(row.substring(0, row.indexOf('|'))));
        }
        for (long i = 0; i < taken; i++) {
            assertThat(ids).contains((int) (SECOND_WRITER_IDS + i));
        }
    }

    /**
     * A bounded job releases its lease after its final commit: with a lease timeout of ten minutes,
     * the next job writes the table at once, and every row of both is there once.
     */
    @Test
    void aBoundedJobReleasesItsLeaseAfterItsFinalCommit() throws Exception {
        String name = "released";
        Identifier identifier = tables.identifier(name);
        FileStoreTable table = tables.create(name, true);
        StreamTable streamTable = tables.store.get(StreamTableSpec.of(identifier, table));

        start(table, 0, 600, 2_000, "first bounded writer", "10 min")
                .getJobExecutionResult()
                .get(2, TimeUnit.MINUTES);
        WriterLeaseReplay replay = new WriterLeaseReplay(Duration.ofMinutes(10).toMillis());
        try (WriterLeaseLog log = tables.store.openWriterLeaseLog(streamTable)) {
            replay.apply(log.readNew());
        }
        assertThat(replay.holder()).as("the lease after the first job's final commit").isNull();

        // within the ten minutes of the first job's lease
        start(tables.table(name), SECOND_WRITER_IDS, 600, 2_000, "second bounded writer", "10 min")
                .getJobExecutionResult()
                .get(2, TimeUnit.MINUTES);
        tables.verify.assertExactlyOnce(identifier, 1_200);
    }

    private static Throwable failureOf(JobClient job) throws Exception {
        try {
            job.getJobExecutionResult().get(2, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            return e;
        }
        return fail("the job was expected to fail");
    }

    private static int fenceCount(StreamTable streamTable) {
        AbortedRanges fences = tables.verify.fences(streamTable);
        int count = 0;
        for (PartitionBucket pb : allPartitionBuckets()) {
            count += fences.rangesOf(pb).size();
        }
        return count;
    }

    private static Map<PartitionBucket, Long> storeEnds(StreamTable streamTable) {
        return tables.store.listOffsets(streamTable, allPartitionBuckets(), OffsetPosition.LATEST);
    }

    private static List<PartitionBucket> allPartitionBuckets() {
        List<PartitionBucket> all = new ArrayList<>();
        for (int p = 0; p < SinkTestTables.PARTITIONS; p++) {
            for (int b = 0; b < 3; b++) {
                all.add(new PartitionBucket(BinaryRow.singleColumn("d" + p), b));
            }
        }
        return all;
    }
}
