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

import io.lakestream.store.StreamStore;

import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Map;

/**
 * The stream store that the integration tests of a class path run on, found by {@link
 * java.util.ServiceLoader}: a store's module registers its own in its test resources, so that the
 * sink, source and catalog tests of this module run on that store there; without one they run on
 * the {@code memory} store.
 */
public interface StoreUnderTest {

    /**
     * Starts what the store needs (a cluster) unless it runs already; what it started is closed
     * with {@code root}, the root context of the test run.
     */
    void start(ExtensionContext root) throws Exception;

    /** The lake-stream options that point a catalog, a sink or a source at the store. */
    Map<String, String> lakeStreamOptions();

    /** A new client of the store, found through the store SPI with {@code options}. */
    StreamStore newStore(Map<String, String> options);
}
