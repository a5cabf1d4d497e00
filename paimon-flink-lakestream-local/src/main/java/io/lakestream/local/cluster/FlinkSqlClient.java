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

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Flink's SQL client as users run it: {@code sql-client.sh embedded -f script.sql} against a
 * session cluster, here a JVM of {@code org.apache.flink.table.client.SqlClient} on the class path
 * of Flink's {@code lib/} and {@code opt/} ({@link FlinkDistribution#sqlClient()}), configured by a
 * {@code config.yaml} that points it at the cluster's REST endpoint; or, {@link #withOwnCluster},
 * the same client with a Flink cluster in its own JVM ({@link MiniClusterSqlClient}).
 */
public final class FlinkSqlClient {

    /** A client JVM plans the statements and waits for synchronous ones: minutes at most. */
    private static final Duration TIMEOUT = Duration.ofMinutes(4);

    private static final String SQL_CLIENT = "org.apache.flink.table.client.SqlClient";

    private static final Pattern JOB_ID = Pattern.compile("Job ID: ([0-9a-f]{32})");

    private final Path dir;
    private final Path confDir;
    private final Path logDir;
    private final String classPath;
    private final String mainClass;
    private final String heap;
    private int runs;

    private FlinkSqlClient(Path dir, Path logDir, String classPath, String mainClass, String heap) {
        this.dir = dir;
        this.confDir = dir.resolve("conf");
        this.logDir = logDir;
        this.classPath = classPath;
        this.mainClass = mainClass;
        this.heap = heap;
    }

    /**
     * A client of {@code cluster} whose scripts and configuration are in {@code dir}: the cluster's
     * own configuration with {@code execution.target: remote}, as a client machine's {@code conf/}
     * would have it.
     */
    public static FlinkSqlClient of(FlinkProcessCluster cluster, Path dir) throws IOException {
        FlinkSqlClient client =
                new FlinkSqlClient(
                        dir,
                        cluster.logDir(),
                        FlinkDistribution.sqlClient(),
                        SQL_CLIENT,
                        "-Xmx512m");
        List<String> config =
                new ArrayList<>(
                        Files.readAllLines(
                                cluster.confDir().resolve("config.yaml"), StandardCharsets.UTF_8));
        config.add("execution.target: remote");
        config.add("sql-client.execution.result-mode: TABLEAU");
        Files.createDirectories(client.confDir);
        Files.write(client.confDir.resolve("config.yaml"), config, StandardCharsets.UTF_8);
        return client;
    }

    /**
     * A client that runs every script, and the session on the terminal, in a JVM of its own with a
     * Flink cluster of its own ({@link MiniClusterSqlClient}): what the process-local {@code
     * memory} store needs, whose records only a reader in the writer's process sees. {@code config}
     * is the cluster's and the client's {@code config.yaml}; the logs go to {@code dir/log}.
     */
    public static FlinkSqlClient withOwnCluster(Path dir, Map<String, String> config)
            throws IOException {
        String launcher =
                Paths.get(
                                MiniClusterSqlClient.class
                                        .getProtectionDomain()
                                        .getCodeSource()
                                        .getLocation()
                                        .getPath())
                        .toString();
        FlinkSqlClient client =
                new FlinkSqlClient(
                        dir,
                        dir.resolve("log"),
                        FlinkDistribution.sqlClient() + File.pathSeparator + launcher,
                        MiniClusterSqlClient.class.getName(),
                        // the cluster's TaskManager and its jobs share this heap
                        "-Xmx1536m");
        List<String> lines = new ArrayList<>();
        lines.add("execution.target: remote");
        lines.add("sql-client.execution.result-mode: TABLEAU");
        config.forEach((key, value) -> lines.add(key + ": " + value));
        Files.createDirectories(client.confDir);
        Files.createDirectories(client.logDir);
        Files.write(client.confDir.resolve("config.yaml"), lines, StandardCharsets.UTF_8);
        return client;
    }

    /** Where the client writes its logs. */
    public Path logDir() {
        return logDir;
    }

    /**
     * Runs {@code script} with {@code -f} and returns what the client printed; fails with that
     * output and the client's log when the client exits with an error or reports one.
     *
     * @param name names the script and the client's log files
     */
    public List<String> run(String name, String script) throws Exception {
        String runName = String.format("sql-client-%02d-%s", nextRun(), name);
        Path file = dir.resolve(runName + ".sql");
        Files.writeString(file, script, StandardCharsets.UTF_8);
        ChildJvm client =
                ChildJvm.start(
                        runName,
                        logDir,
                        List.of(heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                        classPath,
                        Map.of("FLINK_CONF_DIR", confDir.toString()),
                        mainClass,
                        List.of("embedded", "-f", file.toString(), "-hist", history().toString()));
        Integer exitCode;
        try {
            exitCode = client.waitFor(TIMEOUT);
        } finally {
            client.stop(Duration.ZERO);
        }
        List<String> output = client.output();
        if (exitCode == null
                || exitCode != 0
                || output.stream().anyMatch(line -> line.contains("[ERROR]"))) {
            throw new IllegalStateException(
                    String.format(
                            "The SQL client %s of %s (exit code %s) failed; it printed:%n%s%n"
                                    + "Its log ends with:%n%s",
                            client,
                            file,
                            exitCode == null ? "none: killed after " + TIMEOUT : exitCode,
                            String.join(System.lineSeparator(), output),
                            client.logTail(40)));
        }
        return output;
    }

    /**
     * Starts the client on this JVM's terminal, for a person to type statements into, after it ran
     * {@code initScript} (Flink's {@code -i}: statements that set up the session, such as {@code
     * CREATE CATALOG}); returns the running client.
     */
    public ChildJvm startOnTerminal(String initScript) throws IOException {
        String runName = String.format("sql-client-%02d-interactive", nextRun());
        Path file = dir.resolve(runName + "-init.sql");
        Files.writeString(file, initScript, StandardCharsets.UTF_8);
        return ChildJvm.startOnTerminal(
                runName,
                logDir,
                List.of(heap, "-XX:+UseSerialGC"),
                classPath,
                Map.of("FLINK_CONF_DIR", confDir.toString()),
                mainClass,
                List.of("embedded", "-i", file.toString(), "-hist", history().toString()));
    }

    /** The client's history file, which would otherwise go to the user's home directory. */
    private Path history() {
        return dir.resolve("history");
    }

    /** Numbers the runs, which a test may start from several threads. */
    private synchronized int nextRun() {
        return ++runs;
    }

    /** The ids of the jobs that the statements of a run submitted, in their order. */
    public static List<String> jobIds(List<String> output) {
        List<String> ids = new ArrayList<>();
        for (String line : output) {
            Matcher matcher = JOB_ID.matcher(line);
            if (matcher.find()) {
                ids.add(matcher.group(1));
            }
        }
        return ids;
    }

    /**
     * The numbers of the result row that starts with {@code label}, as the client prints rows in
     * tableau mode ({@code | label | 12 | 34 |}); fails when there is no such row.
     */
    public static long[] row(List<String> output, String label) {
        for (String line : output) {
            String trimmed = line.trim();
            if (!trimmed.startsWith("|")) {
                continue;
            }
            String[] cells = trimmed.substring(1).split("\\|");
            if (cells.length > 1 && cells[0].trim().equals(label)) {
                long[] numbers = new long[cells.length - 1];
                for (int i = 1; i < cells.length; i++) {
                    numbers[i - 1] = Long.parseLong(cells[i].trim());
                }
                return numbers;
            }
        }
        throw new IllegalStateException(
                "No result row '"
                        + label
                        + "' in the SQL client's output:"
                        + System.lineSeparator()
                        + String.join(System.lineSeparator(), output));
    }
}
