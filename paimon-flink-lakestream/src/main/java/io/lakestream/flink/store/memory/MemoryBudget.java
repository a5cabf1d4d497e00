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

package io.lakestream.flink.store.memory;

import io.lakestream.flink.LakeStreamOptions;
import io.lakestream.flink.store.StreamStoreException;

import java.time.Duration;

/**
 * The bytes that the memory stream tables of this process hold, against the limit {@code
 * lake-stream.memory.max-bytes}: a write that would pass it waits for commits to free records and
 * fails after the write timeout. Records are never dropped to make room.
 */
final class MemoryBudget {

    private long used;

    synchronized long used() {
        return used;
    }

    /**
     * Takes {@code bytes} for a record of {@code table}, waiting up to {@code timeout} while the
     * tables hold {@code maxBytes} or more. A single record larger than the limit is taken when
     * nothing else is held, so that it cannot wait forever.
     */
    synchronized void acquire(long bytes, long maxBytes, Duration timeout, String table)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (used > 0 && used + bytes > maxBytes) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new StreamStoreException(
                        String.format(
                                "The memory stream store of this process holds %d bytes of "
                                        + "records that no snapshot committed yet, and a record of "
                                        + "table %s waited %s for room under '%s' = %d bytes. "
                                        + "Commit more often (a shorter checkpoint interval), "
                                        + "raise '%s', or use the fluss store.",
                                used,
                                table,
                                timeout,
                                LakeStreamOptions.MEMORY_MAX_BYTES.key(),
                                maxBytes,
                                LakeStreamOptions.MEMORY_MAX_BYTES.key()));
            }
            wait(Math.max(1, left / 1_000_000));
        }
        used += bytes;
    }

    synchronized void release(long bytes) {
        if (bytes > 0) {
            used -= bytes;
            notifyAll();
        }
    }
}
