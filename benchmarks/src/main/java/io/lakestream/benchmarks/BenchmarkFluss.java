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

import io.lakestream.examples.LocalFlussCluster;
import io.lakestream.examples.TemporaryDirectories;
import io.lakestream.local.cluster.FlussProcessCluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Fluss cluster of a run: in this JVM (the default), or with {@code -Dbench.fluss=processes} as
 * OS processes of their own (ZooKeeper, a coordinator, a tablet server), which {@code
 * -Dbench.pin=true} then pins to the last core with {@code taskset} while this JVM (Flink, both
 * writers, both readers) keeps the others: the server's work is then off the writers' cores, and a
 * pair says what the store's client costs on the writer's side.
 */
final class BenchmarkFluss implements AutoCloseable {

    private final LocalFlussCluster inProcess;
    private final FlussProcessCluster processes;
    private final Path processDir;

    private BenchmarkFluss(
            LocalFlussCluster inProcess, FlussProcessCluster processes, Path processDir) {
        this.inProcess = inProcess;
        this.processes = processes;
        this.processDir = processDir;
    }

    /** Starts the cluster {@code -Dbench.fluss} names, pinned apart when {@code -Dbench.pin}. */
    static BenchmarkFluss start() throws Exception {
        String mode = System.getProperty("bench.fluss", "in-process").trim();
        boolean pin = Boolean.parseBoolean(System.getProperty("bench.pin", "false").trim());
        if (mode.isEmpty() || mode.equals("in-process")) {
            if (pin) {
                throw new IllegalArgumentException(
                        "-Dbench.pin=true needs -Dbench.fluss=processes: an in-process cluster "
                                + "shares this JVM's threads");
            }
            return new BenchmarkFluss(LocalFlussCluster.start(), null, null);
        }
        if (!mode.equals("processes")) {
            throw new IllegalArgumentException(
                    "-Dbench.fluss must be 'in-process' or 'processes', not '" + mode + "'");
        }
        Path dir = Files.createTempDirectory("lake-stream-benchmark-fluss");
        FlussProcessCluster cluster = FlussProcessCluster.start(dir);
        BenchmarkFluss fluss = new BenchmarkFluss(null, cluster, dir);
        if (pin) {
            try {
                pinApart();
            } catch (Exception e) {
                fluss.close();
                throw e;
            }
        }
        return fluss;
    }

    /**
     * The servers (this JVM's child processes) on the last core, this JVM on the others. {@code
     * taskset -a} sets every thread that exists; threads started later inherit their creator's set.
     */
    private static void pinApart() throws IOException, InterruptedException {
        int cores = Runtime.getRuntime().availableProcessors();
        if (cores < 2) {
            throw new IllegalStateException("-Dbench.pin=true needs two cores or more");
        }
        String serverCore = String.valueOf(cores - 1);
        String ownCores = cores == 2 ? "0" : "0-" + (cores - 2);
        List<Long> servers = new ArrayList<>();
        ProcessHandle.current().children().forEach(child -> servers.add(child.pid()));
        for (long pid : servers) {
            taskset(serverCore, pid);
        }
        taskset(ownCores, ProcessHandle.current().pid());
        System.out.printf(
                "Pinned the Fluss servers (pids %s) to core %s and this JVM to cores %s.%n",
                servers, serverCore, ownCores);
    }

    private static void taskset(String cores, long pid) throws IOException, InterruptedException {
        Process process =
                new ProcessBuilder("taskset", "-a", "-p", "-c", cores, String.valueOf(pid))
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(
                    "taskset could not pin process " + pid + " to cores " + cores);
        }
    }

    String bootstrapServers() {
        return inProcess != null ? inProcess.bootstrapServers() : processes.bootstrapServers();
    }

    @Override
    public void close() throws Exception {
        if (inProcess != null) {
            inProcess.close();
        } else {
            try {
                processes.close();
            } finally {
                TemporaryDirectories.delete(processDir);
            }
        }
    }
}
