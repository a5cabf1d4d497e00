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

package io.lakestream.store.testing;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreFactory;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.WriterLeaseLog;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A test-only {@link StreamStoreFactory}, identifier {@value #IDENTIFIER}, that records the {@link
 * Context} it was last asked to create a store with, so that tests can see what the loader passes
 * to a store. Its stores support no operation.
 */
public final class RecordingStreamStoreFactory implements StreamStoreFactory {

    public static final String IDENTIFIER = "recording";

    // static: ServiceLoader creates a new factory instance on every lookup
    private static final AtomicReference<Context> LAST_CONTEXT = new AtomicReference<>();

    /** The context of the latest {@link #create} call, or null when none happened since reset. */
    public static Context lastContext() {
        return LAST_CONTEXT.get();
    }

    public static void reset() {
        LAST_CONTEXT.set(null);
    }

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public StreamStore create(Context context) {
        LAST_CONTEXT.set(context);
        return new UnsupportedStreamStore();
    }

    /** A store that only exists to be created: every operation but close fails. */
    private static final class UnsupportedStreamStore implements StreamStore {

        @Override
        public StreamTable provision(StreamTableSpec spec) {
            throw unsupported();
        }

        @Override
        public StreamTable get(StreamTableSpec spec) {
            throw unsupported();
        }

        @Override
        public boolean drop(Identifier paimonTable, StreamTableOwner owner) {
            throw unsupported();
        }

        @Override
        public StreamWriter createWriter(StreamTable table) {
            throw unsupported();
        }

        @Override
        public StreamReader createReader(StreamTable table) {
            throw unsupported();
        }

        @Override
        public FenceLog openFenceLog(StreamTable table) {
            throw unsupported();
        }

        @Override
        public WriterLeaseLog openWriterLeaseLog(StreamTable table) {
            throw unsupported();
        }

        @Override
        public List<BinaryRow> listPartitions(StreamTable table) {
            throw unsupported();
        }

        @Override
        public Map<PartitionBucket, Long> listOffsets(
                StreamTable table,
                Collection<PartitionBucket> partitionBuckets,
                OffsetPosition position) {
            throw unsupported();
        }

        @Override
        public void close() {
            // nothing to release; closing is allowed so that tests can use try-with-resources
        }

        private static UnsupportedOperationException unsupported() {
            return new UnsupportedOperationException(
                    "The '" + IDENTIFIER + "' stream store is for loader tests only.");
        }
    }
}
