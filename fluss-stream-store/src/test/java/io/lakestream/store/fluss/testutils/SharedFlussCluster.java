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
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.testutils.Await;

import org.apache.fluss.server.testutils.FlussClusterExtension;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.HashMap;
import java.util.Map;

/**
 * One in-process Fluss cluster (ZooKeeper, a coordinator and a tablet server) for all the test
 * classes of a test run: it starts with the first class that registers this extension and stops
 * when the run ends, because starting takes seconds and stopping about eight.
 */
public final class SharedFlussCluster implements BeforeAllCallback {

    private static final String KEY = SharedFlussCluster.class.getName();

    private static FlussClusterExtension cluster;
    private static CoordinatorTableWatchdog watchdog;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        synchronized (SharedFlussCluster.class) {
            if (cluster == null) {
                FlussClusterExtension started =
                        FlussClusterExtension.builder().setNumOfTabletServers(1).build();
                started.start();
                cluster = started;
                watchdog = new CoordinatorTableWatchdog(started);
                context.getRoot()
                        .getStore(ExtensionContext.Namespace.GLOBAL)
                        .put(KEY, (ExtensionContext.Store.CloseableResource) this::stop);
            }
        }
    }

    private void stop() throws Exception {
        synchronized (SharedFlussCluster.class) {
            watchdog.close();
            cluster.close();
            cluster = null;
        }
    }

    public static FlussClusterExtension cluster() {
        if (cluster == null) {
            throw new IllegalStateException(
                    "Register SharedFlussCluster with @ExtendWith before using it.");
        }
        return cluster;
    }

    public static String bootstrapServers() {
        return cluster().getBootstrapServers();
    }

    /** The lake-stream options that point the default store at this cluster. */
    public static Map<String, String> lakeStreamOptions() {
        Map<String, String> options = new HashMap<>();
        options.put(LakeStreamOptions.STORE.key(), "fluss");
        options.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "bootstrap.servers",
                bootstrapServers());
        return options;
    }

    /**
     * A new store client of this cluster, found through the store SPI as users get it; its
     * provisioning returns once the coordinator knows the stream table (see {@link
     * CoordinatorAwareStreamStore}).
     */
    public static StreamStore newStore() {
        return newStore(lakeStreamOptions());
    }

    /** A new store client of this cluster with {@code options}, as {@link #newStore()}. */
    public static StreamStore newStore(Map<String, String> options) {
        return new CoordinatorAwareStreamStore(
                StreamStoreLoader.create(options, SharedFlussCluster.class.getClassLoader()));
    }

    /**
     * Waits until the Fluss coordinator knows table {@code tableId}, which the {@link
     * CoordinatorTableWatchdog} makes sure of when the coordinator missed its creation.
     */
    static void awaitKnownToCoordinator(long tableId) {
        try {
            Await.until(
                    () ->
                            cluster()
                                    .getCoordinatorServer()
                                    .getCoordinatorEventProcessor()
                                    .getCoordinatorContext()
                                    .containsTableId(tableId),
                    "the Fluss coordinator knows table " + tableId);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
