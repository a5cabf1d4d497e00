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

import io.lakestream.LakeStreamOptions;

import org.apache.paimon.options.Options;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeSet;

/** Finds the {@link StreamStoreFactory} of a store identifier with {@link ServiceLoader}. */
public final class StreamStoreLoader {

    private StreamStoreLoader() {}

    /**
     * Creates the store that {@code options} name in {@code lake-stream.store}, with the options
     * under {@code lake-stream.<store>.} as its client options.
     */
    public static StreamStore create(Map<String, String> options, ClassLoader classLoader) {
        Options conf = Options.fromMap(options);
        String identifier = conf.get(LakeStreamOptions.STORE);
        Duration requestTimeout = conf.get(LakeStreamOptions.STORE_REQUEST_TIMEOUT);
        Duration writeTimeout = conf.get(LakeStreamOptions.STORE_WRITE_TIMEOUT);
        Duration idleTimeout = conf.get(LakeStreamOptions.STORE_CONNECTION_IDLE_TIMEOUT);
        String databasePrefix = conf.get(LakeStreamOptions.STORE_DATABASE_PREFIX);
        String prefix = LakeStreamOptions.storeOptionsPrefix(identifier);
        Map<String, String> storeOptions = new HashMap<>();
        options.forEach(
                (key, value) -> {
                    if (key.startsWith(prefix)) {
                        storeOptions.put(key.substring(prefix.length()), value);
                    }
                });
        return load(identifier, classLoader)
                .create(
                        new StreamStoreFactory.Context() {
                            @Override
                            public Map<String, String> storeOptions() {
                                return storeOptions;
                            }

                            @Override
                            public Duration requestTimeout() {
                                return requestTimeout;
                            }

                            @Override
                            public Duration writeTimeout() {
                                return writeTimeout;
                            }

                            @Override
                            public Duration connectionIdleTimeout() {
                                return idleTimeout;
                            }

                            @Override
                            public String databasePrefix() {
                                return databasePrefix;
                            }
                        });
    }

    public static StreamStoreFactory load(String identifier, ClassLoader classLoader) {
        List<StreamStoreFactory> matches = new ArrayList<>();
        TreeSet<String> known = new TreeSet<>();
        for (StreamStoreFactory factory :
                ServiceLoader.load(StreamStoreFactory.class, classLoader)) {
            known.add(factory.identifier());
            if (factory.identifier().equals(identifier)) {
                matches.add(factory);
            }
        }
        if (matches.isEmpty()) {
            throw new StreamStoreException(
                    String.format(
                            "Unknown stream store '%s' in option '%s'. Known stores: %s. A store is "
                                    + "found when its jar is on the class path.",
                            identifier, LakeStreamOptions.STORE.key(), known));
        }
        if (matches.size() > 1) {
            List<String> classes = new ArrayList<>();
            matches.forEach(f -> classes.add(f.getClass().getName()));
            throw new StreamStoreException(
                    String.format(
                            "More than one stream store is named '%s': %s. Remove all but one "
                                    + "from the class path.",
                            identifier, classes));
        }
        return matches.get(0);
    }
}
