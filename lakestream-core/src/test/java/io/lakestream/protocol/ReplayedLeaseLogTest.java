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
import io.lakestream.store.WriterLeaseLog;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A lease log replayed from where the process last replayed it decides exactly what a replay of the
 * whole log decides, and reads only what was appended since; a log that no longer holds the entry
 * the kept replay saw is replayed whole.
 */
class ReplayedLeaseLogTest {

    private static final long TIMEOUT = 1_000;

    /** A log in a list, with positions, whose reads count the entries they return. */
    private static final class ListLog implements WriterLeaseLog {

        private final String id;
        private final List<WriterLeaseEntry> entries;
        private int next;
        boolean failSeek;

        /** Whether the next read moves to the end and then fails, as a store's read timing out. */
        boolean failNextRead;

        int entriesRead;

        ListLog(String id, List<WriterLeaseEntry> entries) {
            this.id = id;
            this.entries = entries;
        }

        @Override
        public void append(String owner, String description) {
            throw new UnsupportedOperationException("appended by the test");
        }

        @Override
        public void release(String owner, String description) {
            throw new UnsupportedOperationException("appended by the test");
        }

        @Override
        public List<WriterLeaseEntry> readNew() {
            if (failNextRead) {
                failNextRead = false;
                next = entries.size();
                throw new IllegalStateException("timed out reading the log");
            }
            List<WriterLeaseEntry> read = new ArrayList<>(entries.subList(next, entries.size()));
            next = entries.size();
            entriesRead += read.size();
            return read;
        }

        @Override
        public String resumableId() {
            return id;
        }

        @Override
        public long position() {
            return next;
        }

        @Override
        public void seek(long position) {
            if (failSeek) {
                throw new IllegalStateException("the store cannot seek");
            }
            next = (int) Math.min(position, entries.size());
        }

        @Override
        public void close() {}
    }

    /** Opens logs over one list and remembers the last one opened. */
    private static final class Opener {
        final String id;
        final List<WriterLeaseEntry> entries;
        final List<ListLog> opened = new ArrayList<>();
        boolean failSeek;

        Opener(String id, List<WriterLeaseEntry> entries) {
            this.id = id;
            this.entries = entries;
        }

        ListLog open() {
            ListLog log = new ListLog(id, entries);
            log.failSeek = failSeek;
            opened.add(log);
            return log;
        }

        int entriesRead() {
            return opened.stream().mapToInt(l -> l.entriesRead).sum();
        }
    }

    private static WriterLeaseReplay replayed(
            Opener opener, LeaseReplayCache cache, long timeoutMillis) {
        try (ReplayedLeaseLog log =
                new ReplayedLeaseLog(opener::open, "db.t", timeoutMillis, cache)) {
            return log.readToEnd();
        }
    }

    private static WriterLeaseReplay wholeReplay(List<WriterLeaseEntry> entries, long timeout) {
        WriterLeaseReplay replay = new WriterLeaseReplay(timeout);
        replay.apply(entries);
        return replay;
    }

    private static void assertSameDecision(WriterLeaseReplay actual, WriterLeaseReplay expected) {
        assertThat(actual.holderEntry()).isEqualTo(expected.holderEntry());
        assertThat(actual.lastRelease()).isEqualTo(expected.lastRelease());
        for (String owner :
                new String[] {"a", "b", "c", WriterLeaseReplay.MAINTENANCE_OWNER_PREFIX}) {
            assertThat(actual.lastEntryOf(owner)).isEqualTo(expected.lastEntryOf(owner));
        }
    }

    /**
     * Claims, renewals, releases and maintenance claims of three jobs (each of several attempts),
     * at random store times, so that leases expire, are taken over, released and retired.
     */
    private static WriterLeaseEntry randomEntry(Random random, long timestamp) {
        int kind = random.nextInt(10);
        if (kind == 0) {
            return new WriterLeaseEntry(
                    WriterLeaseReplay.MAINTENANCE_OWNER_PREFIX, "enable", timestamp, false);
        }
        if (kind == 1) {
            return new WriterLeaseEntry(
                    WriterLeaseReplay.MAINTENANCE_OWNER_PREFIX, "enable", timestamp, true);
        }
        String owner = String.valueOf((char) ('a' + random.nextInt(3)));
        String description = owner + " attempt " + random.nextInt(2);
        return new WriterLeaseEntry(owner, description, timestamp, kind == 2);
    }

    @Test
    void aResumedReplayDecidesWhatAWholeReplayDecidesAndReadsOnlyTheNewEntries() {
        Random random = new Random(42);
        for (int round = 0; round < 50; round++) {
            List<WriterLeaseEntry> entries = new ArrayList<>();
            Opener opener = new Opener("log-" + round, entries);
            LeaseReplayCache cache = new LeaseReplayCache(LeaseReplayCache.MAX_LOGS);
            long time = 0;
            for (int step = 0; step < 20; step++) {
                int appended = random.nextInt(6);
                for (int i = 0; i < appended; i++) {
                    time += random.nextInt(700);
                    entries.add(randomEntry(random, time));
                }
                int readBefore = opener.entriesRead();
                boolean kept = step > 0 && entries.size() > appended;
                WriterLeaseReplay resumed = replayed(opener, cache, TIMEOUT);
                assertSameDecision(resumed, wholeReplay(entries, TIMEOUT));
                if (kept) {
                    // the entry before the kept position, then the new ones
                    assertThat(opener.entriesRead() - readBefore).isEqualTo(appended + 1);
                }
            }
        }
    }

    @Test
    void aLogThatNoLongerHoldsTheKeptEntryIsReplayedWhole() {
        LeaseReplayCache cache = new LeaseReplayCache(LeaseReplayCache.MAX_LOGS);
        List<WriterLeaseEntry> first = new ArrayList<>();
        first.add(new WriterLeaseEntry("a", "a job", 0));
        first.add(new WriterLeaseEntry("a", "a job", 300));
        assertThat(replayed(new Opener("same-id", first), cache, TIMEOUT).holder()).isEqualTo("a");

        // another log under the same id (a store that cannot tell them apart): b claimed it
        List<WriterLeaseEntry> second = new ArrayList<>();
        second.add(new WriterLeaseEntry("b", "b job", 100));
        second.add(new WriterLeaseEntry("b", "b job", 200));
        second.add(new WriterLeaseEntry("a", "a job", 300));
        Opener opener = new Opener("same-id", second);
        WriterLeaseReplay replay = replayed(opener, cache, TIMEOUT);
        assertThat(replay.holder()).isEqualTo("b");
        assertThat(opener.opened).as("a second log, read from its start").hasSize(2);
        assertSameDecision(replay, wholeReplay(second, TIMEOUT));

        // and a log shorter than the kept position
        List<WriterLeaseEntry> shorter = new ArrayList<>();
        shorter.add(new WriterLeaseEntry("c", "c job", 50));
        assertThat(replayed(new Opener("same-id", shorter), cache, TIMEOUT).holder())
                .isEqualTo("c");
    }

    @Test
    void aLogThatCannotBeResumedIsReplayedWhole() {
        LeaseReplayCache cache = new LeaseReplayCache(LeaseReplayCache.MAX_LOGS);
        List<WriterLeaseEntry> entries = new ArrayList<>();
        entries.add(new WriterLeaseEntry("a", "a job", 0));
        Opener opener = new Opener("failing", entries);
        replayed(opener, cache, TIMEOUT);
        entries.add(new WriterLeaseEntry("a", "a job", 400, true));
        entries.add(new WriterLeaseEntry("b", "b job", 500));
        opener.failSeek = true;
        assertThat(replayed(opener, cache, TIMEOUT).holder()).isEqualTo("b");
    }

    @Test
    void aReadThatFailsPartWayIsFollowedByAReplayAnewAndKeepsNothing() {
        LeaseReplayCache cache = new LeaseReplayCache(LeaseReplayCache.MAX_LOGS);
        List<WriterLeaseEntry> entries = new ArrayList<>();
        entries.add(new WriterLeaseEntry("a", "a job", 0));
        Opener opener = new Opener("timing-out", entries);
        try (ReplayedLeaseLog log = new ReplayedLeaseLog(opener::open, "db.t", TIMEOUT, cache)) {
            assertThat(log.readToEnd().holder()).isEqualTo("a");
            entries.add(new WriterLeaseEntry("a", "a job", 100, true));
            entries.add(new WriterLeaseEntry("b", "b job", 200));
            opener.opened.get(0).failNextRead = true;
            assertThatThrownBy(log::readToEnd).hasMessageContaining("timed out");
            // the entries the failed read passed are read again, on a log of its own
            assertThat(log.readToEnd().holder()).isEqualTo("b");
            assertThat(opener.opened).hasSize(2);
        }
        assertSameDecision(replayed(opener, cache, TIMEOUT), wholeReplay(entries, TIMEOUT));
    }

    @Test
    void replaysJudgedByAnotherTimeoutAreKeptApart() {
        LeaseReplayCache cache = new LeaseReplayCache(LeaseReplayCache.MAX_LOGS);
        List<WriterLeaseEntry> entries = new ArrayList<>();
        entries.add(new WriterLeaseEntry("a", "a job", 0));
        entries.add(new WriterLeaseEntry("b", "b job", 1_500));
        Opener opener = new Opener("timeouts", entries);
        assertThat(replayed(opener, cache, 1_000).holder()).isEqualTo("b");
        assertThat(replayed(opener, cache, 2_000).holder()).isEqualTo("a");
        entries.add(new WriterLeaseEntry("b", "b job", 1_800));
        assertThat(replayed(opener, cache, 1_000).holder()).isEqualTo("b");
        assertThat(replayed(opener, cache, 2_000).holder()).isEqualTo("a");
    }

    @Test
    void theLeastRecentlyUsedLogsAreDroppedBeyondTheBound() {
        LeaseReplayCache cache = new LeaseReplayCache(2);
        List<WriterLeaseEntry> entries = new ArrayList<>();
        entries.add(new WriterLeaseEntry("a", "a job", 0));
        for (String id : new String[] {"one", "two", "three"}) {
            replayed(new Opener(id, entries), cache, TIMEOUT);
        }
        assertThat(cache.get("one", TIMEOUT)).isNull();
        assertThat(cache.get("two", TIMEOUT)).isNotNull();
        assertThat(cache.get("three", TIMEOUT)).isNotNull();
    }

    @Test
    void aLogWithoutPositionsIsReadWholeEveryTime() {
        LeaseReplayCache cache = new LeaseReplayCache(LeaseReplayCache.MAX_LOGS);
        List<WriterLeaseEntry> entries = new ArrayList<>();
        entries.add(new WriterLeaseEntry("a", "a job", 0));
        entries.add(new WriterLeaseEntry("a", "a job", 100));
        Opener opener = new Opener(null, entries);
        replayed(opener, cache, TIMEOUT);
        replayed(opener, cache, TIMEOUT);
        assertThat(opener.entriesRead()).isEqualTo(4);
    }
}
