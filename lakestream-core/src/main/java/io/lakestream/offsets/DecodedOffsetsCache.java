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

package io.lakestream.offsets;

import org.apache.paimon.shade.caffeine2.com.github.benmanes.caffeine.cache.Cache;
import org.apache.paimon.shade.caffeine2.com.github.benmanes.caffeine.cache.Caffeine;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * The offsets files this process decoded lately. An offsets file is written once, under a name no
 * other file takes (a random UUID), and never changed, so its decoded map stays right for as long
 * as it is kept. Planning one statement reads the same file several times (Flink's planner builds a
 * source more than once, and a pushed-down {@code COUNT(*)} plans the read again), each a decode of
 * a map of every partition-bucket: about 0.1 s at 4,000 partition-buckets in a JVM that has not
 * compiled the decoder yet, as a SQL client or a job manager rarely has.
 *
 * <p>Bounded by partition-buckets held (a map weighs its size), and entries idle for ten minutes
 * go, so that a long-lived process keeps no more than the files it reads.
 */
final class DecodedOffsetsCache {

    /** About 10 MB of maps at most: ten files of 10,000 partition-buckets. */
    private static final long MAX_PARTITION_BUCKETS = 100_000;

    private static final Cache<String, StreamOffsets> DECODED =
            Caffeine.newBuilder()
                    .maximumWeight(MAX_PARTITION_BUCKETS)
                    .weigher((String key, StreamOffsets offsets) -> offsets.size() + 1)
                    .expireAfterAccess(Duration.ofMinutes(10))
                    .build();

    private DecodedOffsetsCache() {}

    /**
     * The map decoded under {@code key} (the file's path and what its decoding depends on), or
     * {@code decode}'s, kept for the next read. A failed decode is not kept.
     */
    static StreamOffsets get(String key, Supplier<StreamOffsets> decode) {
        return DECODED.get(key, k -> decode.get());
    }
}
