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

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/lakestream-sql-shell} as a person uses it, on Fluss (local Fluss and Flink clusters)
 * and with {@code --store memory} (no cluster: the client's own process runs its jobs): it starts,
 * takes the banner's statements one by one from its standard input and prints their results, keeps
 * going when a streaming query is cancelled, and on {@code QUIT} stops every process it started and
 * deletes its directory.
 */
class LakeStreamShellITCase {

    private static final Duration STARTUP = Duration.ofMinutes(4);
    private static final Duration STATEMENT = Duration.ofMinutes(2);
    private static final Pattern WORK_DIR = Pattern.compile("deletes (/\\S+lakestream-shell-\\d+)");
    private static final Pattern JOB_ID = Pattern.compile("Job ID: ([0-9a-f]{32})");
    private static final Pattern WEB_UI =
            Pattern.compile("(http://127\\.0\\.0\\.1:\\d+) \\(Flink's (?:web UI|REST API)\\)");
    private static final Pattern NUMBER_CELL = Pattern.compile("\\|\\s+(\\d+)\\s+\\|");

    @ParameterizedTest(name = "--store {0}")
    @ValueSource(strings = {"fluss", "memory"})
    void runsTheBannersStatementsAndLeavesNothingBehind(String store) throws Exception {
        Path script =
                Paths.get(System.getProperty("basedir", "."))
                        .toAbsolutePath()
                        .getParent()
                        .resolve("bin")
                        .resolve("lakestream-sql-shell");
        Process process =
                new ProcessBuilder("bash", script.toString(), "--store", store)
                        .redirectErrorStream(true)
                        .start();
        try (ShellSession shell = new ShellSession(process)) {
            try {
                runBanner(shell, process, store);
            } finally {
                // what a person would have seen, for a failure's diagnosis
                Files.writeString(
                        Paths.get(
                                System.getProperty("basedir", "."),
                                "target",
                                "shell-it-" + store + ".out"),
                        shell.output());
            }
        }
    }

    private static void runBanner(ShellSession shell, Process process, String store)
            throws Exception {
        String startup = shell.await(0, "Command history file path", STARTUP);
        assertThat(startup)
                .contains("Creating shop.orders", "stream store '" + store + "'")
                .contains(ShellScripts.tryThese())
                .doesNotContain("Exception", "ERROR");
        if (store.equals("memory")) {
            assertThat(startup).doesNotContain("Starting Fluss", "Starting Flink");
        } else {
            assertThat(startup).contains("Starting Fluss", "Starting Flink");
        }
        Matcher workDir = WORK_DIR.matcher(startup);
        assertThat(workDir.find()).as("the banner names the shell's directory").isTrue();
        Path dir = Paths.get(workDir.group(1));
        assertThat(dir).isDirectory();

        List<String> statements = statements();
        String streamingQuery = statements.remove(statements.size() - 1);
        for (String statement : statements) {
            String answer = shell.await(shell.type(statement), answerOf(statement), STATEMENT);
            assertThat(answer).as(statement).doesNotContain("[ERROR]");
            if (statement.startsWith("CALL")) {
                // a table with the procedure's column names
                assertThat(answer)
                        .contains("committed_offset", "readable_offset", "uncommitted_records");
            }
            if (statement.contains("AS committed_rows")) {
                assertThat(number(answer)).isEqualTo(ShellScripts.HISTORY_ROWS);
            }
            // the streaming INSERT runs: a lake-stream read sees its rows before any commit
            for (int i = 0; statement.contains("AS all_rows") && i < 20; i++) {
                if (number(answer) > ShellScripts.HISTORY_ROWS) {
                    break;
                }
                answer = shell.await(shell.type(statement), "in set", STATEMENT);
            }
            if (statement.contains("AS all_rows")) {
                assertThat(number(answer)).isGreaterThan(ShellScripts.HISTORY_ROWS);
            }
        }

        // the streaming query prints new orders as they arrive
        int beforeQuery = shell.type(streamingQuery);
        shell.await(beforeQuery, "| +I |", 3, STATEMENT);

        // cancelled in Flink's web UI (a client without a terminal cannot take a Ctrl-C), the
        // query ends and the client takes statements again; QUIT stops everything
        int beforeCancel = shell.mark();
        cancelQueries(startup, insertJobId(shell.output()));
        shell.await(beforeCancel, "Flink SQL>", STATEMENT);
        shell.await(shell.type("QUIT"), "removed " + dir, STATEMENT);
        assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue()).isZero();
        assertThat(dir).doesNotExist();
        assertThat(processesOf(dir)).isEmpty();
    }

    private static String insertJobId(String output) {
        Matcher jobId = JOB_ID.matcher(output);
        assertThat(jobId.find()).as("the INSERT's job id").isTrue();
        return jobId.group(1);
    }

    /** Cancels every running job but {@code insertJobId} through Flink's REST API. */
    private static void cancelQueries(String startup, String insertJobId) throws Exception {
        Matcher webUi = WEB_UI.matcher(startup);
        assertThat(webUi.find()).as("the banner names Flink's web UI").isTrue();
        HttpClient http = HttpClient.newHttpClient();
        JsonNode jobs =
                new ObjectMapper()
                        .readTree(
                                http.send(
                                                HttpRequest.newBuilder(
                                                                URI.create(
                                                                        webUi.group(1)
                                                                                + "/jobs/overview"))
                                                        .build(),
                                                HttpResponse.BodyHandlers.ofString())
                                        .body())
                        .get("jobs");
        int cancelled = 0;
        for (JsonNode job : jobs) {
            String id = job.get("jid").asText();
            if (!id.equals(insertJobId) && job.get("state").asText().equals("RUNNING")) {
                HttpResponse<String> response =
                        http.send(
                                HttpRequest.newBuilder(
                                                URI.create(
                                                        webUi.group(1)
                                                                + "/jobs/"
                                                                + id
                                                                + "?mode=cancel"))
                                        .method("PATCH", HttpRequest.BodyPublishers.noBody())
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
                cancelled++;
            }
        }
        assertThat(cancelled).as("the streaming query's job").isEqualTo(1);
    }

    /** The banner's statements, in its order. */
    private static List<String> statements() {
        String code =
                ShellScripts.tryThese()
                        .lines()
                        .filter(line -> !line.startsWith("--"))
                        .collect(Collectors.joining(" "));
        List<String> statements = new ArrayList<>();
        for (String statement : code.split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.trim());
            }
        }
        return statements;
    }

    /** What the client prints once {@code statement} is done. */
    private static String answerOf(String statement) {
        if (statement.startsWith("INSERT")) {
            return "Job ID:";
        }
        if (statement.startsWith("SELECT") || statement.startsWith("CALL")) {
            return "in set";
        }
        return "[INFO] Execute statement succeeded.";
    }

    private static long number(String answer) {
        Matcher cell = NUMBER_CELL.matcher(answer);
        assertThat(cell.find()).as("a number in %s", answer).isTrue();
        return Long.parseLong(cell.group(1));
    }

    private static List<String> processesOf(Path dir) {
        return ProcessHandle.allProcesses()
                .map(LakeStreamShellITCase::commandLine)
                .filter(commandLine -> commandLine.contains(dir.toString()))
                .collect(Collectors.toList());
    }

    /**
     * The whole command line of a process, from {@code /proc} ({@code ProcessHandle.Info} cuts a
     * long one off, and the class paths here are long); empty once the process is gone.
     */
    private static String commandLine(ProcessHandle process) {
        try {
            byte[] raw =
                    Files.readAllBytes(
                            Paths.get("/proc", String.valueOf(process.pid()), "cmdline"));
            return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException gone) {
            return "";
        }
    }
}
