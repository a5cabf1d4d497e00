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

import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The stream tables a catalog has looked up, so that planning a statement on a table the catalog
 * knows asks the store for nothing (Flink's planner builds a source up to three times per scan).
 * Keyed by everything the look-up depends on: the spec (name, columns, keys, buckets and the owning
 * Paimon table's identity, so a schema change or a re-created table is a new key) and the store
 * options. The catalog forgets a table's entries when it enables, disables, alters or drops it; a
 * stream table dropped and created again by another catalog is caught by the store, which refuses
 * the old handle when a job uses it.
 */
public final class StreamTableCache {

    private final Map<Key, StreamTable> tables = new ConcurrentHashMap<>();

    /** The known stream table of {@code spec} and {@code storeOptions}, else {@code lookUp}'s. */
    public StreamTable get(
            StreamTableSpec spec, Map<String, String> storeOptions, Supplier<StreamTable> lookUp) {
        Key key = new Key(spec, storeOptions);
        StreamTable known = tables.get(key);
        if (known != null) {
            return known;
        }
        // looked up outside any lock: two planners of one table may both ask, and agree
        StreamTable found = lookUp.get();
        tables.put(key, found);
        return found;
    }

    /** Forgets every stream table of the Paimon table {@code identifier}. */
    public void forget(Identifier identifier) {
        // by database and table name: branch and system-table suffixes name the same stream table
        tables.keySet()
                .removeIf(
                        key ->
                                key.spec
                                                .identifier()
                                                .getDatabaseName()
                                                .equals(identifier.getDatabaseName())
                                        && key.spec
                                                .identifier()
                                                .getTableName()
                                                .equals(identifier.getTableName()));
    }

    /** How many stream tables are known (for tests). */
    int size() {
        return tables.size();
    }

    private static final class Key {
        private final StreamTableSpec spec;
        private final Map<String, String> storeOptions;

        Key(StreamTableSpec spec, Map<String, String> storeOptions) {
            this.spec = spec;
            this.storeOptions = new HashMap<>(storeOptions);
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key)) {
                return false;
            }
            Key that = (Key) o;
            return spec.equals(that.spec) && storeOptions.equals(that.storeOptions);
        }

        @Override
        public int hashCode() {
            return Objects.hash(spec, storeOptions);
        }
    }
}
