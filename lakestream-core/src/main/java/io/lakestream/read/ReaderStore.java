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

package io.lakestream.read;

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.AheadCall;
import io.lakestream.store.FenceLog;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;

import org.apache.paimon.options.Options;
import org.apache.paimon.utils.TimeUtils;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A split reader's connection to the stream store, opened on first use (a read that never leaves
 * the lake never connects): the store, its fenced reader of the stream table, and the deadline of
 * every wait on it ({@link LakeStreamOptions#READ_STORE_TIMEOUT}) with the error that names the
 * table and the store's address.
 */
public final class ReaderStore implements AutoCloseable {

    private final StreamTable streamTable;
    private final Supplier<StreamStore> storeFactory;
    private final Duration timeout;
    private final String address;

    /** Whether {@link #close} closes the store: false for a store the caller lent. */
    private final boolean ownsStore;

    @Nullable private StreamStore store;
    @Nullable private FencedStreamReader log;

    /** The log being opened ahead of its first use, on a thread of its own. */
    @Nullable private AheadCall<FencedStreamReader> opening;

    /** How often {@link #openAhead} was called: how many times a split reader was given splits. */
    private final AtomicLong splitsGiven = new AtomicLong();

    /**
     * {@link #splitsGiven} when the opening log began its read of the fence log: splits given after
     * that need another read before their planned logs are subscribed.
     */
    private volatile long givenBeforeFenceRead;

    /** Opens a store of its own from {@code storeFactory} on first use, and closes it. */
    public ReaderStore(
            StreamTable streamTable,
            Map<String, String> options,
            Supplier<StreamStore> storeFactory) {
        this(streamTable, options, storeFactory, true);
    }

    /**
     * Reads through {@code store}, which the caller keeps open and closes: {@link #close} closes
     * only the reader it made.
     */
    public static ReaderStore borrowing(
            StreamTable streamTable, Map<String, String> options, StreamStore store) {
        return new ReaderStore(streamTable, options, () -> store, false);
    }

    private ReaderStore(
            StreamTable streamTable,
            Map<String, String> options,
            Supplier<StreamStore> storeFactory,
            boolean ownsStore) {
        this.streamTable = streamTable;
        this.storeFactory = storeFactory;
        this.ownsStore = ownsStore;
        Options conf = Options.fromMap(options);
        this.timeout = conf.get(LakeStreamOptions.READ_STORE_TIMEOUT);
        this.address = address(conf.get(LakeStreamOptions.STORE), options);
    }

    /**
     * Where the store is, for errors: its bootstrap servers when its client has them (never other
     * client options, which may hold secrets), else its name.
     */
    private static String address(String store, Map<String, String> options) {
        String servers =
                options.get(LakeStreamOptions.storeOptionsPrefix(store) + "bootstrap.servers");
        return servers == null
                ? "the '" + store + "' stream store"
                : "the '" + store + "' stream store at " + servers;
    }

    public synchronized StreamStore store() {
        if (store == null) {
            store = storeFactory.get();
        }
        return store;
    }

    public FencedStreamReader log() {
        if (log == null && opening != null) {
            try {
                // the same failure the caller would have had opening it itself
                log = opening.join();
            } finally {
                opening = null;
            }
            if (splitsGiven.get() > givenBeforeFenceRead) {
                // given splits while the opening's read of the fence log ran
                log.readFencesAhead();
            }
        }
        if (log == null) {
            log = openLog();
        }
        return log;
    }

    /**
     * Starts opening the log on a thread of its own, if it is not open: the store's connection, its
     * reader of the stream table and the fence log read to its end take round trips that a split
     * reader can spend reading a lake part instead. {@link #log()} then waits for it. A log that is
     * open starts reading the fence log to its end instead ({@link
     * FencedStreamReader#readFencesAhead}): a split reader calls this when it is given splits, so
     * that their bounded logs, planned before, are subscribed with {@link
     * FencedStreamReader#subscribePlanned} without a read of their own.
     */
    public void openAhead() {
        splitsGiven.incrementAndGet();
        if (log != null) {
            log.readFencesAhead();
            return;
        }
        if (opening != null) {
            return; // its read of the fence log follows, or log() starts another
        }
        opening =
                AheadCall.start(
                        "lake-stream-reader-open-" + streamTable.spec().identifier(),
                        this::openLog);
    }

    private FencedStreamReader openLog() {
        StreamStore s = store();
        StreamReader reader = s.createReader(streamTable);
        FenceLog fenceLog = s.openFenceLog(streamTable);
        // the reader reads the fence log to its end as it is created, after this
        givenBeforeFenceRead = splitsGiven.get();
        return new FencedStreamReader(reader, fenceLog);
    }

    public StreamTable streamTable() {
        return streamTable;
    }

    /** How long a wait on the store may last. */
    public Duration timeout() {
        return timeout;
    }

    /** The error of a wait on the store that ran out of time. */
    public StreamStoreException timedOut(String waitingFor) {
        return new StreamStoreException(
                String.format(
                        "Timed out after %s reading table %s from %s: %s. Check that the store "
                                + "is reachable, or raise option '%s' (now %s).",
                        TimeUtils.formatWithHighestUnit(timeout),
                        streamTable.spec().identifier().getFullName(),
                        address,
                        waitingFor,
                        LakeStreamOptions.READ_STORE_TIMEOUT.key(),
                        TimeUtils.formatWithHighestUnit(timeout)));
    }

    public void wakeUp() {
        if (log != null) {
            log.wakeup();
        }
    }

    @Override
    public void close() {
        if (opening != null) {
            // the store's waits are bounded: the log is open or failed soon, and closed here
            try {
                log = opening.join();
            } catch (RuntimeException e) {
                // a log that no read used: its failure to open fails no read
            }
            opening = null;
        }
        try {
            if (log != null) {
                log.close();
            }
        } finally {
            if (store != null && ownsStore) {
                store.close();
            }
        }
    }
}
