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

package io.lakestream.store.fluss;

import io.lakestream.store.StreamStoreException;

import org.apache.fluss.bucketing.BucketingFunction;
import org.apache.fluss.metadata.TableInfo;

/**
 * Per bucket of a stream table, a bucket key that Fluss's writer hashes to that bucket.
 *
 * <p>The sink already knows each record's bucket: Paimon assigned it, and the stream-store bucket
 * must equal it. Handing Fluss's writer the record's own key would make it encode and hash every
 * key a second time to arrive at the same bucket. Instead each record carries a fixed key of its
 * bucket, found once here with the very bucketing function the writer applies (Fluss uses the key
 * of an append record for nothing else), so the record lands in exactly the bucket Paimon chose.
 */
final class PaimonBucketKeys {

    private final byte[][] keys;

    /** The keys of the buckets of {@code info}, for the bucketing function its writer applies. */
    static PaimonBucketKeys of(TableInfo info) {
        return new PaimonBucketKeys(
                info.getNumBuckets(),
                BucketingFunction.of(info.getTableConfig().getDataLakeFormat().orElse(null)),
                info.getTablePath().toString());
    }

    PaimonBucketKeys(int numBuckets, BucketingFunction function, String tableName) {
        this.keys = new byte[numBuckets][];
        int found = 0;
        // a hash spreads keys evenly, so every bucket is hit after about n * ln(n) candidates
        long limit = 1000L * numBuckets + 1_000_000L;
        for (int candidate = 0; found < numBuckets && candidate < limit; candidate++) {
            byte[] key = {
                (byte) (candidate >>> 24), (byte) (candidate >>> 16),
                (byte) (candidate >>> 8), (byte) candidate
            };
            int bucket = function.bucketing(key, numBuckets);
            if (keys[bucket] == null) {
                keys[bucket] = key;
                found++;
            }
        }
        if (found < numBuckets) {
            throw new StreamStoreException(
                    String.format(
                            "Found no bucket key for some of the %d buckets of stream table %s.",
                            numBuckets, tableName));
        }
    }

    /** A key that Fluss's writer puts into {@code bucket}. */
    byte[] keyOf(int bucket) {
        if (bucket >= keys.length) {
            throw new StreamStoreException(
                    String.format(
                            "Bucket %d does not exist: the stream table has %d buckets.",
                            bucket, keys.length));
        }
        return keys[bucket];
    }
}
