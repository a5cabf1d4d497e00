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

import io.lakestream.flink.store.WriterLeaseEntry;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Replays a writer lease log to find who holds the lease. An entry makes its owner the holder when
 * there is no holder yet, when its owner already holds the lease (a renewal), or when the holder's
 * last accepted entry is older than the lease timeout at the entry's store time (the old lease
 * expired); any other entry is a refused claim and changes nothing.
 *
 * <p>The outcome depends only on the entries and their store timestamps, so every subtask of every
 * job that replays the same log agrees on the holder, whatever its own clock says. A log whose
 * oldest entries were removed by retention converges on the same holder once the current holder has
 * renewed for longer than the timeout.
 */
@Internal
final class WriterLeaseReplay {

    private final long timeoutMillis;
    private final Map<String, WriterLeaseEntry> lastEntryOfOwner = new HashMap<>();
    @Nullable private WriterLeaseEntry holderEntry;

    WriterLeaseReplay(long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
    }

    void apply(List<WriterLeaseEntry> entries) {
        for (WriterLeaseEntry entry : entries) {
            lastEntryOfOwner.put(entry.owner(), entry);
            if (holderEntry == null
                    || holderEntry.owner().equals(entry.owner())
                    || entry.timestamp() - holderEntry.timestamp() > timeoutMillis) {
                holderEntry = entry;
            }
        }
    }

    /** The owner holding the lease after the entries applied so far, or null before any. */
    @Nullable
    String holder() {
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
