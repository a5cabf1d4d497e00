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

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static io.lakestream.e2e.LakeStreamScenario.DATABASE;
import static io.lakestream.e2e.LakeStreamScenario.HISTORY;
import static io.lakestream.e2e.LakeStreamScenario.JOB_TIMEOUT;
import static io.lakestream.e2e.LakeStreamScenario.RECOVERY_TIMEOUT;
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
        // the job must outlive the steps before the kill: each run of the SQL client takes
        // 10 to 25 s on two busy cores
        int rows = 4000;
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
            // time passes, not a state: about 100 rows are written past the checkpoint
            Thread.sleep(2000);
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
            // time passes, not a state: rows are written before and past the checkpoint
            Thread.sleep(2000);
            long checkpoint = flink.checkpoint(jobId, Duration.ofMinutes(1));
            Thread.sleep(2000);
            // the leader of a bucket the job writes; its in-sync follower takes over
            List<Integer> replicas = fluss.leaderAndIsr(DATABASE, events, 0);
            assertThat(replicas).as("leader and in-sync replicas of bucket 0").hasSize(2);
            int victim = replicas.get(0);
            long pid = fluss.tabletServer(victim).pid();
            long kill = System.nanoTime();
            fluss.killTabletServer(victim);
            fluss.awaitTabletServerUnregistered(victim);
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
}
