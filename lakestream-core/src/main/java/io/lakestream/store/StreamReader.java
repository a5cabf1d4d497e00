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

package io.lakestream.store;

import io.lakestream.offsets.PartitionBucket;

import org.apache.paimon.annotation.Experimental;

import java.time.Duration;
import java.util.List;

/**
 * Reads records of partition-buckets of one stream table, each from a start offset up to an
 * optional stop offset. A raw reader returns every stored record; readers that must skip fences
 * wrap it in {@code FencedStreamReader}.
 */
@Experimental
public interface StreamReader extends AutoCloseable {

    /** Stop offset of a partition-bucket that is read without end. */
    long NO_STOP_OFFSET = Long.MAX_VALUE;

    /**
     * Starts reading {@code partitionBucket} at {@code startOffset}, up to {@code stopOffset}
     * (exclusive, or {@link #NO_STOP_OFFSET}). A bounded subscription's range is one the store held
     * when it was planned, so a store may leave its check to the store's own fetch instead of
     * asking for its offsets first: it then fails the {@link #poll} whose fetch the store refused,
     * as a read that falls behind the store's retention fails.
     *
     * @throws StreamStoreException when {@code startOffset} is outside the offsets the store holds
     *     (for a bounded subscription, here or at the latest from that poll)
     */
    void subscribe(PartitionBucket partitionBucket, long startOffset, long stopOffset);

    /**
     * Starts reading every one of {@code subscriptions}, as {@link #subscribe(PartitionBucket,
     * long, long)} does for each. A source reader that starts thousands of partition-buckets at
     * once (at start, or after a restore) calls this, so a store should check and start them with a
     * few requests for the whole batch rather than some per partition-bucket; this default
     * subscribes them one by one.
     *
     * @throws StreamStoreException when a start offset is outside the offsets the store holds
     */
    default void subscribe(List<StreamSubscription> subscriptions) {
        for (StreamSubscription subscription : subscriptions) {
            subscribe(
                    subscription.partitionBucket(),
                    subscription.startOffset(),
                    subscription.stopOffset());
        }
    }

    void unsubscribe(PartitionBucket partitionBucket);

    /**
     * Returns the records fetched within {@code timeout}, in offset order per partition-bucket, or
     * an empty list. Partition-buckets that reached their stop offset are then reported by {@link
     * #finished()}.
     */
    List<StreamRecord> poll(Duration timeout);

    /**
     * The partition-buckets that reached their stop offset since the last call, now unsubscribed.
     */
    List<PartitionBucket> finished();

    /** Makes a blocked {@link #poll} return early. */
    void wakeup();

    @Override
    void close();
}
