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

import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.WriterLeaseEntry;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * A table's writer lease seen from outside a sink job: who holds it (for {@code
 * lake_stream_status}), and a short claim of it around work that must not run while a sink job
 * writes the table (enabling lake-stream mode records the store's end offsets, which a writing job
 * still moves).
 *
 * <p>Both replay the lease log the way the sinks do (from where this process last replayed it, see
 * {@link ReplayedLeaseLog}), with the timeout the caller configures; a job started with a longer
 * {@code lake-stream.sink.writer-lease-timeout} than the caller's is judged by the caller's.
 */
public final class WriterLeases {

    private WriterLeases() {}

    /**
     * The last accepted entry (claim or renewal) of the lease holder of {@code table}, or empty
     * when nobody holds it: never claimed, or released after a bounded job's final commit. The
     * holder may have stopped renewing: see {@link #isExpired}.
     */
    public static Optional<WriterLeaseEntry> holder(
            StreamStore store, StreamTable table, Duration timeout) {
        try (ReplayedLeaseLog log = ReplayedLeaseLog.open(store, table, timeout.toMillis())) {
            return Optional.ofNullable(log.readToEnd().holderEntry());
        }
    }

    /**
     * Whether a sink job holds the lease of {@code table} now: claimed, not released, and renewed
     * within {@code timeout} by this process's clock.
     */
    public static boolean isLive(StreamStore store, StreamTable table, Duration timeout) {
        return holder(store, table, timeout)
                .filter(entry -> !isExpired(entry, timeout, System.currentTimeMillis()))
                .isPresent();
    }

    /**
     * Whether {@code holder}'s lease has expired at {@code nowMillis}. The entry carries the
     * store's time and {@code nowMillis} is the caller's: the answer is off by their clocks'
     * difference, which is why sinks decide take-overs by store time alone and this serves reports.
     */
    public static boolean isExpired(WriterLeaseEntry holder, Duration timeout, long nowMillis) {
        return nowMillis - holder.timestamp() > timeout.toMillis();
    }

    /**
     * Claims the lease of {@code table} for table maintenance, runs {@code action} and releases the
     * lease again (also when the action fails, so that the next sink job does not wait for the
     * timeout). The claim is decided by the store's time, exactly as a sink's claim is: it succeeds
     * only when no sink job's lease is live. While it is held, a sink job that starts or restarts
     * waits for it. Its release retires the claims of every job seen before it: a job whose lease
     * had expired but that was only paused cannot take the table back with a renewal, and fails at
     * its next barrier instead (see {@link WriterLeaseReplay}).
     *
     * @param description what the maintenance does, for the errors of jobs that meet its claim
     * @throws LeaseHeldException naming the holder when a sink job's lease is live
     */
    public static <T> T runExclusively(
            StreamStore store,
            StreamTable table,
            String description,
            Duration timeout,
            Supplier<T> action) {
        String owner = WriterLeaseReplay.MAINTENANCE_OWNER_PREFIX + UUID.randomUUID();
        try (ReplayedLeaseLog log = ReplayedLeaseLog.open(store, table, timeout.toMillis())) {
            log.append(owner, description);
            WriterLeaseEntry holder = log.readToEnd().holderEntry();
            if (holder == null) {
                throw new IllegalStateException(
                        String.format(
                                "The writer lease log of table %s does not accept the claim of "
                                        + "%s (%s).",
                                table.spec(), owner, description));
            }
            if (!owner.equals(holder.owner())) {
                // a refused claim changes nothing in the replay: no release needed
                throw new LeaseHeldException(holder, timeout);
            }
            try {
                return action.get();
            } finally {
                log.release(owner, description);
            }
        }
    }

    /** Thrown by {@link #runExclusively} when a sink job's lease on the table is live. */
    public static final class LeaseHeldException extends WriterConflictException {

        private static final long serialVersionUID = 1L;

        private final WriterLeaseEntry holder;
        private final Duration timeout;

        LeaseHeldException(WriterLeaseEntry holder, Duration timeout) {
            super(
                    String.format(
                            "The writer lease is held by %s (commit user %s), last claimed or "
                                    + "renewed at store time %d.",
                            holder.description(), holder.owner(), holder.timestamp()));
            this.holder = holder;
            this.timeout = timeout;
        }

        /** The holder's last accepted claim or renewal. */
        public WriterLeaseEntry holder() {
            return holder;
        }

        /** The timeout by which the claim was judged. */
        public Duration timeout() {
            return timeout;
        }
    }
}
