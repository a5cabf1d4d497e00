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

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.lakestream.e2e.LakeStreamScenario.JOB_TIMEOUT;
import static io.lakestream.e2e.LakeStreamScenario.RECOVERY_TIMEOUT;
import static io.lakestream.e2e.LakeStreamScenario.ROWS_PER_SECOND;
import static io.lakestream.e2e.LakeStreamScenario.appendTable;
import static io.lakestream.e2e.LakeStreamScenario.expectedIds;
import static io.lakestream.e2e.LakeStreamScenario.millisSince;
import static io.lakestream.e2e.LakeStreamScenario.primaryKeyTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JobManager of a Flink session cluster with ZooKeeper high availability crashes (SIGKILL)
 * while a lake-stream job writes, and is restarted on the same configuration, as a supervisor
 * restarts a crashed JobManager: the new one recovers the job from the HA store under the same job
 * id and restores it from its last completed checkpoint. The clusters are those of {@link
 * FlinkProcessesE2ECase} (OS processes, statements through Flink's SQL client), with Flink's HA on
 * a ZooKeeper of its own and one Fluss tablet server.
 *
 * <p>Readers of the tables run before, during and after the fault, and none may see a row twice:
 * streaming readers started before the fault, which run through it (their jobs are recovered by HA
 * too) and must deliver every row once (the append table's reads committed records only: the
 * default read-uncommitted reader may return records of the killed attempt that it read before the
 * restored writer fenced them, and then their rewrite, as {@code docs/reading.md} says; the
 * primary-key table's reads uncommitted ones, whose rewrite only updates the same keys); a batch
 * union read whose SQL client starts right after the kill, while no JobManager leads: the client
 * plans the query without a JobManager (catalog, Paimon and Fluss only) and its submission waits
 * for the new leader, so its job runs as soon as the JobManager is back, racing the restored
 * writing job; a batch union read after the recovery. The end state: every written row in each
 * table exactly once, in Paimon's own read and in the union read. The recovery time is printed.
 *
 * <p>The processes' configuration, data and logs are under {@code target/e2e/flink-ha-*}.
 */
@ExtendWith(NoProcessLeftBehind.class)
class FlinkHighAvailabilityE2ECase {

    private static LakeStreamScenario scenario;
    private static FlinkProcessCluster flink;
    private static FlinkSqlClient sqlClient;

    @BeforeAll
    static void startClusters() throws Exception {
        scenario = LakeStreamScenario.start("flink-ha", 1, 1, Collections.emptyMap(), true);
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
     * An append table and a primary-key table written by one job; after a checkpoint and rows
     * written past it, the JobManager is killed and restarted; the job comes back with the same id,
     * restored from that checkpoint, and its restored writer fences what the killed attempt wrote
     * past it before writing those rows again.
     */
    @Test
    void jobManagerKilledAndRestoredByHighAvailability() throws Exception {
        String events = "events_jm";
        String orders = "orders_jm";
        int rows = 5000;
        // readers that run through the fault, each in a job of its own; the append table's reads
        // committed records only: a read-uncommitted reader may return the killed attempt's
        // records and then their rewrite, twice in an append copy
        Map<String, String> jobs =
                scenario.startJobs(
                        "jm-kill",
                        List.of(appendTable(events, 2), primaryKeyTable(orders, 2)),
                        rows,
                        List.of(events, orders));
        String jobId = jobs.get("jm-kill");
        String eventsReader = jobs.get(events);
        String ordersReader = jobs.get(orders);
        ExecutorService background = Executors.newSingleThreadExecutor();
        try (JobWatch watch = new JobWatch(flink, jobId)) {
            scenario.awaitFullyRunning(jobId);

            // commit a part, write on past it, then crash the JobManager
            long checkpoint = flink.checkpoint(jobId, Duration.ofMinutes(1));
            scenario.awaitWrittenPast(ROWS_PER_SECOND, events, orders);
            // what Paimon holds now: no later union read may return less
            Map<String, Long> committed = new LinkedHashMap<>();
            for (String table : List.of(events, orders)) {
                committed.put(table, (long) scenario.paimonIds(table).size());
                assertThat(committed.get(table))
                        .as("rows of %s in Paimon before the kill: the job is still writing", table)
                        .isLessThan(expectedIds(rows).size());
            }
            scenario.log("Before the kill, Paimon holds %s rows", committed);
            long kill = System.nanoTime();
            flink.killJobManager();
            // a reader started while no JobManager leads: it plans, then waits to submit
            Future<List<String>> duringFault =
                    background.submit(
                            () ->
                                    sqlClient.run(
                                            "jm-kill-during-fault",
                                            scenario.counts(events, orders)));
            flink.restartJobManager();
            flink.awaitJob(jobId, RECOVERY_TIMEOUT);
            long jobFound = millisSince(kill);
            flink.awaitTaskManagers(new HashSet<>(flink.liveTaskManagers()));
            long taskManagersBack = millisSince(kill);
            Duration recovery = watch.awaitRecovered(kill, RECOVERY_TIMEOUT);
            assertThat(recovery)
                    .as(
                            "recovery of job %s after the JobManager was killed (state %s); its "
                                    + "exceptions: %s",
                            jobId, flink.jobState(jobId), flink.jobExceptions(jobId))
                    .isNotNull();
            long restoredFrom = flink.restoredCheckpoint(jobId);
            scenario.log(
                    "RECOVERY JobManager killed after checkpoint %d: the restarted one answered "
                            + "for job %s after %d ms, the TaskManagers were registered again after "
                            + "%d ms, the job ran again with all tasks after %d ms, restored from "
                            + "checkpoint %d",
                    checkpoint,
                    jobId,
                    jobFound,
                    taskManagersBack,
                    recovery.toMillis(),
                    restoredFrom);
            assertThat(restoredFrom)
                    .as("checkpoint that job %s was restored from by the new JobManager", jobId)
                    .isEqualTo(checkpoint);

            List<String> duringFaultOutput =
                    duringFault.get(JOB_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            scenario.log(
                    "The union read started right after the kill returned %d ms after the kill",
                    millisSince(kill));
            assertNoRowTwice(duringFaultOutput, "started during the fault", committed);
            assertNoRowTwice(
                    sqlClient.run("jm-kill-after-recovery", scenario.counts(events, orders)),
                    "after the recovery",
                    committed);

            flink.awaitFinished(jobId, JOB_TIMEOUT);
            scenario.log("Job %s finished after %d restarts", jobId, flink.jobRestarts(jobId));
            scenario.awaitCopy(eventsReader, events, expectedIds(rows));
            scenario.awaitCopy(ordersReader, orders, expectedIds(rows));
        } finally {
            background.shutdownNow();
        }
        scenario.assertEveryRowOnce(rows, events, orders);
    }

    /**
     * Each table's union read in the SQL client's output returned no id twice, and at least the
     * rows that Paimon held before the kill ({@code committed}, per table). The lake read of the
     * same output ran later, after commits the union read may not include: it bounds nothing.
     */
    private static void assertNoRowTwice(
            List<String> output, String when, Map<String, Long> committed) {
        committed.forEach(
                (table, rowsCommitted) -> {
                    long[] union = FlinkSqlClient.row(output, "union_" + table);
                    long[] lake = FlinkSqlClient.row(output, "lake_" + table);
                    scenario.log(
                            "Union read %s of %s: %d rows, largest id %d (then %d in Paimon)",
                            when, table, union[0], union[3], lake[0]);
                    assertThat(union[1])
                            .as("distinct ids of %s in the union read %s", table, when)
                            .isEqualTo(union[0]);
                    assertThat(union[0])
                            .as(
                                    "rows of %s in the union read %s, at least those committed "
                                            + "before the kill",
                                    table, when)
                            .isGreaterThanOrEqualTo(rowsCommitted);
                });
    }
}
