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

import org.apache.paimon.annotation.Experimental;

import java.time.Duration;
import java.util.Map;

/**
 * Creates {@link StreamStore}s of one kind. Implementations are found with {@link
 * java.util.ServiceLoader} (listed in {@code META-INF/services/io.lakestream.store.
 * StreamStoreFactory}) and chosen by {@link #identifier()}, the value of the {@code
 * lake-stream.store} option.
 */
@Experimental
public interface StreamStoreFactory {

    /** The store's name, such as {@code fluss}: also the prefix of its client options. */
    String identifier();

    StreamStore create(Context context);

    /** What a store is created with. */
    @Experimental
    interface Context {

        /**
         * The store client's own options, with {@code lake-stream.<identifier>.} removed from their
         * keys: for Fluss {@code bootstrap.servers}, {@code client.*}, {@code security.*}.
         */
        Map<String, String> storeOptions();

        /** How long one metadata operation of the store may take before it fails. */
        Duration requestTimeout();

        /**
         * How long a writer may take to make its records durable (a flush, or a write waiting for
         * buffer space) before it fails.
         */
        Duration writeTimeout();

        /**
         * How long a store's connection, shared by every store of one configuration in a process,
         * stays open after the last of them is closed, so that the next one reuses it.
         */
        default Duration connectionIdleTimeout() {
            return LakeStreamOptions.STORE_CONNECTION_IDLE_TIMEOUT.defaultValue();
        }

        /**
         * The catalog's {@code lake-stream.store.database-prefix}: what the store puts before the
         * Paimon database name in the name of every table it keeps, so that catalogs whose tables
         * have the same names can share one store. Empty by default (the names are the Paimon
         * names); a store without databases prefixes whatever its names start with.
         */
        default String databasePrefix() {
            return "";
        }
    }
}
