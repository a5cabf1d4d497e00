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

package io.lakestream.store.memory;

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.testutils.StreamStoreTestSuiteBase;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.util.HashMap;
import java.util.Map;

/** The store contract suite on the {@code memory} store, as a user's options load it. */
class MemoryStreamStoreContractTest extends StreamStoreTestSuiteBase {

    private static StreamStore store;

    @BeforeAll
    static void open() {
        Map<String, String> options = new HashMap<>();
        options.put(LakeStreamOptions.STORE.key(), MemoryStreamStoreFactory.IDENTIFIER);
        store =
                StreamStoreLoader.create(
                        options, MemoryStreamStoreContractTest.class.getClassLoader());
    }

    @AfterAll
    static void close() {
        store.close();
    }

    @Override
    protected StreamStore store() {
        return store;
    }

    @Override
    protected String database() {
        return "memory_contract";
    }
}
