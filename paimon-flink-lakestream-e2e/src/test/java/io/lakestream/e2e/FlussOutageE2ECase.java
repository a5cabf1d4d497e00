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

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.lakestream.e2e.LakeStreamScenario.DATABASE;
import static io.lakestream.e2e.LakeStreamScenario.JOB_TIMEOUT;
import static io.lakestream.e2e.LakeStreamScenario.RECOVERY_TIMEOUT;
import static io.lakestream.e2e.LakeStreamScenario.ROWS_PER_SECOND;
import static io.lakestream.e2e.LakeStreamScenario.appendTable;
import static io.lakestream.e2e.LakeStreamScenario.expectedIds;
import static io.lakestream.e2e.LakeStreamScenario.millisSince;
import static io.lakestream.e2e.LakeStreamScenario.primaryKeyTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole Fluss cluster (its tablet servers, its coordinator and ZooKeeper) stops for 30 s and
 * starts again on its data while a job writes an append table and a primary-key table and readers
 * read them: readers started before the outage run through it, a batch union read is started during
 * it, and once the writing job finished every row is in each table exactly once, in Paimon's own
 * read (the oracle), in the union read, and in what each reader delivered. The recovery times are
 * printed.
 *
 * <p>The processes' configuration, data and logs are under {@code target/e2e/fluss-outage-*}.
 */
@ExtendWith(NoProcessLeftBehind.class)
class FlussOutageE2ECase {

    /** How long the Fluss cluster stays down. */
    private static final Duration OUTAGE = Duration.ofSeconds(30);

    /**
     * The restart strategy that lets jobs outlast the outage. A reader job whose source starts
     * while the store cannot be reached fails within a second (the Fluss client gives up on a
     * refused bootstrap server at once), and so does one that starts while the cluster is coming
     * back (no coordinator yet, no live tablet server yet): each attempt of a fixed-delay strategy
     * takes about 2.5 s, and the cluster's 10 attempts (of 2 s) are used up after about 30 s; a run
     * with them used 8 of them. An exponential delay that is capped low retries without a limit and
     * still restarts within seconds of the store's return.
     */
    private static final Map<String, String> RESTART_STRATEGY =
            Map.of(
                    "restart-strategy.type", "exponential-delay",
                    "restart-strategy.exponential-delay.initial-backoff", "1 s",
                    "restart-strategy.exponential-delay.max-backoff", "10 s",
                    "restart-strategy.exponential-delay.backoff-multiplier", "2.0",
                    "restart-strategy.exponential-delay.reset-backoff-threshold", "1 min");

    private static LakeStreamScenario scenario;
    private static FlussProcessCluster fluss;
    private static FlinkProcessCluster flink;
    private static FlinkSqlClient sqlClient;

    @BeforeAll
    static void startClusters() throws Exception {
        scenario = LakeStreamScenario.start("fluss-outage", 3, 2, RESTART_STRATEGY);
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
     * A checkpoint commits part of the rows, more are written past it, then the whole Fluss cluster
     * stops, stays down for 30 s and starts again on the same ports and data directories. The
     * writing job and the readers run on (or restart) and end with every row exactly once.
     */
    @Test
    void wholeFlussClusterStoppedAndStartedAgain() throws Exception {
        String events = "events_outage";
        String orders = "orders_outage";
        // the source still emits when the cluster is back from its outage, about a minute after
        // the job started (see ROWS_PER_SECOND)
        int rows = 10000;
        // readers started before the outage, each in a job of its own, run through it. The
        // writing job may fail over after the outage (see below): a read-uncommitted reader of an
        // append table would then return the failed attempt's records and their rewrite, so that
        // one reads committed records; the primary-key copy takes a rewrite as an update of the
        // same key, so that one reads the freshest records
        Map<String, String> jobs =
                scenario.startJobs(
                        "outage",
                        List.of(appendTable(events, 2), primaryKeyTable(orders, 2)),
                        rows,
                        List.of(events, orders));
        String jobId = jobs.get("outage");
        String eventsReader = jobs.get(events);
        String ordersReader = jobs.get(orders);

        ExecutorService background = Executors.newSingleThreadExecutor();
        try (JobWatch watch = new JobWatch(flink, jobId)) {
            scenario.awaitFullyRunning(jobId);

            // commit a part, write on past it
            long checkpoint = flink.checkpoint(jobId, Duration.ofMinutes(1));
            scenario.awaitWrittenPast(ROWS_PER_SECOND, events, orders);
            long storedBefore = scenario.storeRecords(events, orders);
            long copiedBefore = copiedRows(orders);

            long stop = System.nanoTime();
            fluss.stopAll();
            long down = System.nanoTime();
            // a periodic checkpoint that falls into the outage: its barrier waits for the writer's
            // flush, which waits for the store (at most 'lake-stream.store.write-timeout')
            String duringOutage =
                    flink.restPost("/jobs/" + jobId + "/checkpoints", "{}")
                            .path("request-id")
                            .asText();
            scenario.log(
                    "Stopped the whole Fluss cluster in %d ms, after checkpoint %d; the store held "
                            + "%d records of the two tables, the primary-key reader had copied %d rows",
                    millisSince(stop), checkpoint, storedBefore, copiedBefore);

            // what a user sees who starts a batch union read while the store is down: run it
            // beside the outage, since it may wait for the store
            long readStart = System.nanoTime();
            Future<List<String>> readDuringOutage =
                    background.submit(
                            () -> sqlClient.run("during-outage", scenario.counts(events, orders)));
            try {
                readDuringOutage.get(OUTAGE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // told apart below, once the outage is over
            }
            long readMillis = millisSince(readStart);
            // the rest of the outage: time that has to pass, there is nothing to poll
            Thread.sleep(Math.max(0, OUTAGE.toMillis() - millisSince(down)));
            scenario.log(
                    "During the outage: writing job %s is %s with %d restarts; reader jobs %s "
                            + "with %d restarts, %s with %d restarts",
                    jobId,
                    flink.jobState(jobId),
                    flink.jobRestarts(jobId),
                    flink.jobState(eventsReader),
                    flink.jobRestarts(eventsReader),
                    flink.jobState(ordersReader),
                    flink.jobRestarts(ordersReader));
            checkReadDuringOutage(readDuringOutage, readMillis, events);

            long restart = System.nanoTime();
            long downFor = millisSince(down);
            fluss.startAll();
            scenario.log(
                    "RECOVERY Fluss cluster down for %d ms (stopping took %d ms more), started "
                            + "again with all 3 tablet servers registered in %d ms",
                    downFor, (down - stop) / 1_000_000, millisSince(restart));

            long writing = awaitStoreRecordsAbove(storedBefore, restart, events, orders);
            scenario.log(
                    "RECOVERY Fluss cluster: the writing job wrote to the store again %d ms after "
                            + "the start of the cluster began; the checkpoint triggered at the "
                            + "start of the outage %s",
                    writing, awaitCheckpoint(jobId, duringOutage, down));
            long delivered = awaitCopiedRowsAbove(copiedBefore, restart, orders);
            scenario.log(
                    "RECOVERY Fluss cluster: the read-uncommitted reader job %s delivered new rows "
                            + "%d ms after the start of the cluster began (%d restarts so far)",
                    ordersReader, delivered, flink.jobRestarts(ordersReader));

            // a commit after the outage: what the read-committed reader may deliver
            long eventsCopied = copiedRows(events);
            checkpointAfterOutage(jobId, restart);
            long committedDelivered = awaitCopiedRowsAbove(eventsCopied, restart, events);
            scenario.log(
                    "RECOVERY Fluss cluster: the read-committed reader job %s delivered new rows "
                            + "%d ms after the start of the cluster began (%d restarts so far)",
                    eventsReader, committedDelivered, flink.jobRestarts(eventsReader));

            // a reader started after the outage, while the job writes on
            List<String> afterOutage =
                    sqlClient.run("after-outage", scenario.counts(events, orders));
            for (String table : List.of(events, orders)) {
                long[] union = FlinkSqlClient.row(afterOutage, "union_" + table);
                scenario.log("After the outage %s: %d rows in the union read", table, union[0]);
                assertThat(union[1])
                        .as("distinct ids of %s in the union read after the outage", table)
                        .isEqualTo(union[0]);
            }

            flink.awaitFinished(jobId, JOB_TIMEOUT);
            long restarts = flink.jobRestarts(jobId);
            Duration recovery = watch.recoveredAfter(restart);
            scenario.log(
                    "RECOVERY Fluss cluster: writing job %s finished after %d restarts; %s",
                    jobId,
                    restarts,
                    restarts == 0
                            ? "it ran with all its tasks through the outage"
                            : recovery == null
                                    ? "it did not run with all its tasks again"
                                    : "it ran with all its tasks again "
                                            + recovery.toMillis()
                                            + " ms after the start of the cluster began");
            scenario.awaitCopy(eventsReader, events, expectedIds(rows));
            scenario.awaitCopy(ordersReader, orders, expectedIds(rows));
        } finally {
            background.shutdownNow();
            background.awaitTermination(1, TimeUnit.MINUTES);
        }
        scenario.assertEveryRowOnce(rows, events, orders);
    }

    /**
     * The batch union read started during the outage must end within the outage with an error that
     * names the stream table's Paimon table and the store's address. It is not waited for beyond
     * the outage: one still running then is stopped and the test fails.
     */
    private void checkReadDuringOutage(Future<List<String>> read, long readMillis, String table)
            throws Exception {
        if (!read.isDone()) {
            read.cancel(true);
            throw new AssertionError(
                    String.format(
                            "A batch union read started during the Fluss outage was still "
                                    + "running after %d ms",
                            readMillis));
        }
        Throwable failure;
        try {
            List<String> output = read.get();
            throw new AssertionError(
                    "A batch union read started during the Fluss outage returned rows: " + output);
        } catch (ExecutionException e) {
            failure = e.getCause();
        }
        String message = String.valueOf(failure.getMessage());
        // the run's failure holds what the client printed, then the end of its log
        int logTail = message.indexOf("Its log ends with:");
        String printed = logTail < 0 ? message : message.substring(0, logTail);
        scenario.log(
                "RECOVERY Fluss cluster: a batch union read started during the outage failed "
                        + "after %d ms (the client's start included); the SQL client printed:%s",
                readMillis, errorLines(printed));
        // what the user reads on the client's screen names the table and the store's address
        assertThat(printed)
                .as(
                        "the error of a union read while the store is down, as the SQL client printed it")
                .contains("Table " + DATABASE + "." + table)
                .contains("Fluss cluster at " + fluss.bootstrapServers());
    }

    /**
     * Checkpoints the writing job, once it runs with all its tasks, until a checkpoint completes: a
     * flush that timed out during the outage fails the job over after the cluster is back, and a
     * checkpoint taken while it recovers fails. Fails when none completes within twice the recovery
     * timeout.
     */
    private static void checkpointAfterOutage(String jobId, long restart) throws Exception {
        long deadline = System.nanoTime() + 2 * RECOVERY_TIMEOUT.toNanos();
        for (int attempt = 1; ; attempt++) {
            awaitFullyRunning(jobId, restart);
            try {
                long committed = flink.checkpoint(jobId, RECOVERY_TIMEOUT);
                scenario.log(
                        "RECOVERY Fluss cluster: checkpoint %d of the writing job completed %d ms "
                                + "after the start of the cluster began (attempt %d)",
                        committed, millisSince(restart), attempt);
                return;
            } catch (IllegalStateException e) {
                scenario.log(
                        "RECOVERY Fluss cluster: checkpoint attempt %d of the writing job after "
                                + "the outage failed %d ms after the start of the cluster began: "
                                + "%s",
                        attempt, millisSince(restart), e.getMessage());
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError(
                            String.format(
                                    "No checkpoint of writing job %s completed within %s after "
                                            + "the Fluss cluster was started again",
                                    jobId, RECOVERY_TIMEOUT.multipliedBy(2)),
                            e);
                }
            }
        }
    }

    /**
     * Waits until the checkpoint of trigger {@code triggerId} completed or failed, and says which,
     * when, and why it failed.
     */
    private static String awaitCheckpoint(String jobId, String triggerId, long since)
            throws Exception {
        // the trigger's status is COMPLETED once the checkpoint completed or failed
        JsonNode answer =
                Await.poll(
                        () -> flink.rest("/jobs/" + jobId + "/checkpoints/" + triggerId),
                        status -> "COMPLETED".equals(status.path("status").path("id").asText()),
                        RECOVERY_TIMEOUT,
                        Duration.ofMillis(500));
        if (!"COMPLETED".equals(answer.path("status").path("id").asText())) {
            throw new AssertionError(
                    String.format(
                            "The checkpoint triggered during the outage neither completed nor "
                                    + "failed within %s after the store's restart; last answer: %s",
                            RECOVERY_TIMEOUT, answer));
        }
        JsonNode operation = answer.path("operation");
        return operation.path("checkpointId").isNumber()
                ? String.format(
                        "completed as checkpoint %d, %d ms after the cluster was down",
                        operation.path("checkpointId").asLong(), millisSince(since))
                : String.format(
                        "failed %d ms after the cluster was down: %s",
                        millisSince(since),
                        operation
                                .path("failureCause")
                                .path("stack-trace")
                                .asText()
                                .lines()
                                .filter(line -> line.startsWith("Caused by"))
                                .reduce((first, second) -> second)
                                .orElse(operation.toString()));
    }

    /** The lines of the SQL client's output that say what went wrong. */
    private static String errorLines(String output) {
        StringBuilder lines = new StringBuilder();
        for (String line : output.split("\\R")) {
            if (line.contains("ERROR")
                    || line.contains("Exception")
                    || line.contains("exception")
                    || line.contains("Caused by")) {
                lines.append(System.lineSeparator()).append("    ").append(line.trim());
            }
        }
        return lines.toString();
    }

    /** The rows that the readers of {@code tables} committed to their copies. */
    private static long copiedRows(String... tables) throws Exception {
        long rows = 0;
        for (String table : tables) {
            rows += scenario.paimonIds(table + "_copy").size();
        }
        return rows;
    }

    /**
     * Waits until the store holds more records of {@code tables} than {@code before}; returns the
     * milliseconds since {@code restart}, when the store was started again.
     */
    private static long awaitStoreRecordsAbove(long before, long restart, String... tables)
            throws Exception {
        long[] records = {-1};
        Exception[] lastError = {null};
        Await.until(
                () -> {
                    try {
                        records[0] = scenario.storeRecords(tables);
                        return records[0] > before;
                    } catch (Exception e) {
                        // the store may refuse requests for a while after its restart
                        lastError[0] = e;
                        return false;
                    }
                },
                Duration.ofMillis(Math.max(0, RECOVERY_TIMEOUT.toMillis() - millisSince(restart))),
                () ->
                        String.format(
                                "The store holds %d records of the tables after the outage, %d "
                                        + "before it, %s after it was started again; last error: "
                                        + "%s",
                                records[0], before, RECOVERY_TIMEOUT, lastError[0]));
        return millisSince(restart);
    }

    /**
     * Waits until the readers' copies hold more rows than {@code before}; returns the milliseconds
     * since {@code restart}.
     */
    private static long awaitCopiedRowsAbove(long before, long restart, String... tables)
            throws Exception {
        long rows =
                Await.poll(
                        () -> copiedRows(tables),
                        copied -> copied > before,
                        RECOVERY_TIMEOUT,
                        Duration.ofMillis(500));
        if (rows <= before) {
            throw new AssertionError(
                    String.format(
                            "The readers' copies hold %d rows, as many as before the outage, "
                                    + "%s after the store was started again",
                            rows, RECOVERY_TIMEOUT));
        }
        return millisSince(restart);
    }

    /**
     * Waits until the job runs with all its tasks; fails early if it failed for good. Returns the
     * time since {@code since}.
     */
    private static Duration awaitFullyRunning(String jobId, long since) throws Exception {
        Await.until(
                () -> {
                    if ("FAILED".equals(flink.jobState(jobId))) {
                        throw new AssertionError(failedToRecover(jobId, since));
                    }
                    return flink.jobFullyRunning(jobId);
                },
                RECOVERY_TIMEOUT,
                () -> failedToRecover(jobId, since));
        return Duration.ofMillis(millisSince(since));
    }

    private static String failedToRecover(String jobId, long since) {
        String state;
        try {
            state = flink.jobState(jobId);
        } catch (Exception e) {
            state = "unknown (" + e + ")";
        }
        return String.format(
                "Job %s is %s, not running with all its tasks, %d ms after the Fluss cluster was "
                        + "started again; its exceptions: %s",
                jobId, state, millisSince(since), flink.jobExceptions(jobId));
    }
}
