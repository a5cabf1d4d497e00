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

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Replays a writer lease log to find who holds the lease. An entry makes its owner the holder when
 * there is no holder yet, when its owner already holds the lease (a renewal), or when the holder's
 * last accepted entry is older than the lease timeout at the entry's store time (the old lease
 * expired); any other entry is a refused claim and changes nothing.
 *
 * <p>A release, which a job's committer appends after the job's final commit, frees the lease of
 * its owner at once. It also retires every (owner, description) pair seen before it: a renewal that
 * the finished job's writer sends while it closes, after the release, must not claim the table
 * again. A later job with the same owner (restored from the finished job's savepoint) describes
 * itself by another Flink job id, so its claims count.
 *
 * <p>A claim whose owner starts with {@link #MAINTENANCE_OWNER_PREFIX} is table maintenance, not a
 * sink job: enabling lake-stream mode again claims the lease while it fences the uncommitted tail
 * of a stopped job and records new start offsets, then releases it. Its release retires every pair
 * seen before its claim, so that a job whose lease had expired and that was only paused (not
 * stopped) cannot take the table back by a mere renewal: its next check fails, and it restarts and
 * claims anew as a new attempt, fencing from its restored offsets.
 *
 * <p>The outcome depends only on the entries and their store timestamps, so every subtask of every
 * job that replays the same log agrees on the holder, whatever its own clock says. A log whose
 * oldest entries were removed by retention converges on the same holder once the current holder has
 * renewed for longer than the timeout.
 */
public final class WriterLeaseReplay {

    /** The owner prefix of claims by table maintenance, see the class comment. */
    static final String MAINTENANCE_OWNER_PREFIX = "lake-stream-maintenance-";

    private final long timeoutMillis;
    private final Map<String, WriterLeaseEntry> lastEntryOfOwner = new HashMap<>();

    /** Every (owner, description) pair of a claim or renewal not yet released. */
    private final Set<String> seen = new HashSet<>();

    /** The pairs released: their later entries are late renewals of a finished job. */
    private final Set<String> retired = new HashSet<>();

    /** The pairs seen before the maintenance claim that holds the lease now, else empty. */
    private final Set<String> seenBeforeMaintenance = new HashSet<>();

    @Nullable private WriterLeaseEntry holderEntry;

    /** The last release applied. */
    @Nullable private WriterLeaseEntry lastRelease;

    public WriterLeaseReplay(long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
    }

    /** A replay that starts where this one stands and goes on independently of it. */
    WriterLeaseReplay copy() {
        WriterLeaseReplay copy = new WriterLeaseReplay(timeoutMillis);
        copy.lastEntryOfOwner.putAll(lastEntryOfOwner);
        copy.seen.addAll(seen);
        copy.retired.addAll(retired);
        copy.seenBeforeMaintenance.addAll(seenBeforeMaintenance);
        copy.holderEntry = holderEntry;
        copy.lastRelease = lastRelease;
        return copy;
    }

    long timeoutMillis() {
        return timeoutMillis;
    }

    public void apply(List<WriterLeaseEntry> entries) {
        for (WriterLeaseEntry entry : entries) {
            if (entry.isRelease()) {
                release(entry);
                continue;
            }
            String claimant = entry.owner() + '\n' + entry.description();
            if (retired.contains(claimant)) {
                continue;
            }
            lastEntryOfOwner.put(entry.owner(), entry);
            if (holderEntry == null
                    || holderEntry.owner().equals(entry.owner())
                    || entry.timestamp() - holderEntry.timestamp() > timeoutMillis) {
                boolean takenOver =
                        holderEntry == null || !holderEntry.owner().equals(entry.owner());
                if (takenOver) {
                    seenBeforeMaintenance.clear();
                    if (isMaintenance(entry)) {
                        seenBeforeMaintenance.addAll(seen);
                    }
                }
                holderEntry = entry;
            }
            seen.add(claimant);
        }
    }

    private void release(WriterLeaseEntry release) {
        lastRelease = release;
        if (holderEntry != null && holderEntry.owner().equals(release.owner())) {
            holderEntry = null;
            if (isMaintenance(release)) {
                retired.addAll(seenBeforeMaintenance);
                seen.removeAll(seenBeforeMaintenance);
            }
        }
        seenBeforeMaintenance.clear();
        String prefix = release.owner() + '\n';
        for (Iterator<String> it = seen.iterator(); it.hasNext(); ) {
            String claimant = it.next();
            if (claimant.startsWith(prefix)) {
                retired.add(claimant);
                it.remove();
            }
        }
    }

    private static boolean isMaintenance(WriterLeaseEntry entry) {
        return entry.owner().startsWith(MAINTENANCE_OWNER_PREFIX);
    }

    /** The last release applied, or null. */
    @Nullable
    WriterLeaseEntry lastRelease() {
        return lastRelease;
    }

    /** The owner holding the lease after the entries applied so far, or null when it is free. */
    @Nullable
    public String holder() {
        return holderEntry == null ? null : holderEntry.owner();
    }

    /** The holder's last accepted entry: its claim or latest renewal. */
    @Nullable
    WriterLeaseEntry holderEntry() {
        return holderEntry;
    }

    /** The last entry, accepted or not, of {@code owner}. */
    @Nullable
    WriterLeaseEntry lastEntryOf(String owner) {
        return lastEntryOfOwner.get(owner);
    }
}
