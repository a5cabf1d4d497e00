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

package io.lakestream.store.fluss.testutils;

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.testutils.StoreUnderTest;
import io.lakestream.store.StreamStore;

import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Map;

/**
 * Runs the integration tests of the connector's test jar that this module picks (see its {@code
 * pom.xml}) on the {@link SharedFlussCluster}: registered as the {@link StoreUnderTest} of this
 * module's test class path.
 */
public final class FlussStoreUnderTest implements StoreUnderTest {

    @Override
    public void start(ExtensionContext root) throws Exception {
        new SharedFlussCluster().beforeAll(root);
    }

    /**
     * The cluster's address only: {@code fluss} is the default store, and a catalog that names no
     * store lets a table's own {@code lake-stream.store} be judged (tests of a wrong one rely on
     * that).
     */
    @Override
    public Map<String, String> lakeStreamOptions() {
        Map<String, String> options = SharedFlussCluster.lakeStreamOptions();
        options.remove(LakeStreamOptions.STORE.key());
        return options;
    }

    @Override
    public StreamStore newStore(Map<String, String> options) {
        return SharedFlussCluster.newStore(options);
    }
}
