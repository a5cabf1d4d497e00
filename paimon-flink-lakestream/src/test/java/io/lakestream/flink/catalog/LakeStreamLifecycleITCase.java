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
import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.AbortedRanges;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.count;
import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The life cycle of a table around the jobs that write it, in SQL on real Fluss, a MiniCluster and
 * a local Paimon warehouse: enabling again is refused while a job started before a disable still
 * dual-writes, and fences a stopped job's uncommitted tail once its lease expired; {@code
 * lake_stream_status} shows a cancelled job's tail, its writer and whether its lease expired.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamLifecycleITCase {

    /** Long enough that a live job's renewals (every third of it) never lapse on a busy machine. */
    private static final Duration LEASE_TIMEOUT = Duration.ofSeconds(4);

    /** Checkpoints this far apart leave records past the last commit when a job is cancelled. */
    private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(2);

    private static final int STATUS_READABLE = 4;
    private static final int STATUS_COMMITTED = 3;
    private static final int STATUS_FENCED = 7;
    private static final int STATUS_UNCOMMITTED = 8;
    private static final int STATUS_WRITER = 9;
    private static final int STATUS_LEASE_EXPIRED = 10;

    @TempDir static java.nio.file.Path warehouse;

    private static LakeSqlEnvironments environments;
    private static StreamStore store;

    @BeforeAll
    static void open() {
        environments = new LakeSqlEnvironments(warehouse, LEASE_TIMEOUT);
        store = SharedStreamStore.newStore();
    }

    @AfterAll
    static void close() {
        store.close();
    }

    @Test
    void enablingIsRefusedWhileAJobStillWritesAndFencesTheTailOfAStoppedOne() throws Exception {
        String table = "db.reenabled";
        StreamTableEnvironment tEnv = environments.streaming(CHECKPOINT_INTERVAL);
        JobClient job = startWriting(tEnv, table);

        // disabled, but the job started while enabled dual-writes on
        tEnv.executeSql("ALTER TABLE lake." + table + " SET ('lake-stream.enabled' = 'false')");
        String jobId = job.getJobID().toString();
        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                        "ALTER TABLE lake."
                                                + table
                                                + " SET ('lake-stream.enabled' = 'true')"))
                .satisfies(
                        e ->
                                System.out.println(
                                        "Enabling by ALTER refused: "
                                                + ExceptionUtils.findThrowable(
                                                                e, ValidationException.class)
                                                        .map(Throwable::getMessage)
                                                        .orElse(e.toString())))
                .hasStackTraceContaining("Cannot enable lake-stream mode on table " + table)
                .hasStackTraceContaining(jobId)
                .hasStackTraceContaining("Stop that job")
                .hasStackTraceContaining("'lake-stream.sink.writer-lease-timeout' = '4 s'");
        assertThatThrownBy(
                        () ->
                                tEnv.executeSql(
                                                "CALL lake.sys.enable_lake_stream(`table` => '"
                                                        + table
                                                        + "')")
                                        .await())
                .hasStackTraceContaining("Cannot enable lake-stream mode on table " + table)
                .hasStackTraceContaining(jobId);
        assertThat(options(tEnv, table)).containsEntry("lake-stream.enabled", "false");

        // the job stops; its records past its last commit will never be committed
        StreamTable streamTable = streamTable(tEnv, table);
        awaitUncommittedRecords(tEnv, table, streamTable);
        cancel(job);
        StreamOffsets committed = tieredOffsets(tEnv, table);
        Map<PartitionBucket, Long> ends = storeEnds(streamTable);
        Map<PartitionBucket, Long> tails = new HashMap<>();
        ends.forEach((pb, end) -> tails.put(pb, end - committed.offsetOr(pb, 0L)));
        System.out.println("Committed " + committed + ", store ends " + ends);
        assertThat(tails.values().stream().mapToLong(Long::longValue).sum())
                .as("records the cancelled job left past its last commit")
                .isPositive();

        LakeSqlEnvironments.awaitWriterLeaseExpired(tEnv, table, LEASE_TIMEOUT);
        tEnv.executeSql("ALTER TABLE lake." + table + " SET ('lake-stream.enabled' = 'true')");

        // the enablement fenced the tail and recorded the ends above it
        assertThat(tieredOffsets(tEnv, table).asMap()).isEqualTo(ends);
        AbortedRanges fences;
        try (FenceLog log = store.openFenceLog(streamTable)) {
            fences = AbortedRanges.of(log.readNew());
        }
        ends.forEach(
                (pb, end) -> {
                    long base = committed.offsetOr(pb, 0L);
                    if (end > base) {
                        assertThat(fences.rangesOf(pb)).contains(new AbortedRange(pb, base, end));
                    }
                });
        for (Row row : status(tEnv, table)) {
            assertThat((Long) row.getField(STATUS_UNCOMMITTED)).isZero();
            assertThat(row.getField(STATUS_WRITER))
                    .as("the enablement released the lease it took")
                    .isNull();
        }
        // a union read sees the committed rows alone: the tail is neither in Paimon nor read
        long paimonRows =
                count(
                        environments.batch(),
                        "lake." + table + " /*+ OPTIONS('lake-stream.read.lake-only' = 'true') */");
        assertThat(count(environments.batch(), "lake." + table)).isEqualTo(paimonRows);
    }

    @Test
    void statusShowsACancelledJobsUncommittedTailItsWriterAndItsExpiredLease() throws Exception {
        String table = "db.cancelled";
        StreamTableEnvironment tEnv = environments.streaming(CHECKPOINT_INTERVAL);
        JobClient job = startWriting(tEnv, table);
        String jobId = job.getJobID().toString();

        TableResult running =
                tEnv.executeSql("CALL lake.sys.lake_stream_status(`table` => '" + table + "')");
        assertThat(running.getResolvedSchema().getColumnNames())
                .endsWith(
                        "fenced_records", "uncommitted_records", "writer", "writer_lease_expired");
        for (Row row : CollectionUtil.iteratorToList(running.collect())) {
            assertThat((String) row.getField(STATUS_WRITER)).contains(jobId);
            assertThat(row.getField(STATUS_LEASE_EXPIRED)).isEqualTo(false);
        }

        StreamTable streamTable = streamTable(tEnv, table);
        awaitUncommittedRecords(tEnv, table, streamTable);
        cancel(job);
        StreamOffsets committed = tieredOffsets(tEnv, table);
        Map<PartitionBucket, Long> ends = storeEnds(streamTable);
        List<Row> afterCancel = status(tEnv, table);
        System.out.println("lake_stream_status after the cancel: " + afterCancel);
        assertThat(afterCancel).hasSize(ends.size());
        long uncommitted = 0;
        for (Row row : afterCancel) {
            PartitionBucket pb = partitionBucket(row);
            long expected = ends.get(pb) - committed.offsetOr(pb, 0L);
            assertThat((Long) row.getField(STATUS_UNCOMMITTED))
                    .as("uncommitted records of %s", pb)
                    .isEqualTo(expected)
                    .isEqualTo(
                            (Long) row.getField(STATUS_READABLE)
                                    - (Long) row.getField(STATUS_COMMITTED));
            assertThat((Long) row.getField(STATUS_FENCED)).isZero();
            assertThat((String) row.getField(STATUS_WRITER)).contains(jobId);
            uncommitted += expected;
        }
        assertThat(uncommitted).as("records the cancelled job left").isPositive();

        Await.until(
                () ->
                        status(tEnv, table).stream()
                                .allMatch(
                                        r -> Boolean.TRUE.equals(r.getField(STATUS_LEASE_EXPIRED))),
                "the status shows the cancelled job's lease expired");
        // the status fences nothing: the tail stays until the next writer or enablement fences it
        for (Row row : status(tEnv, table)) {
            PartitionBucket pb = partitionBucket(row);
            assertThat((Long) row.getField(STATUS_UNCOMMITTED))
                    .isEqualTo(ends.get(pb) - committed.offsetOr(pb, 0L));
            assertThat((Long) row.getField(STATUS_FENCED)).isZero();
        }
    }

    /**
     * Creates {@code table} in lake-stream mode and starts a streaming INSERT into it; returns once
     * a checkpoint of it is committed, so that the table has committed and uncommitted records.
     */
    private static JobClient startWriting(StreamTableEnvironment tEnv, String table)
            throws Exception {
        String name = table.substring(table.indexOf('.') + 1);
        tEnv.executeSql(
                "CREATE TABLE lake."
                        + table
                        + " (id BIGINT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id', "
                        + "'lake-stream.enabled' = 'true')");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE gen_"
                        + name
                        + " (id BIGINT, v STRING) WITH ('connector' = 'datagen', "
                        + "'rows-per-second' = '200', 'fields.v.length' = '8')");
        JobClient job =
                tEnv.executeSql("INSERT INTO lake." + table + " SELECT * FROM gen_" + name)
                        .getJobClient()
                        .orElseThrow();
        Await.until(
                () -> tieredOffsets(tEnv, table).asMap().values().stream().anyMatch(o -> o > 0),
                "a checkpoint of the INSERT into " + table + " is committed");
        return job;
    }

    /**
     * Waits until the store holds records past the last commit: under load the writer may not have
     * written since the last barrier, and a cancel then leaves no tail to fence.
     */
    private static void awaitUncommittedRecords(
            StreamTableEnvironment tEnv, String table, StreamTable streamTable) throws Exception {
        Await.until(
                () -> {
                    StreamOffsets committed = tieredOffsets(tEnv, table);
                    return storeEnds(streamTable).entrySet().stream()
                            .anyMatch(e -> e.getValue() > committed.offsetOr(e.getKey(), 0L));
                },
                "records of the INSERT into " + table + " past its last commit");
    }

    private static void cancel(JobClient job) throws Exception {
        job.cancel().get();
        Await.until(
                () -> job.getJobStatus().get().isGloballyTerminalState(),
                "the job " + job.getJobID() + " is cancelled");
    }

    private static List<Row> status(StreamTableEnvironment tEnv, String table) {
        return CollectionUtil.iteratorToList(
                tEnv.executeSql("CALL lake.sys.lake_stream_status(`table` => '" + table + "')")
                        .collect());
    }

    /** The partition-bucket of a status row of the unpartitioned tables here. */
    private static PartitionBucket partitionBucket(Row row) {
        return new PartitionBucket(BinaryRow.EMPTY_ROW, (Integer) row.getField(1));
    }

    private static StreamOffsets tieredOffsets(StreamTableEnvironment tEnv, String table)
            throws Exception {
        return SnapshotOffsets.ofLatestSnapshot(paimonTable(tEnv, table))
                .orElse(StreamOffsets.empty());
    }

    private static StreamTable streamTable(StreamTableEnvironment tEnv, String table)
            throws Exception {
        FileStoreTable paimon = paimonTable(tEnv, table);
        return store.get(StreamTableSpec.of(Identifier.fromString(table), paimon));
    }

    private static Map<PartitionBucket, Long> storeEnds(StreamTable streamTable) {
        return store.listOffsets(
                streamTable, store.listPartitionBuckets(streamTable), OffsetPosition.LATEST);
    }

    private static Map<String, String> options(StreamTableEnvironment tEnv, String table)
            throws Exception {
        String[] parts = table.split("\\.");
        return tEnv.getCatalog("lake")
                .orElseThrow()
                .getTable(new ObjectPath(parts[0], parts[1]))
                .getOptions();
    }
}
