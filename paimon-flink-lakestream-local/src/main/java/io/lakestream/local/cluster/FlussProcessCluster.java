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

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.cluster.ServerNode;
import org.apache.fluss.cluster.ServerType;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.metadata.TablePath;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Fluss cluster of OS processes: ZooKeeper, a coordinator server and one or more tablet servers,
 * each a {@link ChildJvm} with its configuration, data and logs under one directory. Unlike the
 * in-process cluster of the other modules' tests, a tablet server can be killed with SIGKILL and
 * restarted on the same data directory and port, as a crashed server would be.
 */
public final class FlussProcessCluster implements AutoCloseable {

    private static final String HOST = LocalPorts.HOST;

    /** Generous for two busy cores; an idle machine starts the cluster in about ten seconds. */
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

    /**
     * Fluss's servers take two to four seconds to stop (Netty's quiet period, controlled shutdown).
     */
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);

    /** The tablet server of the methods that take no server id. */
    private static final int TABLET_SERVER_ID = 0;

    /**
     * The tablet server's ZooKeeper session timeout: how long its registration outlives it after a
     * SIGKILL. A restarted server cannot register before that (Fluss retries every 3 s).
     */
    private static final String TABLET_SERVER_SESSION_TIMEOUT = "5 s";

    private final Path dir;
    private final Path logDir;
    private final int zooKeeperPort;
    private final int coordinatorPort;
    private final int[] tabletServerPorts;
    private final int replicationFactor;

    private ChildJvm zooKeeper;
    private ChildJvm coordinator;
    private final ChildJvm[] tabletServers;
    private final int[] tabletServerStarts;
    private int outages;
    private Connection connection;
    private Admin admin;

    private FlussProcessCluster(Path dir, int numTabletServers, int replicationFactor)
            throws IOException {
        this.dir = dir;
        this.logDir = dir.resolve("logs");
        this.zooKeeperPort = LocalPorts.free();
        this.coordinatorPort = LocalPorts.free();
        this.tabletServerPorts = new int[numTabletServers];
        for (int id = 0; id < numTabletServers; id++) {
            tabletServerPorts[id] = LocalPorts.free();
        }
        this.tabletServers = new ChildJvm[numTabletServers];
        this.tabletServerStarts = new int[numTabletServers];
        this.replicationFactor = replicationFactor;
    }

    /** Starts the cluster in {@code dir} and returns once the tablet server has registered. */
    public static FlussProcessCluster start(Path dir) throws Exception {
        return start(dir, 1, 1);
    }

    /**
     * Starts the cluster with {@code numTabletServers} tablet servers (ids 0, 1, ...) whose tables
     * have {@code replicationFactor} replicas unless they set their own (Fluss's {@code
     * default.replication.factor}), and returns once every tablet server has registered.
     */
    public static FlussProcessCluster start(Path dir, int numTabletServers, int replicationFactor)
            throws Exception {
        FlussProcessCluster cluster =
                new FlussProcessCluster(dir, numTabletServers, replicationFactor);
        try {
            cluster.startZooKeeper();
            cluster.startCoordinator();
            for (int id = 0; id < numTabletServers; id++) {
                cluster.startTabletServer(id);
            }
            cluster.awaitTabletServers();
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
        zooKeeper =
                ZooKeeperProcess.start(dir.resolve("zookeeper"), logDir, "zookeeper", zooKeeperPort)
                        .process();
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
        coordinator.awaitListening(coordinatorPort, STARTUP_TIMEOUT);
    }

    /** Starts tablet server 0, on the data directory and port of any previous one. */
    public void startTabletServer() throws Exception {
        startTabletServer(TABLET_SERVER_ID);
    }

    /**
     * The sum of the high watermarks that tablet server {@code id} last checkpointed for the
     * buckets of partitioned tables (Fluss writes them to its data directory every {@code
     * log.replica.high-watermark.checkpoint-interval}, 5 s by default).
     */
    public long checkpointedHighWatermarksOfPartitionedTables(int id) throws IOException {
        Path file = dir.resolve("tablet-server-" + id).resolve("data/high-watermark-checkpoint");
        if (!Files.exists(file)) {
            return 0;
        }
        long sum = 0;
        // lines: a version, a count, then "tableId [partitionId] bucket highWatermark"
        for (String line : Files.readAllLines(file)) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length == 4) {
                sum += Long.parseLong(fields[3]);
            }
        }
        return sum;
    }

    /** Starts tablet server {@code id}, on the data directory and port of any previous one. */
    public void startTabletServer(int id) throws Exception {
        String name = "tablet-server-" + id;
        Path serverDir = dir.resolve(name);
        Path confDir = serverDir.resolve("conf");
        List<String> serverOptions = new ArrayList<>();
        serverOptions.add("tablet-server.id: " + id);
        serverOptions.add("data.dir: " + serverDir.resolve("data"));
        serverOptions.add("zookeeper.client.session-timeout: " + TABLET_SERVER_SESSION_TIMEOUT);
        // the only tablet server has no one to hand its leaderships to on shutdown, and the tests
        // stop all of them at once
        serverOptions.add("tablet-server.controlled-shutdown.max-retries: 1");
        writeServerYaml(confDir, tabletServerPorts[id], serverOptions);
        tabletServerStarts[id]++;
        tabletServers[id] =
                ChildJvm.start(
                        tabletServerStarts[id] == 1
                                ? name
                                : name + "-start-" + tabletServerStarts[id],
                        logDir,
                        serverJvmOptions(),
                        "org.apache.fluss.server.tablet.TabletServer",
                        List.of("--configDir", confDir.toString()));
    }

    /** Kills tablet server 0 with SIGKILL: no shutdown hook, no controlled shutdown. */
    public void killTabletServer() throws InterruptedException {
        killTabletServer(TABLET_SERVER_ID);
    }

    /** Kills tablet server {@code id} with SIGKILL: no shutdown hook, no controlled shutdown. */
    public void killTabletServer(int id) throws InterruptedException {
        tabletServers[id].kill();
    }

    public ChildJvm tabletServer() {
        return tabletServer(TABLET_SERVER_ID);
    }

    public ChildJvm tabletServer(int id) {
        return tabletServers[id];
    }

    /**
     * Waits until the coordinator reports every tablet server as live; see {@link
     * #awaitTabletServers}.
     */
    public void awaitTabletServer() throws Exception {
        awaitTabletServers();
    }

    /**
     * Waits until the coordinator reports every tablet server as live. Fluss's client asks a tablet
     * server for the cluster's metadata when it knows one, so this cannot see a tablet server die.
     */
    public void awaitTabletServers() throws Exception {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        Exception lastError = null;
        while (System.nanoTime() < deadline) {
            checkAlive(zooKeeper, coordinator);
            checkAlive(tabletServers);
            try {
                List<ServerNode> nodes = admin().getServerNodes().get(5, TimeUnit.SECONDS);
                if (nodes.stream().filter(n -> n.serverType() == ServerType.TABLET_SERVER).count()
                        == tabletServers.length) {
                    return;
                }
            } catch (Exception e) {
                lastError = e;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(
                String.format(
                        "The Fluss cluster did not report %d live tablet servers within %s; logs "
                                + "in %s",
                        tabletServers.length, STARTUP_TIMEOUT, logDir),
                lastError);
    }

    /** ZooKeeper's address, {@code host:port}: where Fluss keeps its servers' registrations. */
    public String zooKeeperAddress() {
        return HOST + ":" + zooKeeperPort;
    }

    /** How long {@link #start} waits for the servers; also a bound for waits on them. */
    public static Duration startupTimeout() {
        return STARTUP_TIMEOUT;
    }

    /**
     * Stops the whole cluster as an outage would: every tablet server, then the coordinator, then
     * ZooKeeper, each asked to exit and killed if it has not within the stop grace (as {@link
     * #close} does). Their data directories (each tablet server's {@code data.dir}, ZooKeeper's
     * {@code dataDir}, the remote data directory) and ports are kept for {@link #startAll}.
     */
    public void stopAll() throws Exception {
        // the cluster's own client would retry against the stopped servers; a new one is made
        closeAdmin();
        // at once: a tablet server that stops last has nobody to hand its leaderships to anyway
        ChildJvm.stopAll(Arrays.asList(tabletServers), STOP_GRACE);
        coordinator.stop(STOP_GRACE);
        zooKeeper.stop(STOP_GRACE);
    }

    /**
     * Starts the cluster that {@link #stopAll} stopped again, on the same ports and data
     * directories, and returns once every tablet server has registered. The logs of the stopped
     * ZooKeeper and coordinator are kept under names of their own.
     */
    public void startAll() throws Exception {
        outages++;
        keepLogs(zooKeeper);
        startZooKeeper();
        keepLogs(coordinator);
        startCoordinator();
        for (int id = 0; id < tabletServers.length; id++) {
            startTabletServer(id);
        }
        awaitTabletServers();
    }

    /**
     * Moves the log files of a stopped process aside, so that the process started again under the
     * same name does not overwrite them.
     */
    private void keepLogs(ChildJvm stopped) throws IOException {
        for (String suffix : List.of(".log", ".out")) {
            Path file = logDir.resolve(stopped.name() + suffix);
            if (Files.exists(file)) {
                Files.move(
                        file,
                        logDir.resolve(stopped.name() + "-until-outage-" + outages + suffix),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /**
     * The sum of the end offsets (Fluss's latest offsets) of all buckets of the unpartitioned Fluss
     * table {@code database.table}: how many records the store holds for it.
     */
    public long endOffsets(String database, String table) throws Exception {
        TablePath path = TablePath.of(database, table);
        int buckets = admin().getTableInfo(path).get(30, TimeUnit.SECONDS).getNumBuckets();
        List<Integer> bucketIds = new ArrayList<>();
        for (int bucket = 0; bucket < buckets; bucket++) {
            bucketIds.add(bucket);
        }
        long sum = 0;
        for (long offset :
                admin().listOffsets(path, bucketIds, new OffsetSpec.LatestSpec())
                        .all()
                        .get(30, TimeUnit.SECONDS)
                        .values()) {
            sum += offset;
        }
        return sum;
    }

    private void closeAdmin() throws Exception {
        if (connection != null) {
            Connection closing = connection;
            connection = null;
            admin = null;
            closing.close();
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
        lines.add("default.replication.factor: " + replicationFactor);
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

    private static void checkAlive(ChildJvm... processes) {
        for (ChildJvm process : processes) {
            process.checkAlive();
        }
    }

    /**
     * Stops the tablet servers (together), the coordinator and ZooKeeper, in this order so that no
     * server waits on one already gone; each is killed if it has not exited after a short grace
     * period.
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
        // the tablet servers together, then the coordinator, then ZooKeeper
        try {
            ChildJvm.stopInStages(
                    List.of(
                            Arrays.asList(tabletServers),
                            Collections.singletonList(coordinator),
                            Collections.singletonList(zooKeeper)),
                    STOP_GRACE);
        } catch (Exception e) {
            if (error == null) {
                error = e;
            } else {
                error.addSuppressed(e);
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
