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

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.WriterLeaseEntry;
import io.lakestream.store.WriterLeaseLog;

import org.apache.paimon.utils.ExecutorThreadFactory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One sink subtask's view of its job's lease on a stream table (invariant "one owner per bucket").
 * A subtask {@linkplain #acquire acquires} the lease before it fences or writes anything; one
 * subtask per job {@linkplain #startRenewing renews} it and {@linkplain #checkHeld checks} it at
 * every barrier, before the checkpoint's offsets can be committed. The owner is Paimon's commit
 * user, which a job keeps across failovers and savepoint restores, so a restarted job finds its own
 * lease.
 */
public final class WriterLease implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WriterLease.class);

    /** Added to a computed expiry so that the store's clock has surely passed it. */
    private static final long EXPIRY_MARGIN_MILLIS = 200;

    private final StreamStore store;
    private final StreamTable table;
    private final String owner;
    private final String description;
    private final long timeoutMillis;
    private final ReplayedLeaseLog log;
    private WriterLeaseReplay replay;
    private ScheduledExecutorService renewer;
    private WriterLeaseLog renewLog;

    public WriterLease(
            StreamStore store,
            StreamTable table,
            String owner,
            String description,
            Duration timeout) {
        this.store = store;
        this.table = table;
        this.owner = owner;
        this.description = description;
        this.timeoutMillis = timeout.toMillis();
        this.log = ReplayedLeaseLog.open(store, table, timeoutMillis);
        // an empty replay until the first read: a lease that was never read is held by nobody
        this.replay = new WriterLeaseReplay(timeoutMillis);
    }

    /**
     * Claims the lease. When another job holds it, waits until that lease would expire and claims
     * again, so that a job started right after its predecessor stopped gets the table; when the
     * other job renewed in the meantime, it is alive and this one is refused.
     *
     * @throws WriterConflictException when another live job holds the lease
     */
    public void acquire() throws InterruptedException {
        log.append(owner, description);
        replay = log.readToEnd();
        WriterLeaseEntry firstSeen = replay.holderEntry();
        while (!held()) {
            WriterLeaseEntry other = replay.holderEntry();
            if (other == null) {
                throw new IllegalStateException(
                        String.format(
                                "The writer lease log of table %s refuses the claims of %s (%s): "
                                        + "%s",
                                table.spec(), owner, description, releasedBecause()));
            }
            if (!other.equals(firstSeen)) {
                throw conflict(other);
            }
            long waitMillis =
                    other.timestamp()
                            + timeoutMillis
                            - replay.lastEntryOf(owner).timestamp()
                            + EXPIRY_MARGIN_MILLIS;
            LOG.info(
                    "Table {} is claimed by {}; waiting {} ms for that lease to expire.",
                    table.spec(),
                    other,
                    waitMillis);
            Thread.sleep(Math.max(EXPIRY_MARGIN_MILLIS, waitMillis));
            log.append(owner, description);
            replay = log.readToEnd();
        }
    }

    /**
     * Checks that this job still holds the lease, so that a job whose lease was taken over (it
     * stopped renewing for longer than the timeout) fails before it commits offsets.
     *
     * <p>Only the subtask that renews reads the log here; the others return at once. One read per
     * barrier per job is enough: a checkpoint completes, and its offsets reach the committer, only
     * after every running subtask, the renewing one included, has passed its barrier, so a failed
     * check in the renewing subtask keeps the checkpoint from completing and fails the job. And a
     * take-over needs the renewals to stop for longer than the timeout, which the renewing subtask
     * sees first. Reading in every subtask cost one store request per subtask per barrier, for
     * nothing more. (A subtask that has finished its input, in a bounded job, no longer renews nor
     * checks; see the docs on writing.)
     *
     * @throws WriterConflictException when another job holds the lease now
     */
    public void checkHeld() {
        if (renewer == null) {
            return;
        }
        replay = log.readToEnd();
        if (!held()) {
            throw conflict(replay.holderEntry());
        }
    }

    /**
     * Releases the lease of {@code owner} on {@code table}, so that the next job takes the table at
     * once instead of after the lease timeout. Only for after the final commit of a job whose
     * writers all ended: a job that takes over fences everything past the committed offsets.
     */
    public static void release(
            StreamStore store, StreamTable table, String owner, String description) {
        try (WriterLeaseLog log = store.openWriterLeaseLog(table)) {
            log.release(owner, description);
        }
        LOG.info("Released the writer lease of {} held by {}.", table.spec(), owner);
    }

    /** Renews the lease every third of its timeout from a thread of its own. */
    public void startRenewing() {
        renewLog = store.openWriterLeaseLog(table);
        renewer =
                Executors.newSingleThreadScheduledExecutor(
                        new ExecutorThreadFactory("lake-stream-writer-lease"));
        long period = Math.max(1, timeoutMillis / 3);
        renewer.scheduleWithFixedDelay(this::renew, period, period, TimeUnit.MILLISECONDS);
    }

    private void renew() {
        try {
            renewLog.append(owner, description);
        } catch (RuntimeException e) {
            if (renewer.isShutdown()) {
                return; // closing: the renewal was interrupted on purpose
            }
            // a missed renewal is harmless while the next ones succeed within the timeout; if they
            // do not, another job may take over and this one fails at its next barrier
            LOG.warn("Cannot renew the writer lease of {}.", table.spec(), e);
        }
    }

    private boolean held() {
        return owner.equals(replay.holder());
    }

    private WriterConflictException conflict(@Nullable WriterLeaseEntry other) {
        if (other == null) {
            return new WriterConflictException(
                    String.format(
                            "The writer lease of table %s held by %s was released: %s",
                            table.spec().identifier().getFullName(), owner, releasedBecause()));
        }
        return new WriterConflictException(
                String.format(
                        "Paimon table %s is written by another lake-stream sink (%s, commit user "
                                + "%s), which last claimed or renewed its writer lease at %s; one "
                                + "table takes one writing job. Stop the other job, or, if it has "
                                + "stopped, start this one again after its lease expires ('%s' = "
                                + "%d ms).",
                        table.spec().identifier().getFullName(),
                        other.description(),
                        other.owner(),
                        Instant.ofEpochMilli(other.timestamp()),
                        LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT.key(),
                        timeoutMillis));
    }

    /** Why the lease is free and this job's claims are not accepted. */
    private String releasedBecause() {
        WriterLeaseEntry release = replay.lastRelease();
        if (release != null
                && release.owner().startsWith(WriterLeaseReplay.MAINTENANCE_OWNER_PREFIX)) {
            return String.format(
                    "this job's lease had expired and the table was taken over by %s, which "
                            + "fenced the records this job had not committed. The job restarts "
                            + "from its last checkpoint and claims the table anew.",
                    release.description());
        }
        return "the job's final commit happened, so it must not write any more.";
    }

    @Override
    public void close() {
        if (renewer != null) {
            renewer.shutdownNow();
            try {
                renewer.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            renewLog.close();
        }
        log.close();
    }
}
