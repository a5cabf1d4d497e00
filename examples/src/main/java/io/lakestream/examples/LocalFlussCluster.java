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

package io.lakestream.examples;

import io.lakestream.LakeStreamOptions;

import org.apache.fluss.server.testutils.FlussClusterExtension;

import java.net.URI;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

/**
 * A Fluss cluster (ZooKeeper, a coordinator, one or more tablet servers) in this JVM for the
 * examples and the benchmarks, with its files in a temporary directory that closing deletes.
 */
public final class LocalFlussCluster implements AutoCloseable {

    private final FlussClusterExtension fluss;
    private final Path dataDir;

    private LocalFlussCluster(FlussClusterExtension fluss, Path dataDir) {
        this.fluss = fluss;
        this.dataDir = dataDir;
    }

    public static LocalFlussCluster start() throws Exception {
        return start(1);
    }

    /** A cluster of {@code tabletServers} tablet servers. */
    public static LocalFlussCluster start(int tabletServers) throws Exception {
        FlussClusterExtension fluss =
                FlussClusterExtension.builder().setNumOfTabletServers(tabletServers).build();
        try {
            fluss.start();
        } catch (Exception | Error e) {
            fluss.close();
            throw e;
        }
        // read now: the extension forgets its directory on close
        return new LocalFlussCluster(
                fluss, Paths.get(URI.create(fluss.getRemoteDataDir())).getParent());
    }

    public String bootstrapServers() {
        return fluss.getBootstrapServers();
    }

    /** The options that point lake-stream mode at this cluster. */
    public Map<String, String> lakeStreamOptions() {
        Map<String, String> options = new HashMap<>();
        options.put(LakeStreamOptions.STORE.key(), "fluss");
        options.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "bootstrap.servers",
                bootstrapServers());
        return options;
    }

    @Override
    public void close() throws Exception {
        try {
            fluss.close();
        } finally {
            // the extension deletes its directory only when empty, which it never is
            TemporaryDirectories.delete(dataDir);
        }
    }
}
