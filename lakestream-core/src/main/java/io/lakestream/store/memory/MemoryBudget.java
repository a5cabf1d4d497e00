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

package io.lakestream.store.memory;

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.StreamStoreException;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The bytes that the memory stream tables of this process hold, against the limit {@code
 * lake-stream.memory.max-bytes}. Records a snapshot committed stay while there is room, so that a
 * reader restored from an older checkpoint still finds them; a write that needs room first evicts
 * committed records that no reader pins ({@link #evictor}), then waits for commits to let it evict
 * more, and fails after the write timeout. Uncommitted records are never dropped.
 */
final class MemoryBudget {

    /** How often a waiting write tries to evict again when no commit woke it. */
    private static final long RETRY_MILLIS = 100;

    private final LongSupplier evictor;
    private long used;

    /**
     * @param evictor frees committed records that no reader pins and returns their bytes; called
     *     without this budget's monitor held, as it takes the tables' monitors
     */
    MemoryBudget(LongSupplier evictor) {
        this.evictor = evictor;
    }

    synchronized long used() {
        return used;
    }

    /**
     * Takes {@code bytes} for a record of {@code table}, evicting committed records and waiting up
     * to {@code timeout} while the tables hold {@code maxBytes} or more. A single record larger
     * than the limit is taken when nothing else is held, so that it cannot wait forever.
     */
    void acquire(long bytes, long maxBytes, Duration timeout, String table)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (tryTake(bytes, maxBytes)) {
                return;
            }
            long evicted = evictor.getAsLong();
            if (evicted > 0) {
                release(evicted);
                continue;
            }
            synchronized (this) {
                if (fits(bytes, maxBytes)) {
                    used += bytes;
                    return;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw full(table, timeout, maxBytes);
                }
                wait(Math.max(1, Math.min(RETRY_MILLIS, left / 1_000_000)));
            }
        }
    }

    private synchronized boolean tryTake(long bytes, long maxBytes) {
        if (fits(bytes, maxBytes)) {
            used += bytes;
            return true;
        }
        return false;
    }

    private boolean fits(long bytes, long maxBytes) {
        return used == 0 || used + bytes <= maxBytes;
    }

    private StreamStoreException full(String table, Duration timeout, long maxBytes) {
        return new StreamStoreException(
                String.format(
                        "The memory stream store of this process holds %d bytes of records that "
                                + "no snapshot committed yet or a reader still reads, and a "
                                + "record of table %s waited %s for room under '%s' = %d bytes. "
                                + "Commit more often (a shorter checkpoint interval), raise '%s', "
                                + "or use the fluss store.",
                        used,
                        table,
                        timeout,
                        LakeStreamOptions.MEMORY_MAX_BYTES.key(),
                        maxBytes,
                        LakeStreamOptions.MEMORY_MAX_BYTES.key()));
    }

    synchronized void release(long bytes) {
        if (bytes > 0) {
            used -= bytes;
            notifyAll();
        }
    }

    /** Wakes waiting writes to evict again: a commit made records evictable. */
    synchronized void committed() {
        notifyAll();
    }
}
