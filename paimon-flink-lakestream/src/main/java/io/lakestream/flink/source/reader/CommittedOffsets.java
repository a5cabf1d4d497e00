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

package io.lakestream.flink.source.reader;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;

import org.apache.flink.annotation.Internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The committed offset of each partition-bucket as a read-committed reader knows it, shared by the
 * reader's main thread (which learns of new snapshots) and its fetcher thread (which holds back
 * records at or above it). Offsets only grow.
 */
@Internal
final class CommittedOffsets {

    private final Map<PartitionBucket, Long> offsets = new ConcurrentHashMap<>();

    /** Counts the snapshots learned of, so that the fetcher thread sees that one arrived. */
    private final AtomicLong advances = new AtomicLong();

    void advance(StreamOffsets committed) {
        committed.asMap().forEach((pb, offset) -> offsets.merge(pb, offset, Math::max));
        advances.incrementAndGet();
    }

    /** How many snapshots' offsets were learned of; grows with each. */
    long advances() {
        return advances.get();
    }

    /** Records of {@code pb} below this offset are committed; 0 when none is known yet. */
    long of(PartitionBucket pb) {
        return offsets.getOrDefault(pb, 0L);
    }
}
