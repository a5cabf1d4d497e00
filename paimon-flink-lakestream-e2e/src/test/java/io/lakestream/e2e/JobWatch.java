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

package io.lakestream.e2e;

import io.lakestream.local.cluster.FlinkProcessCluster;
import io.lakestream.testutils.Await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Samples a job's health through the REST API every 250 ms in a thread of its own, from its start
 * until closed, so that the time it needs to recover from a fault can be read off afterwards: from
 * the fault to the first moment it runs with all its tasks again after it stopped doing so.
 */
final class JobWatch implements AutoCloseable {

    private static final long SAMPLE_MILLIS = 250;

    private final FlinkProcessCluster cluster;
    private final String jobId;
    private final List<long[]> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;

    JobWatch(FlinkProcessCluster cluster, String jobId) {
        this.cluster = cluster;
        this.jobId = jobId;
        this.thread = new Thread(this::sample, "watch job " + jobId);
        thread.setDaemon(true);
        thread.start();
    }

    private void sample() {
        while (!stopped) {
            long running;
            try {
                running = cluster.jobFullyRunning(jobId) ? 1 : 0;
            } catch (Exception e) {
                running = 0;
            }
            synchronized (samples) {
                samples.add(new long[] {System.nanoTime(), running});
            }
            try {
                Thread.sleep(SAMPLE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * The time from {@code faultNanos} ({@link System#nanoTime()}) until the job ran with all its
     * tasks again, after the fault made it stop; null if it has not stopped, or not run again yet.
     */
    Duration recoveredAfter(long faultNanos) {
        boolean down = false;
        synchronized (samples) {
            for (long[] sample : samples) {
                if (sample[0] < faultNanos) {
                    continue;
                }
                if (sample[1] == 0) {
                    down = true;
                } else if (down) {
                    return Duration.ofNanos(sample[0] - faultNanos);
                }
            }
        }
        return null;
    }

    /** Waits up to {@code timeout} for {@link #recoveredAfter} and returns it, or null. */
    Duration awaitRecovered(long faultNanos, Duration timeout) throws Exception {
        return Await.poll(
                () -> recoveredAfter(faultNanos),
                recovered -> recovered != null,
                timeout,
                Duration.ofMillis(SAMPLE_MILLIS));
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join();
    }
}
