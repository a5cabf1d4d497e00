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
import io.lakestream.store.WriterLeaseLog;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.List;
import java.util.function.Supplier;

/**
 * A stream table's writer lease log together with its replay: {@link #readToEnd} reads what was
 * appended since the last read and applies it.
 *
 * <p>The first read starts where this process's last replay of the same log stopped ({@link
 * LeaseReplayCache}), when the log can be read from a position: it reads from the entry just before
 * that position and goes on from the kept replay only if that entry is the one the replay saw
 * there. A replay is a function of the entries and their store timestamps alone, so a replay
 * resumed at a checked position equals a replay of the whole log. Otherwise (a log created again, a
 * name two logs share, a failed read) it reads the whole log, as every read did before.
 */
final class ReplayedLeaseLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplayedLeaseLog.class);

    private final Supplier<WriterLeaseLog> opener;
    private final String tableName;
    private final long timeoutMillis;
    private final LeaseReplayCache cache;
    private WriterLeaseLog log;
    @Nullable private final String logId;

    /** Null before the first read. */
    @Nullable private WriterLeaseReplay replay;

    /** The last entry read, or null when none was. */
    @Nullable private WriterLeaseEntry last;

    private long keptPosition = -1;

    /** Whether a read failed: then the log's position and the replay may disagree. */
    private boolean broken;

    /**
     * The log {@code opener} opens (it may be called again), of the table named {@code tableName}
     * in messages, replayed with {@code timeoutMillis} and resumed from {@code cache}.
     */
    ReplayedLeaseLog(
            Supplier<WriterLeaseLog> opener,
            String tableName,
            long timeoutMillis,
            LeaseReplayCache cache) {
        this.opener = opener;
        this.tableName = tableName;
        this.timeoutMillis = timeoutMillis;
        this.cache = cache;
        this.log = opener.get();
        this.logId = log.resumableId();
    }

    /** The lease log of {@code table}, resumed from this process's replays. */
    static ReplayedLeaseLog open(StreamStore store, StreamTable table, long timeoutMillis) {
        return new ReplayedLeaseLog(
                () -> store.openWriterLeaseLog(table),
                table.spec().identifier().getFullName(),
                timeoutMillis,
                LeaseReplayCache.PROCESS);
    }

    /** See {@link WriterLeaseLog#append}. */
    void append(String owner, String description) {
        log.append(owner, description);
    }

    /** See {@link WriterLeaseLog#release}. */
    void release(String owner, String description) {
        log.release(owner, description);
    }

    /**
     * Reads the log up to at least every entry appended before this call and returns the replay of
     * all entries read so far: the same replay at every call, moved on, unless a read failed, after
     * which the next call replays anew.
     */
    WriterLeaseReplay readToEnd() {
        if (broken) {
            // a read failed part-way (the store timed out): start over on a log of its own, from
            // this process's last consistent replay or the log's start
            WriterLeaseLog fresh = opener.get();
            log.close();
            log = fresh;
            replay = null;
            last = null;
            keptPosition = -1;
            broken = false;
        }
        if (replay == null) {
            replay = firstRead();
            keep();
        } else {
            read(replay);
        }
        return replay;
    }

    private WriterLeaseReplay firstRead() {
        LeaseReplayCache.Replayed known = logId == null ? null : cache.get(logId, timeoutMillis);
        if (known != null) {
            WriterLeaseReplay resumed = resume(known);
            if (resumed != null) {
                return resumed;
            }
            log.close();
            log = opener.get();
        }
        WriterLeaseReplay full = new WriterLeaseReplay(timeoutMillis);
        read(full);
        return full;
    }

    @Nullable
    private WriterLeaseReplay resume(LeaseReplayCache.Replayed known) {
        List<WriterLeaseEntry> entries;
        try {
            log.seek(known.position - 1);
            entries = log.readNew();
        } catch (RuntimeException e) {
            LOG.info(
                    "Cannot resume the writer lease log of {} at position {}; replaying all of it.",
                    tableName,
                    known.position - 1,
                    e);
            return null;
        }
        if (entries.isEmpty() || !entries.get(0).equals(known.last)) {
            LOG.info(
                    "The writer lease log of {} no longer holds {} at position {}; replaying all "
                            + "of it.",
                    tableName,
                    known.last,
                    known.position - 1);
            return null;
        }
        WriterLeaseReplay resumed = known.resume();
        resumed.apply(entries.subList(1, entries.size()));
        last = entries.get(entries.size() - 1);
        return resumed;
    }

    private void read(WriterLeaseReplay target) {
        List<WriterLeaseEntry> entries;
        try {
            entries = log.readNew();
        } catch (RuntimeException e) {
            // the log may have moved past entries that never reached the replay: keep nothing
            broken = true;
            throw e;
        }
        apply(target, entries);
    }

    private void apply(WriterLeaseReplay target, List<WriterLeaseEntry> entries) {
        target.apply(entries);
        if (!entries.isEmpty()) {
            last = entries.get(entries.size() - 1);
        }
    }

    /** Gives the process a copy of the replay as it stands, if it reached further. */
    private void keep() {
        if (logId == null || last == null || replay == null || broken) {
            return;
        }
        long position = log.position();
        if (position > keptPosition) {
            cache.put(logId, replay.copy(), position, last);
            keptPosition = position;
        }
    }

    @Override
    public void close() {
        try {
            keep();
        } finally {
            log.close();
        }
    }
}
