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

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.cluster.ServerNode;
import org.apache.fluss.cluster.ServerType;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.server.zk.NOPErrorHandler;
import org.apache.fluss.server.zk.ZooKeeperClient;
import org.apache.fluss.server.zk.ZooKeeperTestUtils;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Fluss cluster of three OS processes: ZooKeeper, a coordinator server and one tablet server,
 * each a {@link ChildJvm} with its configuration, data and logs under one directory. Unlike the
 * in-process cluster of the other modules' tests, its tablet server can be killed with SIGKILL and
 * restarted on the same data directory and port, as a crashed server would be.
 */
public final class FlussProcessCluster implements AutoCloseable {

    private static final String HOST = "127.0.0.1";

    /** Generous for two busy cores; an idle machine starts the cluster in about ten seconds. */
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Fluss's servers take two to four seconds to stop (Netty's quiet period, controlled shutdown).
     */
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);

    private static final int TABLET_SERVER_ID = 0;

    /**
     * ZooKeeper's tick (ms). Short, because a killed tablet server's registration lives until its
     * session expires, and sessions cannot be shorter than two ticks.
     */
    private static final int ZOOKEEPER_TICK_MILLIS = 500;

    /**
     * The tablet server's ZooKeeper session timeout: how long its registration outlives it after a
     * SIGKILL. A restarted server cannot register before that (Fluss retries every 3 s).
     */
    private static final String TABLET_SERVER_SESSION_TIMEOUT = "5 s";

    private final Path dir;
    private final Path logDir;
    private final int zooKeeperPort;
    private final int coordinatorPort;
    private final int tabletServerPort;

    private ChildJvm zooKeeper;
    private ChildJvm coordinator;
    private ChildJvm tabletServer;
    private int tabletServerStarts;
    private Connection connection;
    private Admin admin;

    private FlussProcessCluster(Path dir) throws IOException {
        this.dir = dir;
        this.logDir = dir.resolve("logs");
        this.zooKeeperPort = freePort();
        this.coordinatorPort = freePort();
        this.tabletServerPort = freePort();
    }

    /** Starts the cluster in {@code dir} and returns once the tablet server has registered. */
    public static FlussProcessCluster start(Path dir) throws Exception {
        FlussProcessCluster cluster = new FlussProcessCluster(dir);
        try {
            cluster.startZooKeeper();
            cluster.startCoordinator();
            cluster.startTabletServer();
            cluster.awaitTabletServer();
            return cluster;
        } catch (Throwable t) {
            try {
                cluster.close();
            } catch (Exception e) {
                t.addSuppressed(e);
            }
            throw t;
        }
    }

    public String bootstrapServers() {
        return HOST + ":" + coordinatorPort;
    }

    /** Where the processes' logs are: named in failure messages. */
    public Path logDir() {
        return logDir;
    }

    private void startZooKeeper() throws Exception {
        Path zooCfg = dir.resolve("zookeeper").resolve("zoo.cfg");
        write(
                zooCfg,
                "tickTime=" + ZOOKEEPER_TICK_MILLIS,
                "dataDir=" + dir.resolve("zookeeper").resolve("data"),
                "clientPort=" + zooKeeperPort,
                "clientPortAddress=" + HOST,
                // the admin server would take port 8080
                "admin.enableServer=false");
        zooKeeper =
                ChildJvm.start(
                        "zookeeper",
                        logDir,
                        List.of("-Xmx128m", "-XX:+UseSerialGC"),
                        "org.apache.zookeeper.server.ZooKeeperServerMain",
                        List.of(zooCfg.toString()));
        awaitPort(zooKeeper, zooKeeperPort);
    }

    private void startCoordinator() throws Exception {
        Path confDir = dir.resolve("coordinator").resolve("conf");
        writeServerYaml(confDir, coordinatorPort, Collections.emptyList());
        coordinator =
                ChildJvm.start(
                        "coordinator",
                        logDir,
                        serverJvmOptions(),
                        "org.apache.fluss.server.coordinator.CoordinatorServer",
                        List.of("--configDir", confDir.toString()));
        awaitPort(coordinator, coordinatorPort);
    }

    /** Starts the tablet server, on the data directory and port of any previous one. */
    public void startTabletServer() throws Exception {
        String name = "tablet-server-" + TABLET_SERVER_ID;
        Path serverDir = dir.resolve(name);
        Path confDir = serverDir.resolve("conf");
        writeServerYaml(
                confDir,
                tabletServerPort,
                List.of(
                        "tablet-server.id: " + TABLET_SERVER_ID,
                        "data.dir: " + serverDir.resolve("data"),
                        "zookeeper.client.session-timeout: " + TABLET_SERVER_SESSION_TIMEOUT,
                        // the only tablet server has no one to hand its leaderships to on shutdown
                        "tablet-server.controlled-shutdown.max-retries: 1"));
        tabletServerStarts++;
        tabletServer =
                ChildJvm.start(
                        tabletServerStarts == 1 ? name : name + "-start-" + tabletServerStarts,
                        logDir,
                        serverJvmOptions(),
                        "org.apache.fluss.server.tablet.TabletServer",
                        List.of("--configDir", confDir.toString()));
    }

    /** Kills the tablet server with SIGKILL: no shutdown hook, no controlled shutdown. */
    public void killTabletServer() throws InterruptedException {
        tabletServer.kill();
    }

    public ChildJvm tabletServer() {
        return tabletServer;
    }

    /**
     * Waits until the coordinator reports the tablet server as live. Fluss's client asks a tablet
     * server for the cluster's metadata when it knows one, so this cannot see a tablet server die.
     */
    public void awaitTabletServer() throws Exception {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        Exception lastError = null;
        while (System.nanoTime() < deadline) {
            checkAlive(zooKeeper, coordinator, tabletServer);
            try {
                List<ServerNode> nodes = admin().getServerNodes().get(5, TimeUnit.SECONDS);
                if (nodes.stream().anyMatch(n -> n.serverType() == ServerType.TABLET_SERVER)) {
                    return;
                }
            } catch (Exception e) {
                lastError = e;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(
                String.format(
                        "The Fluss cluster did not report a live tablet server within %s; logs in "
                                + "%s",
                        STARTUP_TIMEOUT, logDir),
                lastError);
    }

    /**
     * Waits until the killed tablet server's registration is gone from ZooKeeper, which is when its
     * session expires and the coordinator takes it for dead. Asked of ZooKeeper through Fluss's own
     * client of it, which knows where Fluss keeps the registrations.
     */
    public void awaitTabletServerUnregistered() throws Exception {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        try (ZooKeeperClient zooKeeperClient =
                ZooKeeperTestUtils.createZooKeeperClient(
                        HOST + ":" + zooKeeperPort, NOPErrorHandler.INSTANCE)) {
            while (zooKeeperClient.getTabletServer(TABLET_SERVER_ID).isPresent()) {
                checkAlive(zooKeeper, coordinator);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            String.format(
                                    "Tablet server %d was still registered in ZooKeeper %s after "
                                            + "it was killed; logs in %s",
                                    TABLET_SERVER_ID, STARTUP_TIMEOUT, logDir));
                }
                Thread.sleep(200);
            }
        }
    }

    private Admin admin() {
        if (admin == null) {
            Configuration conf = new Configuration();
            conf.setString(ConfigOptions.BOOTSTRAP_SERVERS.key(), bootstrapServers());
            connection = ConnectionFactory.createConnection(conf);
            admin = connection.getAdmin();
        }
        return admin;
    }

    private List<String> serverJvmOptions() {
        return List.of("-Xmx512m", "-XX:+UseSerialGC");
    }

    private void writeServerYaml(Path confDir, int port, List<String> serverOptions)
            throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("zookeeper.address: " + HOST + ":" + zooKeeperPort);
        lines.add("bind.listeners: FLUSS://" + HOST + ":" + port);
        lines.add("remote.data.dir: " + dir.resolve("remote-data").toUri());
        lines.add("default.replication.factor: 1");
        // fewer threads: five JVMs share two cores
        lines.add("netty.server.num-network-threads: 1");
        lines.add("netty.server.num-worker-threads: 3");
        lines.addAll(serverOptions);
        write(confDir.resolve("server.yaml"), lines.toArray(new String[0]));
    }

    private static void write(Path file, String... lines) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, Arrays.asList(lines), StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        }
    }

    private void awaitPort(ChildJvm process, int port) throws InterruptedException {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            checkAlive(process);
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(HOST, port), 500);
                return;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException(
                String.format(
                        "%s did not listen on port %d within %s:%n%s",
                        process, port, STARTUP_TIMEOUT, process.logTail(30)));
    }

    private static void checkAlive(ChildJvm... processes) {
        for (ChildJvm process : processes) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        String.format("%s exited unexpectedly:%n%s", process, process.logTail(30)));
            }
        }
    }

    /**
     * Stops the tablet server, the coordinator and ZooKeeper, in this order so that no server waits
     * on one already gone; each is killed if it has not exited after a short grace period.
     */
    @Override
    public void close() throws Exception {
        Exception error = null;
        if (connection != null) {
            try {
                connection.close();
            } catch (Exception e) {
                error = e;
            }
        }
        for (ChildJvm process : Arrays.asList(tabletServer, coordinator, zooKeeper)) {
            if (process != null) {
                try {
                    process.stop(STOP_GRACE);
                } catch (Exception e) {
                    if (error == null) {
                        error = e;
                    } else {
                        error.addSuppressed(e);
                    }
                }
            }
        }
        if (error != null) {
            throw error;
        }
    }

    @Override
    public String toString() {
        return "Fluss cluster at " + bootstrapServers() + " (logs in " + logDir + ")";
    }
}
