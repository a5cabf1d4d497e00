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

package io.lakestream.local.cluster;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A standalone ZooKeeper server ({@code ZooKeeperServerMain}) as a {@link ChildJvm}, with its
 * {@code zoo.cfg} and data in one directory. The Fluss cluster has one; a Flink cluster with
 * ZooKeeper high availability gets one of its own, so that stopping the Fluss cluster does not take
 * Flink's leader election with it.
 */
public final class ZooKeeperProcess implements AutoCloseable {

    private static final String HOST = LocalPorts.HOST;

    /**
     * ZooKeeper's tick (ms). Short, because the registration of a killed server lives until its
     * session expires, and sessions can last from two to twenty ticks: 1 to 10 s.
     */
    public static final int TICK_MILLIS = 500;

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

    private static final Duration STOP_GRACE = Duration.ofSeconds(10);

    private final ChildJvm process;
    private final int port;

    private ZooKeeperProcess(ChildJvm process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts ZooKeeper on a free port with its configuration and data in {@code dir} and its logs,
     * named {@code name}, in {@code logDir}; returns once it accepts connections.
     */
    public static ZooKeeperProcess start(Path dir, Path logDir, String name) throws Exception {
        return start(dir, logDir, name, LocalPorts.free());
    }

    /** Starts ZooKeeper on {@code port}; see {@link #start(Path, Path, String)}. */
    public static ZooKeeperProcess start(Path dir, Path logDir, String name, int port)
            throws Exception {
        Path zooCfg = dir.resolve("zoo.cfg");
        Files.createDirectories(dir);
        Files.write(
                zooCfg,
                List.of(
                        "tickTime=" + TICK_MILLIS,
                        "dataDir=" + dir.resolve("data"),
                        "clientPort=" + port,
                        "clientPortAddress=" + HOST,
                        // the admin server would take port 8080
                        "admin.enableServer=false"),
                StandardCharsets.UTF_8);
        ChildJvm process =
                ChildJvm.start(
                        name,
                        logDir,
                        List.of("-Xmx128m", "-XX:+UseSerialGC"),
                        "org.apache.zookeeper.server.ZooKeeperServerMain",
                        List.of(zooCfg.toString()));
        ZooKeeperProcess zooKeeper = new ZooKeeperProcess(process, port);
        try {
            process.awaitListening(port, STARTUP_TIMEOUT);
        } catch (Throwable t) {
            process.stop(Duration.ZERO);
            throw t;
        }
        return zooKeeper;
    }

    /** The ZooKeeper connect string of this server, {@code host:port}. */
    public String connectString() {
        return HOST + ":" + port;
    }

    public ChildJvm process() {
        return process;
    }

    /** Stops the server: SIGTERM, and SIGKILL if it has not exited after a grace period. */
    @Override
    public void close() throws InterruptedException {
        process.stop(STOP_GRACE);
    }

    @Override
    public String toString() {
        return "ZooKeeper at " + connectString() + " (" + process + ")";
    }
}
