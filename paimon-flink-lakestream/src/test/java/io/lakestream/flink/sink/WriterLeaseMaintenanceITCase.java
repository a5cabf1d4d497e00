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

import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.protocol.WriterConflictException;
import io.lakestream.protocol.WriterLease;
import io.lakestream.protocol.WriterLeases;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.WriterLeaseEntry;
import io.lakestream.store.WriterLeaseLog;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Table maintenance under the writer lease on real Fluss, with a store client per party as separate
 * processes have them: it is refused while a job renews, and a job whose lease expired while it was
 * only paused cannot take the table back with a renewal after the maintenance.
 */
@ExtendWith(SharedStreamStore.class)
class WriterLeaseMaintenanceITCase {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private static StreamStore jobStore;
    private static StreamStore maintenanceStore;

    @BeforeAll
    static void open() {
        jobStore = SharedStreamStore.newStore();
        maintenanceStore = SharedStreamStore.newStore();
    }

    @AfterAll
    static void close() {
        jobStore.close();
        maintenanceStore.close();
    }

    private static StreamTable provision(String name) {
        return jobStore.provision(
                new StreamTableSpec(
                        Identifier.create("lease_maintenance_it", name),
                        RowType.of(
                                new org.apache.paimon.types.DataType[] {DataTypes.INT().notNull()},
                                new String[] {"id"}),
                        Collections.emptyList(),
                        Collections.singletonList("id"),
                        Collections.emptyList(),
                        1));
    }

    @Test
    void maintenanceIsRefusedWhileAJobRenewsAndNamesIt() throws Exception {
        StreamTable table = provision("renewing");
        try (WriterLease job = new WriterLease(jobStore, table, "job-a", "job A", TIMEOUT)) {
            job.acquire();
            job.startRenewing();
            assertThatThrownBy(
                            () ->
                                    WriterLeases.runExclusively(
                                            maintenanceStore,
                                            maintenanceStore.get(table.spec()),
                                            "maintenance",
                                            TIMEOUT,
                                            () -> fail("ran while a job holds the lease")))
                    .isInstanceOf(WriterLeases.LeaseHeldException.class)
                    .hasMessageContaining("job A");
            job.checkHeld();
        }
    }

    @Test
    void aJobPausedPastItsLeaseFailsAtItsNextCheckAfterMaintenance() throws Exception {
        StreamTable table = provision("paused");
        StreamTable seenByMaintenance = maintenanceStore.get(table.spec());
        try (WriterLease job = new WriterLease(jobStore, table, "job-b", "job B", TIMEOUT)) {
            job.acquire();
            // the job pauses: no renewal until its lease expired
            Await.until(
                    () ->
                            WriterLeases.holder(maintenanceStore, seenByMaintenance, TIMEOUT)
                                    .map(
                                            h ->
                                                    WriterLeases.isExpired(
                                                            h,
                                                            TIMEOUT.plusMillis(200),
                                                            System.currentTimeMillis()))
                                    .orElse(false),
                    "the paused job's lease expires");
            String ran =
                    WriterLeases.runExclusively(
                            maintenanceStore,
                            seenByMaintenance,
                            "enabling lake-stream mode on table lease_maintenance_it.paused",
                            TIMEOUT,
                            () -> "ran");
            assertThat(ran).isEqualTo("ran");

            // the job resumes and renews: that does not give it the table back
            job.startRenewing();
            try (WriterLeaseLog log = maintenanceStore.openWriterLeaseLog(seenByMaintenance)) {
                Await.until(
                        () -> log.readNew().stream().anyMatch(e -> isRenewalOf(e, "job-b")),
                        "the resumed job renews");
            }
            assertThat(WriterLeases.holder(maintenanceStore, seenByMaintenance, TIMEOUT)).isEmpty();
            assertThatThrownBy(job::checkHeld)
                    .isInstanceOf(WriterConflictException.class)
                    .satisfies(e -> System.out.println("The paused job fails: " + e.getMessage()))
                    .hasMessageContaining("enabling lake-stream mode on table")
                    .hasMessageContaining("claims the table anew");
        }
        // its restart is a new attempt, which takes the table
        try (WriterLease restarted =
                new WriterLease(jobStore, table, "job-b", "job B, attempt 1", TIMEOUT)) {
            restarted.acquire();
            restarted.startRenewing();
            restarted.checkHeld();
        }
    }

    private static boolean isRenewalOf(WriterLeaseEntry entry, String owner) {
        return !entry.isRelease() && entry.owner().equals(owner);
    }

    private static String fail(String what) {
        throw new AssertionError(what);
    }
}
