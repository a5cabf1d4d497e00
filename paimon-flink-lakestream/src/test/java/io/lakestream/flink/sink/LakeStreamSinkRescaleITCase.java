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

import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.offsets.AbortedRanges;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.testutils.Await;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lake-stream job stopped with a savepoint and restored from it with another parallelism, on a
 * Flink MiniCluster, a real Fluss cluster and a local Paimon warehouse. Users rely on being able to
 * rescale such a job like any other Flink job: the restored writers take over the end offsets of
 * the partition-buckets they now own, whichever writer owned them before; the snapshots' offsets
 * carry on from the savepoint's; whatever an abandoned attempt left in the store past the savepoint
 * is fenced by the new owners; and every input row ends up exactly once.
 *
 * <p>The Paimon sink's operators get stable uids through the table option {@code
 * sink.operator-uid.suffix}: a restore that changes which operators Flink chains needs them, and
 * with parallelism 1 Paimon chains its committer to the writer, which changes the ids Flink would
 * generate for both. The source gets its uid as every stateful operator should.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamSinkRescaleITCase {

    private static final String DATABASE = "rescale_it";
    private static final int ROWS = 8_000;

    /**
     * The rate of the first job of each test: slow enough that it is stopped long before the input
     * ends, however slowly the cluster starts. The rate is no part of the source's state.
     */
    private static final int FIRST_JOB_ROWS_PER_SECOND = 500;

    /** The rate of the restored jobs. */
    private static final int ROWS_PER_SECOND = 3_000;

    private static final int BUCKETS = 4;
    private static final String[] PARTITIONS = {"d0", "d1", "d2"}; // SinkTestTables.row's
    private static final long TIMEOUT_MILLIS = 60_000;

    @TempDir static java.nio.file.Path warehouse;

    @TempDir java.nio.file.Path savepoints;

    private static SinkTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SinkTestTables(warehouse, DATABASE);
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    /**
     * A job with two writers is stopped with a savepoint after it committed a few snapshots and is
     * restored from it with three: the stop leaves nothing uncommitted in the store, the first
     * snapshot of the restored job carries on from the savepoint's offsets in every
     * partition-bucket, no snapshot's offsets go back, and the table ends with every row exactly
     * once and nothing fenced.
     */
    @ParameterizedTest(name = "primary key: {0}")
    @ValueSource(booleans = {false, true})
    void restoringWithMoreWritersCarriesTheOffsetsOn(boolean primaryKey) throws Exception {
        String name = primaryKey ? "pk_2_to_3" : "append_2_to_3";
        Identifier identifier = Identifier.create(DATABASE, name);
        FileStoreTable table = createTable(identifier, primaryKey);
        StreamTable streamTable = tables.store.get(StreamTableSpec.of(identifier, table));

        LakeStreamSink sink = SinkTestTables.sink(table);
        String savepoint = runAndStopWithSavepoint(identifier, sink, 2);
        long lastOfFirstJob = latestSnapshotId(identifier);
        StreamOffsets savepointOffsets = offsetsOf(identifier, lastOfFirstJob);
        assertThat(storeEnds(streamTable))
                .as("a stop with a savepoint leaves nothing uncommitted in the store")
                .isEqualTo(allOf(savepointOffsets));
        assertThat(total(savepointOffsets))
                .as("the first job stopped before the input ended")
                .isLessThan(ROWS);

        awaitFinished(start(sink, 3, ROWS_PER_SECOND, 200, savepoint, "rescaled to 3"));

        assertThat(latestSnapshotId(identifier)).isGreaterThan(lastOfFirstJob);
        assertCarriedOn(savepointOffsets, offsetsOf(identifier, lastOfFirstJob + 1));
        assertOffsetsNeverGoBack(identifier);
        assertStoreBelowOffsetsEqualsPaimon(identifier, lastOfFirstJob + 1);
        long fenced = tables.verify.assertExactlyOnce(identifier, ROWS);
        assertThat(fenced).as("records fenced after a clean stop").isZero();
    }

    /**
     * A job with three writers is stopped with a savepoint; a restore of it with two writers is
     * cancelled before its first checkpoint, after it wrote records to the store; a second restore
     * from the same savepoint, with a single writer that now owns every partition-bucket, fences
     * exactly what the cancelled attempt left, whichever of its writers wrote it, and the table
     * ends with every row exactly once.
     */
    @Test
    void aRestoreWithFewerWritersFencesWhatAnAbandonedRestoreLeft() throws Exception {
        Identifier identifier = Identifier.create(DATABASE, "append_3_to_1");
        FileStoreTable table = createTable(identifier, false);
        StreamTable streamTable = tables.store.get(StreamTableSpec.of(identifier, table));

        LakeStreamSink sink = SinkTestTables.sink(table);
        String savepoint = runAndStopWithSavepoint(identifier, sink, 3);
        long lastOfFirstJob = latestSnapshotId(identifier);
        StreamOffsets savepointOffsets = offsetsOf(identifier, lastOfFirstJob);
        assertThat(storeEnds(streamTable)).isEqualTo(allOf(savepointOffsets));

        // restored with two writers and no checkpoint before it is cancelled
        JobClient abandoned =
                start(
                        sink,
                        2,
                        ROWS_PER_SECOND,
                        Duration.ofMinutes(10).toMillis(),
                        savepoint,
                        "abandoned");
        long target = total(savepointOffsets) + 300;
        Await.until(
                () -> total(storeEnds(streamTable)) >= target,
                "the abandoned restore wrote to the store");
        abandoned.cancel().get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        awaitTerminal(abandoned);
        Map<PartitionBucket, Long> left = storeEnds(streamTable);
        long leftOver = total(left) - total(savepointOffsets);
        assertThat(leftOver).as("records the abandoned attempt wrote").isGreaterThanOrEqualTo(300);
        assertThat(latestSnapshotId(identifier))
                .as("the abandoned attempt committed no snapshot")
                .isEqualTo(lastOfFirstJob);

        awaitFinished(start(sink, 1, ROWS_PER_SECOND, 200, savepoint, "rescaled to 1"));

        assertCarriedOn(savepointOffsets, offsetsOf(identifier, lastOfFirstJob + 1));
        assertOffsetsNeverGoBack(identifier);
        assertStoreBelowOffsetsEqualsPaimon(identifier, lastOfFirstJob + 1);
        long fenced = tables.verify.assertExactlyOnce(identifier, ROWS);
        assertThat(fenced).as("exactly what the abandoned attempt left").isEqualTo(leftOver);
        // the fences start at the savepoint's offsets and end where the abandoned attempt stopped
        AbortedRanges fences = tables.verify.fences(streamTable);
        for (PartitionBucket pb : allPartitionBuckets()) {
            long from = savepointOffsets.offsetOr(pb, 0L);
            assertThat(fences.countAborted(pb, from, left.get(pb)))
                    .as("fenced of %s", pb)
                    .isEqualTo(left.get(pb) - from);
        }
    }

    /**
     * A job is restored from a savepoint after a later restore of the same savepoint ran to its end
     * and committed past it, as an operator does who goes back to last week's savepoint after a bad
     * deployment. The second restore writes the rows after the savepoint again (Paimon then holds
     * them twice, as with Paimon's own sink), and must not fence what the later snapshots
     * committed: a writer never fences below the tiered offset of the table's latest snapshot.
     * Every snapshot still holds exactly the store's unfenced records below its offsets, so reads
     * that start below those records (from an early snapshot, or lagging behind) return them.
     */
    @Test
    void aRestoreFromAnOlderSavepointFencesNothingThatLaterSnapshotsCommitted() throws Exception {
        Identifier identifier = Identifier.create(DATABASE, "append_older_savepoint");
        FileStoreTable table = createTable(identifier, false);
        StreamTable streamTable = tables.store.get(StreamTableSpec.of(identifier, table));

        LakeStreamSink sink = SinkTestTables.sink(table);
        String savepoint = runAndStopWithSavepoint(identifier, sink, 2);
        StreamOffsets atSavepoint = offsetsOf(identifier, latestSnapshotId(identifier));
        awaitFinished(start(sink, 2, ROWS_PER_SECOND, 200, savepoint, "first restore"));
        StreamOffsets committed = offsetsOf(identifier, latestSnapshotId(identifier));
        assertThat(total(committed))
                .as("the first restore committed past the savepoint")
                .isGreaterThan(total(atSavepoint));

        awaitFinished(start(sink, 2, ROWS_PER_SECOND, 200, savepoint, "older savepoint"));

        AbortedRanges fences = tables.verify.fences(streamTable);
        for (PartitionBucket pb : allPartitionBuckets()) {
            assertThat(fences.countAborted(pb, 0, committed.offsetOr(pb, 0L)))
                    .as("committed records of %s fenced", pb)
                    .isZero();
        }
        assertOffsetsNeverGoBack(identifier);
        tables.verify.assertEverySnapshotHoldsTheStoreBelowItsOffsets(
                (FileStoreTable) tables.catalog.getTable(identifier));
        assertThat(SinkVerification.readPaimon(table, latestSnapshotId(identifier)))
                .as("Paimon holds the rows after the savepoint twice")
                .hasSize((int) (2 * ROWS - total(atSavepoint)));
    }

    // ------------------------------------------------------------------------------------------
    // jobs
    // ------------------------------------------------------------------------------------------

    /**
     * Creates an enabled table with stable operator uids, which a restore that changes which
     * operators Flink chains needs.
     */
    private static FileStoreTable createTable(Identifier identifier, boolean primaryKey)
            throws Exception {
        Map<String, String> options = new HashMap<>();
        options.put(FlinkConnectorOptions.SINK_OPERATOR_UID_SUFFIX.key(), "rescale");
        if (!primaryKey) {
            // Paimon's append writer can commit a compaction's output as both removed and added
            // when a second compaction over it ends within the same commit, which fails the commit
            // at the end of the input; these tests are not about compaction, so none runs
            options.put(CoreOptions.COMPACTION_MIN_FILE_NUM.key(), "1000");
        }
        return tables.create(identifier.getObjectName(), primaryKey, BUCKETS, options);
    }

    /**
     * Starts the pipeline: {@link #ROWS} rows at {@code rowsPerSecond} into the sink's table, with
     * {@code parallelism}, restored from {@code savepoint} when given.
     */
    private static JobClient start(
            LakeStreamSink sink,
            int parallelism,
            int rowsPerSecond,
            long checkpointMillis,
            @Nullable String savepoint,
            String jobName)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointMillis);
        sink.sinkFrom(
                env.fromSource(
                                new DataGeneratorSource<>(
                                        SinkTestTables::row,
                                        ROWS,
                                        RateLimiterStrategy.perSecond(rowsPerSecond),
                                        TypeInformation.of(RowData.class)),
                                WatermarkStrategy.noWatermarks(),
                                "rows")
                        .uid("rows"));
        return env.executeAsync(jobName);
    }

    /**
     * Runs the pipeline with {@code parallelism} until the table has at least two snapshots, then
     * stops it with a savepoint and returns the savepoint's path.
     */
    private String runAndStopWithSavepoint(
            Identifier identifier, LakeStreamSink sink, int parallelism) throws Exception {
        JobClient job =
                start(
                        sink,
                        parallelism,
                        FIRST_JOB_ROWS_PER_SECOND,
                        200,
                        null,
                        "parallelism " + parallelism);
        Await.until(
                () ->
                        latestSnapshotId(identifier) >= 2
                                || job.getJobStatus().get().isGloballyTerminalState(),
                "two snapshots, or the job's end");
        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
        assertThat(latestSnapshotId(identifier))
                .as("snapshots before the savepoint")
                .isGreaterThanOrEqualTo(2);
        String savepoint =
                job.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        awaitFinished(job);
        return savepoint;
    }

    private static void awaitFinished(JobClient job) throws Exception {
        job.getJobExecutionResult().get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
    }

    private static void awaitTerminal(JobClient job) throws Exception {
        Await.until(() -> job.getJobStatus().get().isGloballyTerminalState(), "the job ends");
        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
    }

    // ------------------------------------------------------------------------------------------
    // offsets
    // ------------------------------------------------------------------------------------------

    private static long latestSnapshotId(Identifier identifier) throws Exception {
        Long latest =
                ((FileStoreTable) tables.catalog.getTable(identifier))
                        .snapshotManager()
                        .latestSnapshotId();
        return latest == null ? 0 : latest;
    }

    private static StreamOffsets offsetsOf(Identifier identifier, long snapshotId)
            throws Exception {
        return SnapshotOffsets.ofSnapshot(
                        (FileStoreTable) tables.catalog.getTable(identifier), snapshotId)
                .orElseThrow();
    }

    private static List<PartitionBucket> allPartitionBuckets() {
        List<PartitionBucket> all = new ArrayList<>();
        for (String dt : PARTITIONS) {
            for (int b = 0; b < BUCKETS; b++) {
                all.add(new PartitionBucket(BinaryRow.singleColumn(dt), b));
            }
        }
        return all;
    }

    /** The offsets of every partition-bucket of the table, 0 where {@code offsets} has none. */
    private static Map<PartitionBucket, Long> allOf(StreamOffsets offsets) {
        Map<PartitionBucket, Long> all = new LinkedHashMap<>();
        for (PartitionBucket pb : allPartitionBuckets()) {
            all.put(pb, offsets.offsetOr(pb, 0L));
        }
        return all;
    }

    /** The store's end offset of every partition-bucket of the table. */
    private static Map<PartitionBucket, Long> storeEnds(StreamTable streamTable) {
        return new HashMap<>(
                tables.store.listOffsets(
                        streamTable, allPartitionBuckets(), OffsetPosition.LATEST));
    }

    private static long total(StreamOffsets offsets) {
        return total(offsets.asMap());
    }

    private static long total(Map<PartitionBucket, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * {@code next} has, for every partition-bucket of {@code previous}, an offset at least as high.
     */
    private static void assertCarriedOn(StreamOffsets previous, StreamOffsets next) {
        for (Map.Entry<PartitionBucket, Long> e : previous.asMap().entrySet()) {
            assertThat(next.offsetOr(e.getKey(), -1L))
                    .as("offset of %s after the restore", e.getKey())
                    .isGreaterThanOrEqualTo(e.getValue());
        }
    }

    /**
     * Every snapshot's offsets are at least those of the snapshot before, partition-bucket-wise.
     */
    private static void assertOffsetsNeverGoBack(Identifier identifier) throws Exception {
        FileStoreTable table = (FileStoreTable) tables.catalog.getTable(identifier);
        long earliest = table.snapshotManager().earliestSnapshotId();
        long latest = table.snapshotManager().latestSnapshotId();
        StreamOffsets previous = StreamOffsets.empty();
        for (long id = earliest; id <= latest; id++) {
            StreamOffsets offsets = offsetsOf(identifier, id);
            for (Map.Entry<PartitionBucket, Long> e : previous.asMap().entrySet()) {
                assertThat(offsets.offsetOr(e.getKey(), -1L))
                        .as("offset of %s in snapshot %s", e.getKey(), id)
                        .isGreaterThanOrEqualTo(e.getValue());
            }
            previous = offsets;
        }
    }

    // ------------------------------------------------------------------------------------------
    // what Paimon and the store hold
    // ------------------------------------------------------------------------------------------

    /** The store's unfenced records below the offsets of a snapshot are the snapshot's rows. */
    private static void assertStoreBelowOffsetsEqualsPaimon(Identifier identifier, long snapshotId)
            throws Exception {
        FileStoreTable table = (FileStoreTable) tables.catalog.getTable(identifier);
        StreamTable streamTable = tables.store.get(StreamTableSpec.of(identifier, table));
        SameRows.assertSameRows(
                "store records below the offsets of snapshot " + snapshotId,
                tables.verify.readStore(streamTable, offsetsOf(identifier, snapshotId)),
                SinkVerification.readPaimon(table, snapshotId));
    }
}
