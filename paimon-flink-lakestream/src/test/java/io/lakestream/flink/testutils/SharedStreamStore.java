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

package io.lakestream.flink.testutils;

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The stream store shared by every integration test class of a test run, as {@link
 * SharedMiniCluster} shares one MiniCluster: the {@link StoreUnderTest} the class path registers
 * (the Fluss module's tests register a Fluss cluster), else the {@code memory} store of the test
 * process. Register it with {@code @ExtendWith}.
 */
public final class SharedStreamStore implements BeforeAllCallback {

    private static StoreUnderTest store;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        synchronized (SharedStreamStore.class) {
            if (store == null) {
                store = registered();
            }
            store.start(context.getRoot());
        }
    }

    private static StoreUnderTest registered() {
        Iterator<StoreUnderTest> found =
                ServiceLoader.load(StoreUnderTest.class, SharedStreamStore.class.getClassLoader())
                        .iterator();
        return found.hasNext() ? found.next() : new MemoryStoreUnderTest();
    }

    private static StoreUnderTest store() {
        synchronized (SharedStreamStore.class) {
            if (store == null) {
                throw new IllegalStateException(
                        "Register SharedStreamStore with @ExtendWith before using it.");
            }
            return store;
        }
    }

    /** The lake-stream options that point a catalog, a sink or a source at the shared store. */
    public static Map<String, String> lakeStreamOptions() {
        return new HashMap<>(store().lakeStreamOptions());
    }

    /** A new client of the shared store. */
    public static StreamStore newStore() {
        return newStore(lakeStreamOptions());
    }

    /** A new client of the shared store with {@code options}. */
    public static StreamStore newStore(Map<String, String> options) {
        return store().newStore(options);
    }

    /** The lake-stream options as the option pairs of a SQL {@code WITH} clause. */
    public static String sqlOptions() {
        StringBuilder sql = new StringBuilder();
        lakeStreamOptions()
                .forEach(
                        (key, value) -> {
                            if (sql.length() > 0) {
                                sql.append(", ");
                            }
                            sql.append('\'').append(key).append("' = '").append(value).append('\'');
                        });
        return sql.toString();
    }

    /** The {@code memory} store of the test process: nothing to start. */
    private static final class MemoryStoreUnderTest implements StoreUnderTest {

        @Override
        public void start(ExtensionContext root) {}

        @Override
        public Map<String, String> lakeStreamOptions() {
            Map<String, String> options = new HashMap<>();
            options.put(LakeStreamOptions.STORE.key(), "memory");
            return options;
        }

        @Override
        public StreamStore newStore(Map<String, String> options) {
            return StreamStoreLoader.create(options, SharedStreamStore.class.getClassLoader());
        }
    }
}
