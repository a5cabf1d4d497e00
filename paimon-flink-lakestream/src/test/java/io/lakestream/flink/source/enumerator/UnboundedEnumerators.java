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

package io.lakestream.flink.source.enumerator;

import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.read.plan.UnionReadPlanner;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.Collections;
import java.util.List;

/** Enumerators of unbounded union reads for tests, over a store that only lists partitions. */
final class UnboundedEnumerators {

    private UnboundedEnumerators() {}

    /** An unbounded union read of {@code table} as it is now, from {@code restored} if given. */
    static LakeStreamSplitEnumerator unbounded(
            MockSplitEnumeratorContext<LakeStreamSplit> context,
            FileStoreTable table,
            StreamTable streamTable,
            @Nullable LakeStreamEnumeratorState restored) {
        return unbounded(context, table, streamTable, restored, Collections.emptyList());
    }

    /** Like the above, over a store that lists {@code storePartitions}. */
    static LakeStreamSplitEnumerator unbounded(
            MockSplitEnumeratorContext<LakeStreamSplit> context,
            FileStoreTable table,
            StreamTable streamTable,
            @Nullable LakeStreamEnumeratorState restored,
            List<BinaryRow> storePartitions) {
        return new LakeStreamSplitEnumerator(
                context,
                new UnionReadPlanner(table, streamTable, null, false),
                () -> listingStore(storePartitions),
                null,
                false,
                false,
                1_000,
                Duration.ofMinutes(1),
                null,
                Long.MAX_VALUE,
                restored,
                null,
                null);
    }

    /** A store that lists the given partitions and supports nothing else. */
    static StreamStore listingStore(List<BinaryRow> partitions) {
        return (StreamStore)
                java.lang.reflect.Proxy.newProxyInstance(
                        StreamStore.class.getClassLoader(),
                        new Class<?>[] {StreamStore.class},
                        (proxy, method, args) -> {
                            switch (method.getName()) {
                                case "listPartitions":
                                    return partitions;
                                case "close":
                                    return null;
                                default:
                                    throw new UnsupportedOperationException(method.getName());
                            }
                        });
    }
}
