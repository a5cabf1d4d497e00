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

package io.lakestream.protocol;

import io.lakestream.store.WriterLeaseEntry;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** Who holds a writer lease, replayed from claims and renewals with store timestamps. */
class WriterLeaseReplayTest {

    private static final long TIMEOUT = 1_000;

    private static WriterLeaseEntry entry(String owner, long timestamp) {
        return new WriterLeaseEntry(owner, owner + " job", timestamp);
    }

    @Test
    void theFirstClaimWinsAndRenewalsKeepIt() {
        WriterLeaseReplay replay = new WriterLeaseReplay(TIMEOUT);
        assertThat(replay.holder()).isNull();
        replay.apply(Arrays.asList(entry("a", 0), entry("b", 10), entry("a", 900)));
        assertThat(replay.holder()).isEqualTo("a");
        // b's claim at 1_500 comes 600 ms after a's renewal: refused
        replay.apply(Arrays.asList(entry("b", 1_500), entry("a", 1_800)));
        assertThat(replay.holder()).isEqualTo("a");
        assertThat(replay.holderEntry().timestamp()).isEqualTo(1_800);
        assertThat(replay.lastEntryOf("b").timestamp()).isEqualTo(1_500);
    }

    @Test
    void aClaimAfterTheHoldersLeaseExpiredTakesOver() {
        WriterLeaseReplay replay = new WriterLeaseReplay(TIMEOUT);
        replay.apply(Arrays.asList(entry("a", 0), entry("b", 1_000)));
        assertThat(replay.holder()).as("exactly the timeout has not expired it").isEqualTo("a");
        replay.apply(Arrays.asList(entry("b", 1_001)));
        assertThat(replay.holder()).isEqualTo("b");
        // the old holder coming back is refused: its renewal is within b's lease
        replay.apply(Arrays.asList(entry("a", 1_200)));
        assertThat(replay.holder()).isEqualTo("b");
    }

    @Test
    void theOutcomeDoesNotDependOnHowTheLogIsReadInPieces() {
        WriterLeaseEntry[] log = {
            entry("a", 0), entry("b", 500), entry("a", 600), entry("b", 1_700), entry("c", 1_800)
        };
        WriterLeaseReplay whole = new WriterLeaseReplay(TIMEOUT);
        whole.apply(Arrays.asList(log));
        WriterLeaseReplay pieces = new WriterLeaseReplay(TIMEOUT);
        for (WriterLeaseEntry e : log) {
            pieces.apply(Arrays.asList(e));
        }
        assertThat(whole.holder()).isEqualTo("b").isEqualTo(pieces.holder());
    }

    @Test
    void aLogWhoseOldEntriesWereRemovedConvergesOnTheLiveHolder() {
        // retention removed a's claim: the replay starts with b's refused claim
        WriterLeaseReplay replay = new WriterLeaseReplay(TIMEOUT);
        replay.apply(
                Arrays.asList(entry("b", 0), entry("a", 300), entry("a", 700), entry("a", 1_100)));
        assertThat(replay.holder()).as("a renews past b's stale claim").isEqualTo("a");
    }

    private static WriterLeaseEntry release(String owner, long timestamp) {
        return new WriterLeaseEntry(owner, "committer", timestamp, true);
    }

    @Test
    void aReleaseFreesTheLeaseAtOnceAndLateRenewalsOfTheReleasedJobDoNotClaimIt() {
        WriterLeaseReplay replay = new WriterLeaseReplay(TIMEOUT);
        replay.apply(Arrays.asList(entry("a", 0), entry("a", 300), release("a", 400)));
        assertThat(replay.holder()).as("released").isNull();
        // the finished job's writer renews once more while it closes
        replay.apply(Arrays.asList(entry("a", 450)));
        assertThat(replay.holder()).as("a late renewal is no claim").isNull();
        replay.apply(Arrays.asList(entry("b", 500)));
        assertThat(replay.holder()).as("the next job takes the table at once").isEqualTo("b");
    }

    @Test
    void aJobRestoredWithTheReleasedOwnerClaimsAgain() {
        WriterLeaseReplay replay = new WriterLeaseReplay(TIMEOUT);
        replay.apply(Arrays.asList(entry("a", 0), release("a", 100)));
        replay.apply(Arrays.asList(new WriterLeaseEntry("a", "a restored job", 200)));
        assertThat(replay.holder()).isEqualTo("a");
    }

    @Test
    void aReleaseByAJobThatLostTheLeaseLeavesTheHolderAlone() {
        WriterLeaseReplay replay = new WriterLeaseReplay(TIMEOUT);
        replay.apply(Arrays.asList(entry("a", 0), entry("b", 1_500), release("a", 1_600)));
        assertThat(replay.holder()).isEqualTo("b");
    }

    private static final String MAINTENANCE = WriterLeaseReplay.MAINTENANCE_OWNER_PREFIX + "m";

    private static WriterLeaseEntry maintenance(long timestamp, boolean release) {
        return new WriterLeaseEntry(MAINTENANCE, "enabling db.t", timestamp, release);
    }

    @Test
    void aMaintenanceReleaseRetiresTheJobsSeenBeforeItsClaim() {
        WriterLeaseReplay replay = new WriterLeaseReplay(TIMEOUT);
        replay.apply(Arrays.asList(entry("a", 0), entry("a", 300)));
        // a's lease expired: the enablement takes the table, fences and releases it
        replay.apply(Arrays.asList(maintenance(1_400, false)));
        assertThat(replay.holder()).isEqualTo(MAINTENANCE);
        replay.apply(Arrays.asList(maintenance(1_500, true)));
        assertThat(replay.holder()).isNull();
        assertThat(replay.lastRelease().owner()).isEqualTo(MAINTENANCE);
        // a was only paused: its renewal does not take the table back
        replay.apply(Arrays.asList(entry("a", 1_600)));
        assertThat(replay.holder()).as("a paused job's renewal").isNull();
        // a's restart is a new attempt, which describes itself anew: its claim counts
        replay.apply(Arrays.asList(new WriterLeaseEntry("a", "a job, attempt 1", 1_700)));
        assertThat(replay.holder()).isEqualTo("a");
    }

    @Test
    void aClaimRefusedWhileMaintenanceHoldsTheLeaseCountsAfterItsRelease() {
        WriterLeaseReplay replay = new WriterLeaseReplay(TIMEOUT);
        replay.apply(Arrays.asList(maintenance(0, false), entry("b", 100), maintenance(200, true)));
        assertThat(replay.holder()).isNull();
        // b waited for the maintenance claim to expire and claims again
        replay.apply(Arrays.asList(entry("b", 1_300)));
        assertThat(replay.holder()).isEqualTo("b");
    }

    @Test
    void aMaintenanceClaimRefusedByALiveJobChangesNothing() {
        WriterLeaseReplay replay = new WriterLeaseReplay(TIMEOUT);
        replay.apply(Arrays.asList(entry("a", 0), maintenance(100, false), entry("a", 300)));
        assertThat(replay.holder()).isEqualTo("a");
        replay.apply(Arrays.asList(entry("a", 700)));
        assertThat(replay.holder()).isEqualTo("a");
    }
}
