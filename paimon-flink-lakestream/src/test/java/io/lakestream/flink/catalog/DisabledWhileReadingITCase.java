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
import io.lakestream.testutils.Await;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A streaming read that runs while its table's lake-stream mode is turned off, written by Paimon
 * alone and turned on again, in SQL on real Fluss, a MiniCluster and a local Paimon warehouse: the
 * rows Paimon alone committed are not in the stream store, so the read fails for good, saying so,
 * rather than silently going on without them. Its job has checkpoints, so any other failure would
 * restart it.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class DisabledWhileReadingITCase {

    @TempDir static java.nio.file.Path warehouse;

    private static LakeSqlEnvironments environments;

    @BeforeAll
    static void open() {
        environments = new LakeSqlEnvironments(warehouse);
    }

    @Test
    void aRunningReadFailsForGoodOnceItsTableIsDisabled() throws Exception {
        String table = "lake.db.followed";
        StreamTableEnvironment tEnv = environments.streaming(Duration.ofSeconds(1));
        tEnv.executeSql(
                "CREATE TABLE "
                        + table
                        + " (id BIGINT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id', "
                        + "'lake-stream.enabled' = 'true')");
        tEnv.executeSql("INSERT INTO " + table + " VALUES (1, 'a'), (2, 'b')").await();

        TableResult read = tEnv.executeSql("SELECT id FROM " + table);
        JobClient job = read.getJobClient().orElseThrow();
        try (CloseableIterator<Row> rows = read.collect()) {
            List<Long> ids = new ArrayList<>();
            while (ids.size() < 2) {
                ids.add((Long) rows.next().getField(0));
            }
            assertThat(ids).containsExactlyInAnyOrder(1L, 2L);

            // off, written by Paimon alone, and on again, one right after the other
            tEnv.executeSql("ALTER TABLE " + table + " SET ('lake-stream.enabled' = 'false')");
            environments.batch().executeSql("INSERT INTO " + table + " VALUES (3, 'c')").await();
            tEnv.executeSql("ALTER TABLE " + table + " SET ('lake-stream.enabled' = 'true')");

            Await.until(
                    () -> job.getJobStatus().get().isGloballyTerminalState(),
                    "the read of " + table + " ends");
            assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.FAILED);
            assertThat(restarts(job)).as("restarts of the read").isZero();
            Throwable failure =
                    ExceptionUtils.stripExecutionException(
                            catchFailure(
                                    () -> job.getJobExecutionResult().get(1, TimeUnit.MINUTES)));
            Optional<SuppressRestartsException> suppressed =
                    ExceptionUtils.findThrowable(failure, SuppressRestartsException.class);
            assertThat(suppressed).as("the read's failure: %s", failure).isPresent();
            String message = suppressed.get().getCause().getMessage();
            System.out.println("The read failed: " + message);
            assertThat(message)
                    .contains("Lake-stream mode of table db.followed was turned off")
                    .contains("'lake-stream.enabled' = 'false'")
                    .contains("Rows that Paimon alone commits while the mode is off")
                    .contains("Restart the query");
        }

        // a new read returns every row once, the one Paimon alone committed included
        assertThat(
                        LakeSqlEnvironments.count(
                                environments.batch(),
                                "(SELECT DISTINCT id FROM " + table + ") AS ids"))
                .isEqualTo(3);
        assertThat(LakeSqlEnvironments.count(environments.batch(), table)).isEqualTo(3);
    }

    private interface Failing {
        void run() throws Exception;
    }

    private static Throwable catchFailure(Failing action) {
        try {
            action.run();
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("The read's job did not fail.");
    }

    /** How often {@code job} restarted, from the shared MiniCluster's metrics. */
    @SuppressWarnings("unchecked")
    private static long restarts(JobClient job) {
        return SharedMiniCluster.metrics()
                .findMetric(job.getJobID(), "numRestarts")
                .map(gauge -> ((Gauge<Long>) gauge).getValue())
                .orElse(0L);
    }
}
