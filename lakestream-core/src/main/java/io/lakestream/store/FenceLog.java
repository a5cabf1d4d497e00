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

import io.lakestream.offsets.AbortedRange;

import org.apache.paimon.annotation.Experimental;

import java.util.Collections;
import java.util.List;

/**
 * The durable list of fences of one stream table: aborted offset ranges recorded by restored
 * writers, visible to every reader in every process once {@link #recordAll} returns.
 */
@Experimental
public interface FenceLog extends AutoCloseable {

    /**
     * Records {@code ranges} durably, in their order, and returns once every reader can see all of
     * them. A restored writer fences all partition-buckets it owns with one call, so a store should
     * send them together (one request, one wait for durability) rather than one by one.
     *
     * <p>Not atomic: when it throws, some of the ranges may be recorded. That is harmless, because
     * the writer then fails before it writes anything, and its next attempt fences the same records
     * again; readers skip a record that several fences cover once.
     */
    void recordAll(List<AbortedRange> ranges);

    /** Records one range durably; returns once every reader can see it. */
    default void record(AbortedRange range) {
        recordAll(Collections.singletonList(range));
    }

    /**
     * Returns the fences recorded since the previous call (all of them on the first call), up to at
     * least every fence whose {@link #record} returned before this call started.
     */
    List<AbortedRange> readNew();

    /**
     * Returns, without waiting on the store, the fences that have reached this reader since the
     * previous {@link #readNew} or {@code pollNew}: the cheap check that a reader makes after every
     * batch of records it fetched, so that the fence log is read again only when it grew. A store
     * that keeps a subscription of its fence log open answers from what that subscription has
     * delivered (a fence recorded a moment ago may come with a later call); this default reads the
     * log to its end, which is exact but asks the store each time.
     */
    default List<AbortedRange> pollNew() {
        return readNew();
    }

    @Override
    void close();
}
