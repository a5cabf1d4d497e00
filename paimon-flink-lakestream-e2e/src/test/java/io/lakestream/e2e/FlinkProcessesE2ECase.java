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

package io.lakestream.e2e;

import io.lakestream.local.cluster.FlinkProcessCluster;
import io.lakestream.local.cluster.FlinkSqlClient;
import io.lakestream.local.cluster.FlussProcessCluster;
import io.lakestream.testutils.Await;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static io.lakestream.e2e.LakeStreamScenario.DATABASE;
import static io.lakestream.e2e.LakeStreamScenario.HISTORY;
import static io.lakestream.e2e.LakeStreamScenario.JOB_TIMEOUT;
import static io.lakestream.e2e.LakeStreamScenario.RECOVERY_TIMEOUT;
import static io.lakestream.e2e.LakeStreamScenario.ROWS_PER_SECOND;
import static io.lakestream.e2e.LakeStreamScenario.appendTable;
import static io.lakestream.e2e.LakeStreamScenario.millisSince;
import static io.lakestream.e2e.LakeStreamScenario.primaryKeyTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lake-stream mode where users run it: a Flink session cluster of OS processes (a JobManager and
 * two TaskManagers on the jars of Flink's {@code lib/} plus those {@code docs/deploy.md} lists) and
 * a Fluss cluster of OS processes (ZooKeeper, a coordinator, three tablet servers, stream tables
 * replicated twice), statements submitted through Flink's SQL client with {@code -f}. Each test
 * writes a bounded datagen sequence into enabled tables that already hold history, reads them
 * through the SQL client while the job runs, kills a process with SIGKILL mid-stream, and checks
 * that every row is in the table exactly once: in Paimon's own read (the oracle) and in a union
 * read. The recovery times are printed.
 *
 * <p>The processes' configuration, data and logs are under {@code target/e2e/flink-processes-*}.
 */
@ExtendWith(NoProcessLeftBehind.class)
class FlinkProcessesE2ECase {

    private static LakeStreamScenario scenario;
    private static FlussProcessCluster fluss;
    private static FlinkProcessCluster flink;
    private static FlinkSqlClient sqlClient;

    @BeforeAll
    static void startClusters() throws Exception {
        // three tablet servers and two replicas: a stream table outlives the loss of one server
        scenario = LakeStreamScenario.start("flink-processes", 3, 2, Collections.emptyMap());
        fluss = scenario.fluss();
        flink = scenario.flink();
        sqlClient = scenario.sqlClient();
    }

    @AfterAll
    static void stopClusters() throws Exception {
        if (scenario != null) {
            scenario.close();
        }
    }

    /**
     * An append table and a primary-key table, written by one job: the union read sees rows that no
     * snapshot holds yet; the TaskManager that runs the job is killed after a checkpoint, a new one
     * takes its place, the job restores and writes the rows after the checkpoint again; no read
     * returns a row twice.
     */
    @Test
    void taskManagerKilledMidStream() throws Exception {
        String events = "events_tm";
        String orders = "orders_tm";
        // the job must outlive the steps before the kill (see ROWS_PER_SECOND)
        int rows = 5000;
        Map<String, String> jobs =
                scenario.startJobs(
                        "tm-kill",
                        List.of(appendTable(events, 2), primaryKeyTable(orders, 2)),
                        rows,
                        // readers that run through the kill, each in a job of its own
                        List.of(events, orders));
        String jobId = jobs.get("tm-kill");

        try (JobWatch watch = new JobWatch(flink, jobId)) {
            scenario.awaitFullyRunning(jobId);
            // the checkpoint interval is long: nothing the job wrote is in a snapshot yet
            long checkpointsBefore = flink.completedCheckpoints(jobId);
            List<String> midStream =
                    sqlClient.run("tm-kill-mid-stream", scenario.counts(events, orders));
            assertThat(checkpointsBefore + flink.completedCheckpoints(jobId)).isZero();
            for (String table : List.of(events, orders)) {
                long[] lake = FlinkSqlClient.row(midStream, "lake_" + table);
                long[] union = FlinkSqlClient.row(midStream, "union_" + table);
                scenario.log(
                        "Mid-stream %s: %d rows in Paimon, %d in the union read",
                        table, lake[0], union[0]);
                assertThat(lake[0]).as("rows of %s in Paimon", table).isEqualTo(HISTORY);
                assertThat(union[0])
                        .as("rows of %s in the union read", table)
                        .isGreaterThan(HISTORY);
                assertThat(union[1])
                        .as("distinct ids of %s in the union read", table)
                        .isEqualTo(union[0]);
            }

            // commit a part, write on past it, then crash the TaskManager that runs the job
            long checkpoint = flink.checkpoint(jobId, Duration.ofMinutes(1));
            scenario.awaitWrittenPast(ROWS_PER_SECOND, events, orders);
            assertThat(flink.jobState(jobId))
                    .as("state of job %s before the kill: it must still be writing", jobId)
                    .isEqualTo("RUNNING");
            String victim = flink.taskManagerOf(jobId);
            long kill = System.nanoTime();
            flink.killTaskManager(victim);
            // a reader submitted while the writing job is down: it waits for the slots that the
            // replacement brings, as a user's would, so it runs beside the recovery
            CompletableFuture<List<String>> duringFault =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return sqlClient.run(
                                            "tm-kill-during-fault",
                                            scenario.counts(events, orders));
                                } catch (Exception e) {
                                    throw new CompletionException(e);
                                }
                            });
            String replacement = flink.startTaskManager();
            flink.awaitTaskManagers(Set.of(replacement));
            Duration recovery = watch.awaitRecovered(kill, RECOVERY_TIMEOUT);
            assertThat(recovery)
                    .as(
                            "recovery of job %s after the kill; its exceptions: %s",
                            jobId, flink.jobExceptions(jobId))
                    .isNotNull();
            scenario.log(
                    "RECOVERY TaskManager %s killed after checkpoint %d: job %s ran again with "
                            + "all tasks after %d ms (replacement %s registered after %d ms)",
                    victim, checkpoint, jobId, recovery.toMillis(), replacement, millisSince(kill));

            List<String> duringFaultOutput = duringFault.get(5, TimeUnit.MINUTES);
            for (String table : List.of(events, orders)) {
                long[] union = FlinkSqlClient.row(duringFaultOutput, "union_" + table);
                scenario.log("During the fault %s: %d rows in the union read", table, union[0]);
                assertThat(union[1])
                        .as("distinct ids of %s in the union read during the fault", table)
                        .isEqualTo(union[0]);
            }

            // the restored writer fenced what the failed attempt wrote past the checkpoint
            List<String> afterRecovery =
                    sqlClient.run("tm-kill-after-recovery", scenario.counts(events, orders));
            for (String table : List.of(events, orders)) {
                long[] union = FlinkSqlClient.row(afterRecovery, "union_" + table);
                scenario.log("After the recovery %s: %d rows in the union read", table, union[0]);
                assertThat(union[1])
                        .as("distinct ids of %s in the union read", table)
                        .isEqualTo(union[0]);
            }

            flink.awaitFinished(jobId, JOB_TIMEOUT);
            scenario.log("Job %s finished after %d restarts", jobId, flink.jobRestarts(jobId));
            scenario.awaitCopy(jobs.get(events), events, LakeStreamScenario.expectedIds(rows));
            scenario.awaitCopy(jobs.get(orders), orders, LakeStreamScenario.expectedIds(rows));
        }
        scenario.assertEveryRowOnce(rows, events, orders);
    }

    /**
     * One of the three Fluss tablet servers is killed while the job writes and restarted on its
     * data: the stream table's replicas on the other servers take over its buckets.
     */
    @Test
    void flussTabletServerKilledMidStream() throws Exception {
        String events = "events_ts";
        int rows = 2000;
        // more buckets than tablet servers: the killed server leads some of them
        String jobId = scenario.startJob("ts-kill", List.of(appendTable(events, 4)), rows);

        try (JobWatch watch = new JobWatch(flink, jobId)) {
            scenario.awaitFullyRunning(jobId);
            // rows written before and past the checkpoint
            scenario.awaitWrittenPast(ROWS_PER_SECOND, events);
            long checkpoint = flink.checkpoint(jobId, Duration.ofMinutes(1));
            scenario.awaitWrittenPast(ROWS_PER_SECOND, events);
            // the leader of a bucket the job writes; its in-sync follower takes over
            List<Integer> replicas =
                    new FlussRegistrations(fluss).leaderAndIsr(DATABASE, events, 0);
            assertThat(replicas).as("leader and in-sync replicas of bucket 0").hasSize(2);
            int victim = replicas.get(0);
            long pid = fluss.tabletServer(victim).pid();
            long kill = System.nanoTime();
            fluss.killTabletServer(victim);
            new FlussRegistrations(fluss).awaitTabletServerUnregistered(victim);
            fluss.startTabletServer(victim);
            fluss.awaitTabletServers();
            long restarted = millisSince(kill);

            flink.awaitFinished(jobId, JOB_TIMEOUT);
            long restarts = flink.jobRestarts(jobId);
            Duration recovery = watch.recoveredAfter(kill);
            scenario.log(
                    "RECOVERY Fluss tablet server %d (pid %d), leader of bucket 0 (replicas %s), "
                            + "killed after checkpoint %d, registered again after %d ms; "
                            + "job %s: %s, %d restarts",
                    victim,
                    pid,
                    replicas,
                    checkpoint,
                    restarted,
                    jobId,
                    recovery == null
                            ? "kept running"
                            : "ran again with all tasks after " + recovery.toMillis() + " ms",
                    restarts);
        }
        scenario.assertEveryRowOnce(rows, events);
    }

    /**
     * A second streaming INSERT into a table that a running job writes. The SQL client submits it
     * as any other statement (its output has the job id and no error: the table is free to plan),
     * and the refusal comes from the job: its writer finds the first job's writer lease, waits for
     * it to expire, sees it renewed, and fails for good, without restarts, with an error that names
     * the table and the job that holds the lease. The first job goes on and ends with every row
     * once; {@code lake_stream_status} shows it as the table's writer with a live lease.
     */
    @Test
    void secondWritingJobIsRefused() throws Exception {
        String events = "events_two_writers";
        int rows = 5000;
        // a lease of 15 s instead of the default minute: the second job waits up to a lease
        // timeout for the first one's lease before it is refused, and the first one must still
        // be running then
        String ddl =
                appendTable(events, 2)
                        .replace(
                                "WITH (",
                                "WITH ('lake-stream.sink.writer-lease-timeout' = '15 s', ");
        String firstJob = scenario.startJob("first-writer", List.of(ddl), rows);
        scenario.awaitFullyRunning(firstJob);
        // a commit, so that the status has tiered offsets below the store's end
        long checkpoint = flink.checkpoint(firstJob, Duration.ofMinutes(1));

        long submit = System.nanoTime();
        List<String> output =
                scenario.sql(
                        "second-writer",
                        "SET 'execution.runtime-mode' = 'batch';\n"
                                + String.format(
                                        "CALL lake.sys.lake_stream_status(`table` => '%s.%s');%n",
                                        DATABASE, events)
                                // the same ids: rows of this job, had it written, were duplicates
                                + LakeStreamScenario.insertJob(
                                        "second-writer", List.of(events), 1, rows));
        String secondJob = LakeStreamScenario.lastJobId(output);
        scenario.log("The SQL client submitted the second writing job %s", secondJob);

        List<Map<String, String>> status = statusRows(output);
        scenario.log("lake_stream_status after checkpoint %d: %s", checkpoint, status);
        assertThat(status).as("status rows, one per bucket").hasSize(2);
        long tiered = 0;
        for (Map<String, String> row : status) {
            String bucket = row.get("bucket");
            assertThat(row.get("partition")).as("partition of bucket %s", bucket).isEmpty();
            long tier = Long.parseLong(row.get("tiered_offset"));
            long committed = Long.parseLong(row.get("committed_offset"));
            long readable = Long.parseLong(row.get("readable_offset"));
            long lag = Long.parseLong(row.get("lag_records"));
            tiered += tier;
            assertThat(committed).as("committed_offset of bucket %s", bucket).isEqualTo(tier);
            assertThat(readable).as("readable_offset of bucket %s", bucket).isGreaterThan(tier);
            assertThat(lag).as("lag_records of bucket %s", bucket).isEqualTo(readable - tier);
            assertThat(Long.parseLong(row.get("lag_millis")))
                    .as("lag_millis of bucket %s", bucket)
                    .isPositive();
            assertThat(row.get("fenced_records"))
                    .as("fenced_records of bucket %s", bucket)
                    .isEqualTo("0");
            assertThat(Long.parseLong(row.get("uncommitted_records")))
                    .as("uncommitted_records of bucket %s", bucket)
                    .isEqualTo(readable - committed);
            assertThat(row.get("writer"))
                    .as("writer of bucket %s", bucket)
                    .startsWith("Flink job " + firstJob + " '");
            assertThat(row.get("writer_lease_expired"))
                    .as("writer_lease_expired of bucket %s", bucket)
                    .isEqualToIgnoringCase("false");
        }
        assertThat(tiered).as("tiered offsets after checkpoint %d", checkpoint).isPositive();

        String state = awaitEnded(secondJob, RECOVERY_TIMEOUT);
        String exceptions = flink.jobExceptions(secondJob);
        scenario.log(
                "The second writing job %s was %s %d ms after its submission; the first job %s is %s",
                secondJob, state, millisSince(submit), firstJob, flink.jobState(firstJob));
        assertThat(state)
                .as("state of the second job; its exceptions: %s", exceptions)
                .isEqualTo("FAILED");
        assertThat(exceptions)
                .as("exceptions of the second job")
                .contains("WriterConflictException")
                .contains("Paimon table " + DATABASE + "." + events + " is written by another")
                .contains("Flink job " + firstJob);
        assertThat(flink.jobRestarts(secondJob)).as("restarts of the second job").isZero();
        assertThat(flink.jobState(firstJob)).as("state of the first job").isEqualTo("RUNNING");

        flink.awaitFinished(firstJob, JOB_TIMEOUT);
        assertThat(flink.jobRestarts(firstJob)).as("restarts of the first job").isZero();
        scenario.assertEveryRowOnce(rows, events);
    }

    /**
     * A streaming reader runs while its table is written by a job that ends; the table is then
     * disabled, written by Paimon alone (a batch INSERT), enabled again by the procedure and
     * written by a new streaming job. What Paimon alone commits while the mode is off is not in the
     * store, so the reader cannot return it: it fails for good, with an error that says so and what
     * to do, as soon as it sees the disable, before the batch INSERT, instead of silently missing
     * those rows. A reader started after the table was enabled again, and Paimon's own read, return
     * every row once.
     */
    @Test
    void disabledAndEnabledWhileAReaderRuns() throws Exception {
        String events = "events_mode";
        String table = DATABASE + "." + events;
        String copy = events + "_copy";
        int streamed = 1000; // ids 1 to 1000, dual-written before the disable
        long batchFirst = 1001; // ids 1001 to 1200, written by Paimon alone while disabled
        long batchLast = 1200;
        int lastId = 1500; // ids 1201 to 1500, dual-written after enabling again
        String firstJob =
                scenario.startJob("before-disable", List.of(appendTable(events, 2)), streamed);
        String reader = scenario.startCopyJob(events, false);
        flink.awaitFinished(firstJob, JOB_TIMEOUT);
        scenario.awaitFullyRunning(reader);

        long disable = System.nanoTime();
        scenario.sql(
                "disable",
                String.format("ALTER TABLE %s SET ('lake-stream.enabled' = 'false');%n", table));
        long disabled = System.nanoTime();
        String state = awaitEnded(reader, RECOVERY_TIMEOUT);
        String exceptions = flink.jobExceptions(reader);
        scenario.log(
                "RECOVERY: the reader job %s was %s %d ms after the disable was submitted, %d ms "
                        + "after the SQL client that disabled the table returned",
                reader, state, millisSince(disable), millisSince(disabled));
        assertThat(state)
                .as("state of the reader after the disable; its exceptions: %s", exceptions)
                .isEqualTo("FAILED");
        assertThat(exceptions)
                .as("exceptions of the reader")
                .contains("SuppressRestartsException")
                .contains("Lake-stream mode of table " + table + " was turned off")
                .contains("'lake-stream.enabled' = 'false'")
                .contains("not in the stream store")
                .contains("Restart the query");
        assertThat(flink.jobRestarts(reader)).as("restarts of the reader").isZero();
        // what it delivered before it failed, it delivered once
        List<Long> delivered = scenario.paimonIds(copy);
        assertThat(delivered).as("ids the failed reader copied").doesNotHaveDuplicates();
        assertThat(ids(-HISTORY, streamed))
                .as("ids the failed reader could have copied")
                .containsAll(delivered);

        scenario.sql(
                "paimon-alone",
                "SET 'execution.runtime-mode' = 'batch';\n"
                        + "SET 'table.dml-sync' = 'true';\n"
                        + String.format(
                                "CREATE TEMPORARY TABLE default_catalog.default_database.ids_disabled "
                                        + "(id BIGINT) WITH ('connector' = 'datagen', "
                                        + "'fields.id.kind' = 'sequence', 'fields.id.start' = '%d', "
                                        + "'fields.id.end' = '%d', 'number-of-rows' = '%d');%n",
                                batchFirst, batchLast, batchLast - batchFirst + 1)
                        + String.format(
                                "INSERT INTO %s SELECT id, CONCAT('%s-', CAST(id AS STRING)) "
                                        + "FROM default_catalog.default_database.ids_disabled;%n",
                                table, events)
                        // the next reader copies into a fresh table of the same name
                        + String.format("DROP TABLE %s.%s;%n", DATABASE, copy));
        List<Long> paimon = scenario.paimonIds(events);
        Collections.sort(paimon);
        assertThat(paimon)
                .as("ids in Paimon's read of %s after the batch INSERT while disabled", events)
                .isEqualTo(ids(-HISTORY, batchLast));

        List<String> output =
                scenario.sql(
                        "enable-again",
                        "SET 'execution.runtime-mode' = 'batch';\n"
                                + String.format(
                                        "CALL lake.sys.enable_lake_stream(`table` => '%s');%n",
                                        table)
                                + String.format(
                                        "CALL lake.sys.lake_stream_status(`table` => '%s');%n",
                                        table)
                                + LakeStreamScenario.insertJob(
                                        "after-enable", List.of(events), batchLast + 1, lastId));
        String lastJob = LakeStreamScenario.lastJobId(output);
        List<Map<String, String>> status = statusRows(output);
        scenario.log("lake_stream_status after enabling again: %s", status);
        long readable = 0;
        for (Map<String, String> row : status) {
            String bucket = row.get("bucket");
            // enabling recorded the store's ends: nothing to catch up, nothing fenced
            assertThat(row.get("tiered_offset"))
                    .as("tiered_offset of bucket %s", bucket)
                    .isEqualTo(row.get("readable_offset"));
            assertThat(row.get("lag_records"))
                    .as("lag_records of bucket %s", bucket)
                    .isEqualTo("0");
            assertThat(row.get("fenced_records"))
                    .as("fenced_records of bucket %s", bucket)
                    .isEqualTo("0");
            // the first job released the lease after its final commit, and so did enabling: the
            // client prints the null writer as an empty cell
            assertThat(row.get("writer")).as("writer of bucket %s", bucket).isEmpty();
            readable += Long.parseLong(row.get("readable_offset"));
        }
        assertThat(readable)
                .as("records in the stream table: the first job's rows, none of the batch INSERT's")
                .isEqualTo(streamed);

        // a new read, started once the table is enabled again: the latest snapshot, which holds
        // the batch INSERT's rows, then the store
        String newReader = scenario.startCopyJob(events, false);
        flink.awaitFinished(lastJob, JOB_TIMEOUT);
        assertThat(flink.jobRestarts(newReader)).as("restarts of the new reader").isZero();
        scenario.awaitCopy(newReader, events, ids(-HISTORY, lastId));
        scenario.assertEveryRowOnce(lastId, events);
    }

    /** The ids {@code first} to {@code last} but 0, as the history and the jobs write them. */
    private static List<Long> ids(long first, long last) {
        return LongStream.rangeClosed(first, last)
                .filter(id -> id != 0)
                .boxed()
                .collect(Collectors.toList());
    }

    /**
     * The rows of the {@code lake_stream_status} result in the SQL client's output, as the client
     * prints them in tableau mode: column name to cell, trimmed.
     */
    private static List<Map<String, String>> statusRows(List<String> output) {
        List<String> columns = null;
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : output) {
            String trimmed = line.trim();
            if (columns == null) {
                if (trimmed.startsWith("|") && trimmed.contains(" tiered_offset ")) {
                    columns = cells(trimmed);
                }
                continue;
            }
            if (trimmed.startsWith("+") && !rows.isEmpty()) {
                return rows;
            }
            if (trimmed.startsWith("|")) {
                List<String> cells = cells(trimmed);
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 0; i < columns.size(); i++) {
                    row.put(columns.get(i), i < cells.size() ? cells.get(i) : "");
                }
                rows.add(row);
            }
        }
        throw new AssertionError(
                "No lake_stream_status result in the SQL client's output:"
                        + System.lineSeparator()
                        + String.join(System.lineSeparator(), output));
    }

    private static List<String> cells(String tableauLine) {
        List<String> cells = new ArrayList<>();
        for (String cell : tableauLine.substring(1).split("\\|")) {
            cells.add(cell.trim());
        }
        return cells;
    }

    /** Waits until the job is FAILED, CANCELED or FINISHED and returns that state. */
    private static String awaitEnded(String jobId, Duration timeout) throws Exception {
        Set<String> ended = Set.of("FAILED", "CANCELED", "FINISHED");
        String state =
                Await.poll(
                        () -> flink.jobState(jobId),
                        ended::contains,
                        timeout,
                        Duration.ofMillis(500));
        if (!ended.contains(state)) {
            throw new AssertionError(
                    String.format(
                            "Job %s is %s after %s, not ended; its exceptions: %s",
                            jobId, state, timeout, flink.jobExceptions(jobId)));
        }
        return state;
    }
}
