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

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.test.util.MiniClusterWithClientResource;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One Flink MiniCluster (one TaskManager, four slots) shared by every test class of the module that
 * registers this extension, started by the first and closed when the whole run ends; {@code
 * StreamExecutionEnvironment.getExecutionEnvironment()} runs jobs on it.
 *
 * <p>It restarts whole jobs on a failure (failover strategy {@code full}), so that a failure is
 * recorded as the job's failure; the lake-stream sink's writers and committer form one failover
 * region anyway.
 */
public final class SharedMiniCluster implements BeforeAllCallback {

    public static final int SLOTS = 4;

    private static final String KEY = SharedMiniCluster.class.getName();

    private static MiniClusterWithClientResource cluster;

    /**
     * The metrics of the running jobs, for tests that read them. It keeps none of jobs that ended:
     * retained metrics hold on to every operator's gauges and what they reference, and over a run
     * of the module that filled the test JVM's heap.
     */
    private static InMemoryReporter reporter;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        synchronized (SharedMiniCluster.class) {
            if (cluster == null) {
                Configuration conf = new Configuration();
                conf.set(JobManagerOptions.EXECUTION_FAILOVER_STRATEGY, "full");
                InMemoryReporter metrics = InMemoryReporter.create();
                metrics.addToConfiguration(conf);
                MiniClusterWithClientResource started =
                        new MiniClusterWithClientResource(
                                new MiniClusterResourceConfiguration.Builder()
                                        .setNumberTaskManagers(1)
                                        .setNumberSlotsPerTaskManager(SLOTS)
                                        .setConfiguration(conf)
                                        .build());
                started.before();
                cluster = started;
                reporter = metrics;
                context.getRoot()
                        .getStore(ExtensionContext.Namespace.GLOBAL)
                        .put(KEY, (ExtensionContext.Store.CloseableResource) this::stop);
            } else {
                // a class that failed may have left its jobs running: they would hold the slots
                // that this class's jobs wait for
                cluster.cancelAllJobs();
                // a class of Flink's connector test framework runs on a MiniCluster of its own
                // and, closing it, unsets the context environment: jobs would then run on a new
                // local cluster each, out of this one's reach (its metrics, its job clients)
                TestStreamEnvironment.setAsContext(cluster.getMiniCluster(), SLOTS);
            }
        }
    }

    /**
     * Cancels every job of the shared MiniCluster and waits until they have ended: for the
     * {@code @AfterEach} of a class whose tests share no job, so that a failed test's jobs do not
     * hold the slots of the next.
     */
    public static void cancelAllJobs() {
        synchronized (SharedMiniCluster.class) {
            miniCluster();
            cluster.cancelAllJobs();
        }
    }

    private void stop() {
        synchronized (SharedMiniCluster.class) {
            cluster.after();
            cluster = null;
            reporter = null;
        }
    }

    /** The metrics of the shared MiniCluster's running jobs. */
    public static InMemoryReporter metrics() {
        miniCluster();
        return reporter;
    }

    public static MiniCluster miniCluster() {
        if (cluster == null) {
            throw new IllegalStateException(
                    "Register SharedMiniCluster with @ExtendWith before using it.");
        }
        return cluster.getMiniCluster();
    }
}
