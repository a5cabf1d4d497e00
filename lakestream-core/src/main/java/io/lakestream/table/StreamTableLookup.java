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

package io.lakestream.table;

import io.lakestream.StatementErrors;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import java.util.Map;

/** Finds the stream table of an enabled Paimon table in a store. */
public final class StreamTableLookup {

    private StreamTableLookup() {}

    /**
     * The existing stream table of {@code spec}; for a {@link StreamStore#isProcessLocal()
     * process-local} store, the one of this process, provisioned when the process has none yet:
     * such a store starts empty in every process, and the table's enablement in Paimon is what says
     * its stream table exists (a job planned in a new process, one restored after the old process
     * died, provisions it there).
     *
     * @throws StreamStoreException naming the table, as the root of its chain (see {@link
     *     StatementErrors}), when the store cannot be reached or has no such stream table
     */
    public static StreamTable lookUp(StreamStore store, StreamTableSpec spec) {
        try {
            return store.isProcessLocal() ? store.provision(spec) : store.get(spec);
        } catch (RuntimeException e) {
            throw cannotLookUp(spec, e);
        }
    }

    /**
     * Opens the store that {@code storeOptions} name and looks up the stream table of {@code spec}
     * in it (see {@link #lookUp}): what every engine does before it plans, reads or writes.
     *
     * @throws StreamStoreException naming the table, as the root of its chain, when the store
     *     cannot be opened (a malformed option, an unknown store) or reached, or has no such stream
     *     table; the store is closed then
     */
    public static Connected open(
            StreamTableSpec spec, Map<String, String> storeOptions, ClassLoader classLoader) {
        StreamStore store;
        try {
            store = StreamStoreLoader.create(storeOptions, classLoader);
        } catch (RuntimeException e) {
            throw cannotLookUp(spec, e);
        }
        try {
            return new Connected(store, lookUp(store, spec));
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** An open store and the stream table found in it; closing it closes the store. */
    public static final class Connected implements AutoCloseable {
        private final StreamStore store;
        private final StreamTable table;

        private Connected(StreamStore store, StreamTable table) {
            this.store = store;
            this.table = table;
        }

        public StreamStore store() {
            return store;
        }

        public StreamTable table() {
            return table;
        }

        @Override
        public void close() {
            store.close();
        }
    }

    /** The error of a stream table that cannot be looked up, naming the table and the cause. */
    public static StreamStoreException cannotLookUp(StreamTableSpec spec, RuntimeException cause) {
        return StatementErrors.rootOf(
                StreamStoreException::new,
                String.format(
                        "Table %s is in lake-stream mode, but its stream table cannot be looked "
                                + "up: %s",
                        spec.identifier().getFullName(), cause.getMessage()),
                cause);
    }
}
