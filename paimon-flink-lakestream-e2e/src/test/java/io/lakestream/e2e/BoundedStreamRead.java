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

package io.lakestream.e2e;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads partition-buckets of a stream table from their start offsets up to their end offsets, the
 * way a bounded scan does, and returns once the reader reports every one of them finished.
 */
public final class BoundedStreamRead {

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

    private BoundedStreamRead() {}

    /**
     * The records of {@code [starts.get(pb), ends.get(pb))} of every partition-bucket of {@code
     * ends}, from offset 0 where {@code starts} has none.
     *
     * @throws IllegalStateException when the reader has not finished within {@code timeout}
     */
    public static List<StreamRecord> readAll(
            StreamReader reader,
            Map<PartitionBucket, Long> starts,
            Map<PartitionBucket, Long> ends,
            Duration timeout) {
        ends.forEach((pb, end) -> reader.subscribe(pb, starts.getOrDefault(pb, 0L), end));
        Set<PartitionBucket> reading = new HashSet<>(ends.keySet());
        List<StreamRecord> records = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!reading.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        String.format(
                                "Reading the stream table did not finish within %s; still "
                                        + "reading %s after %d records.",
                                timeout, reading, records.size()));
            }
            records.addAll(reader.poll(POLL_TIMEOUT));
            reading.removeAll(reader.finished());
        }
        return records;
    }
}
