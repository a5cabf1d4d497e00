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

package io.lakestream.docs;

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.StreamStoreFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Where a user may set a lake-stream option, for the "Set on" column of the options page, asked of
 * the code that applies the options ({@link LakeStreamOptions#forStatement}) rather than written
 * down a second time: an option that a statement may not set is the catalog's alone; any other may
 * be set on the catalog, on the table or by a statement (a Flink hint, a Spark read option).
 */
final class OptionPlacement {

    static final String TABLE = "table";
    static final String CATALOG = "catalog";
    static final String ANYWHERE = "catalog, table, statement";

    private OptionPlacement() {}

    /** Where {@code key} may be set; empty for a key that is not a lake-stream option. */
    static String of(String key) {
        if (!key.startsWith(LakeStreamOptions.PREFIX)) {
            return "";
        }
        if (key.equals(LakeStreamOptions.ENABLED.key())) {
            // the table's mode: the enablement reads it from the table's own options, and
            // ALTER TABLE, CREATE TABLE and sys.enable_lake_stream are what change it
            return TABLE;
        }
        // a store's client options are refused as hints when that store is the catalog's
        Map<String, String> catalogOptions = new HashMap<>();
        String store = storeOf(key);
        if (store != null) {
            catalogOptions.put(LakeStreamOptions.STORE.key(), store);
        }
        try {
            LakeStreamOptions.forStatement(
                    Map.of(), catalogOptions, Map.of(key, "x"), IllegalArgumentException::new);
            return ANYWHERE;
        } catch (IllegalArgumentException refused) {
            return CATALOG;
        }
    }

    /** The store on the class path whose client options {@code key} is one of, else null. */
    private static String storeOf(String key) {
        for (StreamStoreFactory factory :
                ServiceLoader.load(
                        StreamStoreFactory.class, Thread.currentThread().getContextClassLoader())) {
            if (key.startsWith(LakeStreamOptions.storeOptionsPrefix(factory.identifier()))) {
                return factory.identifier();
            }
        }
        return null;
    }
}
