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

package io.lakestream.benchmarks;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.util.MiniClusterWithClientResource;

/**
 * One Flink MiniCluster for the whole run, shared by every job of both sides, so that no statement
 * pays a cluster start; {@code StreamExecutionEnvironment.getExecutionEnvironment()} runs jobs on
 * it while it is open.
 */
final class LocalFlinkCluster implements AutoCloseable {

    /**
     * Enough for the freshness run: a writer job and two streaming readers of parallelism 2 at
     * once.
     */
    static final int SLOTS = 8;

    private final MiniClusterWithClientResource cluster;

    private LocalFlinkCluster(MiniClusterWithClientResource cluster) {
        this.cluster = cluster;
    }

    static LocalFlinkCluster start() throws Exception {
        Configuration conf = new Configuration();
        // batch sorts and Paimon's writers get room, as on a TaskManager of a real cluster
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.ofMebiBytes(512));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(128));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(128));
        MiniClusterWithClientResource cluster =
                new MiniClusterWithClientResource(
                        new MiniClusterResourceConfiguration.Builder()
                                .setNumberTaskManagers(1)
                                .setNumberSlotsPerTaskManager(SLOTS)
                                .setConfiguration(conf)
                                .build());
        cluster.before();
        return new LocalFlinkCluster(cluster);
    }

    @Override
    public void close() {
        cluster.after();
    }
}
