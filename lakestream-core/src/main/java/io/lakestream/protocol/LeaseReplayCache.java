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

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The replays of writer lease logs that this process has made, so that it replays each log from its
 * start once and from then on only what was appended since: a log grows by an entry every third of
 * the lease timeout while a job writes its table, and the planning of every bounded read replays it
 * (see {@link ReplayedLeaseLog}).
 *
 * <p>A replay is kept under the log's {@link io.lakestream.store.WriterLeaseLog#resumableId} and
 * the timeout it was judged by, with the position it reached and the entry just before that
 * position, which a resumed read checks. It holds only strings and entries, no handle of a store:
 * the process keeps it across jobs where the project's classes are loaded once (Flink's {@code
 * lib/}), and with a job's class loader where they are loaded per job. At most {@link #MAX_LOGS}
 * logs are kept, the least recently used dropped first.
 */
final class LeaseReplayCache {

    static final int MAX_LOGS = 256;

    static final LeaseReplayCache PROCESS = new LeaseReplayCache(MAX_LOGS);

    private final Map<String, Replayed> replays;

    LeaseReplayCache(int maxLogs) {
        this.replays =
                new LinkedHashMap<String, Replayed>(16, 0.75f, true) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, Replayed> eldest) {
                        return size() > maxLogs;
                    }
                };
    }

    /** What this process replayed of the log {@code logId} with {@code timeoutMillis}, or null. */
    @Nullable
    synchronized Replayed get(String logId, long timeoutMillis) {
        return replays.get(key(logId, timeoutMillis));
    }

    /**
     * Keeps {@code replay} (which its caller no longer changes) as the replay of the log {@code
     * logId} up to {@code position}, {@code last} being the entry just before it; a replay kept
     * already that reached further stays.
     */
    synchronized void put(
            String logId, WriterLeaseReplay replay, long position, WriterLeaseEntry last) {
        String key = key(logId, replay.timeoutMillis());
        Replayed known = replays.get(key);
        if (known == null || known.position < position) {
            replays.put(key, new Replayed(replay, position, last));
        }
    }

    private static String key(String logId, long timeoutMillis) {
        return logId + '\n' + timeoutMillis;
    }

    /** A replay of a log's entries before {@link #position}. */
    static final class Replayed {

        private final WriterLeaseReplay replay;
        final long position;
        final WriterLeaseEntry last;

        private Replayed(WriterLeaseReplay replay, long position, WriterLeaseEntry last) {
            this.replay = replay;
            this.position = position;
            this.last = last;
        }

        /** A replay of its own for the caller, standing where this one stands. */
        WriterLeaseReplay resume() {
            return replay.copy();
        }
    }
}
