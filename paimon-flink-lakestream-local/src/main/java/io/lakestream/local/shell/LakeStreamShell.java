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

package io.lakestream.local.shell;

import io.lakestream.local.cluster.ChildJvm;
import io.lakestream.local.cluster.FlinkProcessCluster;
import io.lakestream.local.cluster.FlinkSqlClient;
import io.lakestream.local.cluster.FlussProcessCluster;

import org.apache.flink.util.FileUtils;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An interactive lake-stream SQL shell on this machine: creates a sample Paimon table and runs
 * Flink's SQL client on the terminal with the {@code paimon-lakestream} catalog in use and a banner
 * of what to type. With the {@code fluss} store (the default) it first starts a Fluss cluster
 * (ZooKeeper, a coordinator, a tablet server) and a Flink session cluster (a JobManager, a
 * TaskManager) as processes of this machine; with {@code --store memory} it starts neither: the SQL
 * client runs with a Flink cluster in its own process, the one process the {@code memory} store
 * serves. When the client exits, what the shell started stops and its directory, with the
 * warehouse, is deleted.
 *
 * <p>Run by {@code bin/lakestream-sql-shell}; see the README.
 */
public final class LakeStreamShell {

    private static final String USAGE =
            "Usage: bin/lakestream-sql-shell [--store fluss|memory]%n"
                    + "  --store fluss   (the default) starts local Fluss and Flink clusters as"
                    + " processes and Flink's SQL client on them%n"
                    + "  --store memory  starts no cluster: Flink's SQL client runs with a Flink"
                    + " cluster in its own process and the%n"
                    + "                  process-local 'memory' store keeps the tail%n"
                    + "Exiting the client stops what the shell started.%n";

    private final Path dir;
    private final PrintStream out;
    private final ShellProgress progress;

    private LakeStreamShell(Path dir, PrintStream out) {
        this.dir = dir;
        this.out = out;
        this.progress = new ShellProgress(out);
    }

    public static void main(String[] args) throws Exception {
        String store = store(args);
        Path dir = Files.createTempDirectory("lakestream-shell-");
        // before anything logs: the launcher's log goes to a file, off the client's terminal
        System.setProperty("lakestream.shell.log", dir.resolve("shell.log").toString());
        System.setProperty("log4j2.configurationFile", "log4j2-shell.properties");
        LakeStreamShell shell = new LakeStreamShell(dir, System.out);
        System.exit(store.equals("memory") ? shell.runOnMemory() : shell.runOnFluss());
    }

    /** The store the arguments name: {@code fluss} without any; exits with the usage otherwise. */
    private static String store(String[] args) {
        if (args.length == 0) {
            return "fluss";
        }
        if (args.length == 2
                && args[0].equals("--store")
                && (args[1].equals("fluss") || args[1].equals("memory"))) {
            return args[1];
        }
        boolean help = args[0].equals("--help") || args[0].equals("-h");
        (help ? System.out : System.err).printf(USAGE);
        if (!help) {
            System.err.println("Not understood: " + String.join(" ", args));
        }
        System.exit(help ? 0 : 2);
        throw new AssertionError("exited");
    }

    /** Runs the shell on local Fluss and Flink clusters; returns the SQL client's exit code. */
    private int runOnFluss() throws Exception {
        Thread cleanUp = startCleanUp();
        FlussProcessCluster fluss = null;
        FlinkProcessCluster flink = null;
        try {
            progress.start("Starting Fluss: ZooKeeper, a coordinator, a tablet server");
            fluss = FlussProcessCluster.start(dir.resolve("fluss"));
            progress.done(fluss.bootstrapServers());

            progress.start("Starting Flink: a JobManager, a TaskManager");
            // slots, and memory, for a streaming INSERT, a streaming SELECT and batch queries at
            // once
            flink =
                    FlinkProcessCluster.start(
                            dir.resolve("flink"),
                            1,
                            Map.of(
                                    "taskmanager.numberOfTaskSlots", "4",
                                    "taskmanager.memory.process.size", "1536m"));
            progress.done(
                    "http://" + flink.restAddress() + ":" + flink.restPort() + " (Flink's web UI)");
            return runClient(
                    FlinkSqlClient.of(flink, dir.resolve("sql-client")),
                    Map.of("lake-stream.fluss.bootstrap.servers", fluss.bootstrapServers()),
                    "stops Flink and Fluss",
                    flink.logDir() + " and fluss/logs there");
        } finally {
            progress.start("Stopping Flink and Fluss");
            try {
                stop(flink, fluss);
            } finally {
                FileUtils.deleteDirectoryQuietly(dir.toFile());
            }
            progress.done("removed " + dir);
            Runtime.getRuntime().removeShutdownHook(cleanUp);
        }
    }

    /**
     * Runs the shell on the {@code memory} store: no cluster to start, the client's JVM holds the
     * Flink cluster that runs its jobs. Returns the SQL client's exit code.
     */
    private int runOnMemory() throws Exception {
        Thread cleanUp = startCleanUp();
        try {
            Path clientDir = dir.resolve("sql-client");
            FlinkSqlClient sql =
                    FlinkSqlClient.withOwnCluster(
                            clientDir,
                            Map.of(
                                    "execution.checkpointing.dir",
                                    dir.resolve("checkpoints").toUri().toString(),
                                    "io.tmp.dirs",
                                    dir.resolve("tmp").toString()));
            return runClient(
                    sql,
                    Map.of("lake-stream.store", "memory"),
                    "stops the client's Flink cluster",
                    sql.logDir().toString());
        } finally {
            progress.start("Stopping");
            FileUtils.deleteDirectoryQuietly(dir.toFile());
            progress.done("removed " + dir);
            Runtime.getRuntime().removeShutdownHook(cleanUp);
        }
    }

    /**
     * Detaches the servers to come from the terminal and registers the clean-up of a Ctrl-C before
     * the client runs; returns the hook, to be removed once the shell has cleaned up itself.
     */
    private Thread startCleanUp() {
        // the Ctrl-C that a person types into the client must not stop the clusters under it
        ChildJvm.detachFromTerminal();
        // a Ctrl-C before the client runs stops the shell: what it started goes with it
        Thread cleanUp = new Thread(this::killAndDelete, "lakestream-shell-clean-up");
        Runtime.getRuntime().addShutdownHook(cleanUp);
        return cleanUp;
    }

    /**
     * Creates the sample table with {@code sql}, prints the banner and runs the client on the
     * terminal until the person quits it; returns its exit code.
     */
    private int runClient(
            FlinkSqlClient sql, Map<String, String> storeOptions, String quitStops, String logs)
            throws Exception {
        URI warehouse = dir.resolve("warehouse").toUri();
        progress.start(
                "Creating "
                        + ShellScripts.TABLE
                        + ", a Paimon table with "
                        + ShellScripts.HISTORY_ROWS
                        + " rows");
        sql.run("sample-table", ShellScripts.sampleTable(warehouse, storeOptions));
        progress.done(warehouse.toString());

        out.println();
        out.println(banner(storeOptions, quitStops, logs));
        out.flush();
        ChildJvm client = sql.startOnTerminal(ShellScripts.session(warehouse, storeOptions));
        // only now: a child started while this JVM ignores SIGINT would ignore it too, and the
        // client could not cancel a query on Ctrl-C
        TerminalInterrupts.ignore();
        int exitCode = client.waitForExit();
        out.println();
        return exitCode;
    }

    /**
     * On a Ctrl-C or SIGTERM before the client runs: kills every process the shell started, waits
     * until they are gone, and deletes the shell's directory.
     */
    private void killAndDelete() {
        ProcessHandle.current()
                .descendants()
                .forEach(
                        process -> {
                            process.destroyForcibly();
                            try {
                                process.onExit().get(10, TimeUnit.SECONDS);
                            } catch (Exception stillThere) {
                                // deleting the directory below is best effort then
                            }
                        });
        FileUtils.deleteDirectoryQuietly(dir.toFile());
        out.println();
        out.println("Stopped; removed " + dir);
        out.flush();
    }

    private String banner(Map<String, String> storeOptions, String quitStops, String logs) {
        return String.join(
                System.lineSeparator(),
                "Flink's SQL client starts below with the catalog 'lake' (type 'paimon-lakestream',"
                        + " stream store '"
                        + storeOptions.getOrDefault("lake-stream.store", "fluss")
                        + "') and its",
                "database 'shop' in use. 'orders' is a Paimon table with "
                        + ShellScripts.HISTORY_ROWS
                        + " rows; 'order_events' a source of",
                "new orders. Try, one statement at a time:",
                "",
                ShellScripts.tryThese(),
                "",
                "QUIT; (or Ctrl-D) leaves the client, " + quitStops + " and deletes " + dir,
                "with the logs (" + logs + ").",
                "Docs: docs/index.md (concepts, SQL, procedures, deployment).",
                "");
    }

    private static void stop(FlinkProcessCluster flink, FlussProcessCluster fluss)
            throws Exception {
        try {
            if (flink != null) {
                flink.close();
            }
        } finally {
            if (fluss != null) {
                fluss.close();
            }
        }
    }
}
