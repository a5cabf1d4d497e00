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

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Flink session cluster of OS processes: a JobManager ({@code
 * StandaloneSessionClusterEntrypoint}) and TaskManagers ({@code TaskManagerRunner}), each a {@link
 * ChildJvm} on the class path of Flink's {@code lib/} with the user's jars ({@link
 * FlinkDistribution#lib()}), started the way Flink's {@code jobmanager.sh} and {@code
 * taskmanager.sh} start them: memory flags from {@code BashJavaUtils}, configuration from a {@code
 * config.yaml} this class writes. Ports are picked free; checkpoints, savepoints, working and temp
 * directories are under the cluster's directory. A TaskManager can be killed with SIGKILL and a new
 * one started, as a crashed machine would be replaced. Started with ZooKeeper high availability in
 * its configuration, the JobManager can be killed with SIGKILL and restarted on the same
 * configuration, as a supervisor (Kubernetes, YARN, systemd) restarts a crashed one.
 */
public final class FlinkProcessCluster implements AutoCloseable {

    private static final String HOST = LocalPorts.HOST;

    /** Generous for two busy cores; an idle machine starts the cluster in about ten seconds. */
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

    /** Flink's processes stop in a few seconds; one that does not is killed after this. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(15);

    private static final String BASH_JAVA_UTILS_PREFIX = "BASH_JAVA_UTILS_EXEC_RESULT:";

    private final Path dir;
    private final Path confDir;
    private final Path logDir;
    private final String classPath;
    private final int restPort;
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    private final List<ChildJvm> processes = new ArrayList<>();
    private final Map<String, ChildJvm> taskManagers = new LinkedHashMap<>();
    private ChildJvm jobManager;
    private int jobManagerStarts;
    private List<String> jobManagerResources;
    private List<String> taskManagerJvmOptions;
    private List<String> taskManagerDynamicConfig;

    private FlinkProcessCluster(Path dir) throws IOException {
        this.dir = dir;
        this.confDir = dir.resolve("conf");
        this.logDir = dir.resolve("logs");
        this.classPath = FlinkDistribution.lib();
        this.restPort = LocalPorts.free();
    }

    /**
     * Starts a JobManager and {@code numTaskManagers} TaskManagers in {@code dir} and returns once
     * all TaskManagers have registered; {@code extraConfig} is added to the cluster's
     * configuration.
     */
    public static FlinkProcessCluster start(
            Path dir, int numTaskManagers, Map<String, String> extraConfig) throws Exception {
        FlinkProcessCluster cluster = new FlinkProcessCluster(dir);
        try {
            cluster.writeConfig(extraConfig);
            cluster.startJobManager();
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < numTaskManagers; i++) {
                ids.add(cluster.startTaskManager());
            }
            cluster.awaitTaskManagers(ids);
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

    /** The directory of {@code config.yaml}, for clients such as the SQL client. */
    public Path confDir() {
        return confDir;
    }

    public Path logDir() {
        return logDir;
    }

    public String restAddress() {
        return HOST;
    }

    public int restPort() {
        return restPort;
    }

    private void writeConfig(Map<String, String> extraConfig) throws IOException {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("jobmanager.rpc.address", HOST);
        config.put("jobmanager.rpc.port", String.valueOf(LocalPorts.free()));
        config.put("jobmanager.bind-host", HOST);
        config.put("rest.address", HOST);
        config.put("rest.bind-address", HOST);
        config.put("rest.port", String.valueOf(restPort));
        config.put("blob.server.port", String.valueOf(LocalPorts.free()));
        // TaskManagers pick their own ports (the default 0): several run on one host
        config.put("taskmanager.host", HOST);
        config.put("taskmanager.bind-host", HOST);
        config.put("taskmanager.numberOfTaskSlots", "2");
        config.put("parallelism.default", "1");
        // small processes: the machine runs two TaskManagers, the Fluss servers and the tests
        config.put("jobmanager.memory.process.size", "768m");
        config.put("taskmanager.memory.process.size", "1g");
        config.put("taskmanager.memory.jvm-metaspace.size", "256m");
        config.put("taskmanager.memory.jvm-overhead.min", "128m");
        config.put("taskmanager.memory.managed.fraction", "0.05");
        config.put("taskmanager.memory.task.off-heap.size", "64m");
        config.put("execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString());
        config.put(
                "execution.checkpointing.savepoint-dir",
                dir.resolve("savepoints").toUri().toString());
        config.put("high-availability.storageDir", dir.resolve("ha").toUri().toString());
        config.put("io.tmp.dirs", dir.resolve("tmp").toString());
        config.put("process.working-dir", dir.resolve("work").toString());
        config.put("restart-strategy.type", "fixed-delay");
        config.put("restart-strategy.fixed-delay.attempts", "10");
        config.put("restart-strategy.fixed-delay.delay", "2 s");
        // a killed TaskManager is noticed through failed heartbeat RPCs within a few seconds
        config.put("heartbeat.interval", "2000");
        config.put("heartbeat.timeout", "20000");
        config.put("security.delegation.tokens.enabled", "false");
        config.putAll(extraConfig);

        List<String> lines = new ArrayList<>();
        config.forEach((key, value) -> lines.add(key + ": " + value));
        Files.createDirectories(confDir);
        Files.createDirectories(dir.resolve("tmp"));
        Files.write(confDir.resolve("config.yaml"), lines, StandardCharsets.UTF_8);
    }

    private void startJobManager() throws Exception {
        if (jobManagerResources == null) {
            jobManagerResources = bashJavaUtils("GET_JM_RESOURCE_PARAMS");
        }
        List<String> args = new ArrayList<>(List.of("--configDir", confDir.toString()));
        args.add("--executionMode");
        args.add("cluster");
        args.addAll(dynamicConfig(jobManagerResources));
        jobManagerStarts++;
        jobManager =
                start(
                        jobManagerStarts == 1
                                ? "jobmanager"
                                : "jobmanager-start-" + jobManagerStarts,
                        jvmOptions(jobManagerResources),
                        "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
                        args);
    }

    /** Kills the JobManager with SIGKILL, as a crash of its machine would. */
    public void killJobManager() throws InterruptedException {
        jobManager.kill();
    }

    /**
     * Starts a new JobManager on the configuration, ports and directories of the killed one. With
     * ZooKeeper high availability it becomes the leader once the killed one's ZooKeeper session
     * expired, recovers the jobs from the HA store and restores them from their latest completed
     * checkpoints; the TaskManagers register with it again. {@link #awaitJob} waits for a job.
     */
    public void restartJobManager() throws Exception {
        if (jobManager.isAlive()) {
            throw new IllegalStateException(jobManager + " still runs: kill it first");
        }
        startJobManager();
    }

    /**
     * Waits until the REST API answers for the job {@code jobId}, as it does once a JobManager
     * leads and has the job (a restarted one: recovered it from the HA store); fails with the last
     * answer otherwise.
     */
    public void awaitJob(String jobId, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Object last = null;
        while (System.nanoTime() < deadline) {
            jobManager.checkAlive();
            try {
                rest("/jobs/" + jobId);
                return;
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(
                String.format(
                        "The JobManager did not answer for job %s within %s (last answer: %s); "
                                + "logs in %s",
                        jobId, timeout, last, logDir));
    }

    /**
     * The id of the checkpoint the job's current run was restored from, as its checkpoint
     * statistics report it; -1 if it was not restored from one.
     */
    public long restoredCheckpoint(String jobId) throws IOException, InterruptedException {
        JsonNode restored = rest("/jobs/" + jobId + "/checkpoints").path("latest").path("restored");
        return restored.path("id").isNumber() ? restored.path("id").asLong() : -1;
    }

    /**
     * Starts a new TaskManager and returns its resource id; it registers with the JobManager a few
     * seconds later ({@link #awaitTaskManagers}).
     */
    public String startTaskManager() throws Exception {
        if (taskManagerJvmOptions == null) {
            List<String> resources = bashJavaUtils("GET_TM_RESOURCE_PARAMS");
            taskManagerJvmOptions = jvmOptions(resources);
            taskManagerDynamicConfig = dynamicConfig(resources);
        }
        String id = "taskmanager-" + (taskManagers.size() + 1);
        List<String> args = new ArrayList<>(List.of("--configDir", confDir.toString()));
        args.addAll(taskManagerDynamicConfig);
        args.add("-D");
        args.add("taskmanager.resource-id=" + id);
        taskManagers.put(
                id,
                start(
                        id,
                        taskManagerJvmOptions,
                        "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                        args));
        return id;
    }

    /** Kills TaskManager {@code id} with SIGKILL, as a crash of its machine would. */
    public void killTaskManager(String id) throws InterruptedException {
        ChildJvm taskManager = taskManagers.get(id);
        if (taskManager == null) {
            throw new IllegalArgumentException("No TaskManager " + id + " in " + taskManagers);
        }
        taskManager.kill();
    }

    /** The ids of the TaskManagers started so far that are still alive. */
    public List<String> liveTaskManagers() {
        List<String> live = new ArrayList<>();
        taskManagers.forEach(
                (id, process) -> {
                    if (process.isAlive()) {
                        live.add(id);
                    }
                });
        return live;
    }

    /** Waits until the JobManager lists every TaskManager of {@code ids} as registered. */
    public void awaitTaskManagers(Set<String> ids) throws Exception {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        Object last = null;
        while (System.nanoTime() < deadline) {
            jobManager.checkAlive();
            for (String id : ids) {
                taskManagers.get(id).checkAlive();
            }
            try {
                Set<String> registered = new HashSet<>();
                for (JsonNode taskManager : rest("/taskmanagers").path("taskmanagers")) {
                    registered.add(taskManager.path("id").asText());
                }
                if (registered.containsAll(ids)) {
                    return;
                }
                last = registered;
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(
                String.format(
                        "TaskManagers %s did not register within %s (last answer: %s); logs in %s",
                        ids, STARTUP_TIMEOUT, last, logDir));
    }

    /** GETs {@code path} of the REST API and returns the JSON answer. */
    public JsonNode rest(String path) throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create("http://" + HOST + ":" + restPort + path))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(
                    "GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return json.readTree(response.body());
    }

    /** POSTs {@code body} to {@code path} of the REST API and returns the JSON answer. */
    public JsonNode restPost(String path, String body) throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create("http://" + HOST + ":" + restPort + path))
                        .timeout(Duration.ofSeconds(10))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200 && response.statusCode() != 202) {
            throw new IOException(
                    "POST " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return json.readTree(response.body());
    }

    /**
     * Cancels the job, as {@code flink cancel <job id>} does ({@code PATCH /jobs/<id>}), and waits
     * until it is CANCELED.
     */
    public void cancel(String jobId, Duration timeout) throws Exception {
        HttpRequest request =
                HttpRequest.newBuilder(
                                URI.create(
                                        "http://"
                                                + HOST
                                                + ":"
                                                + restPort
                                                + "/jobs/"
                                                + jobId
                                                + "?mode=cancel"))
                        .timeout(Duration.ofSeconds(10))
                        .method("PATCH", HttpRequest.BodyPublishers.noBody())
                        .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 202) {
            throw new IOException(
                    "Cancelling job "
                            + jobId
                            + " answered "
                            + response.statusCode()
                            + ": "
                            + response.body());
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        String state = jobState(jobId);
        while (!"CANCELED".equals(state)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        String.format(
                                "Job %s is %s, not CANCELED, %s after it was cancelled",
                                jobId, state, timeout));
            }
            Thread.sleep(200);
            state = jobState(jobId);
        }
    }

    /**
     * Triggers a checkpoint of the job, as {@code flink checkpoint <job id>} does, and waits until
     * it completed; returns its id. The tests run jobs with a long checkpoint interval so that
     * their union reads see uncommitted rows, and commit with this.
     */
    public long checkpoint(String jobId, Duration timeout) throws Exception {
        String triggerId =
                restPost("/jobs/" + jobId + "/checkpoints", "{}").path("request-id").asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode answer = null;
        while (System.nanoTime() < deadline) {
            answer = rest("/jobs/" + jobId + "/checkpoints/" + triggerId);
            if ("COMPLETED".equals(answer.path("status").path("id").asText())) {
                JsonNode operation = answer.path("operation");
                if (operation.path("checkpointId").isNumber()) {
                    return operation.path("checkpointId").asLong();
                }
                throw new IllegalStateException(
                        "Checkpoint of job " + jobId + " failed: " + answer.toPrettyString());
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(
                String.format(
                        "Checkpoint of job %s did not complete within %s; last answer: %s",
                        jobId, timeout, answer));
    }

    /** How many checkpoints of the job completed. */
    public long completedCheckpoints(String jobId) throws IOException, InterruptedException {
        return rest("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
    }

    /**
     * The TaskManager that runs the first task of the job's first vertex: with parallelism 1 and
     * slot sharing, the one that runs the whole job.
     */
    public String taskManagerOf(String jobId) throws IOException, InterruptedException {
        String vertexId = rest("/jobs/" + jobId).path("vertices").path(0).path("id").asText();
        JsonNode taskManagers =
                rest("/jobs/" + jobId + "/vertices/" + vertexId + "/taskmanagers")
                        .path("taskmanagers");
        for (JsonNode taskManager : taskManagers) {
            String id = taskManager.path("taskmanager-id").asText();
            if (this.taskManagers.containsKey(id)) {
                return id;
            }
        }
        throw new IllegalStateException(
                "No TaskManager of this cluster runs job " + jobId + ": " + taskManagers);
    }

    /**
     * Waits until the job has FINISHED. Once one of its vertices has finished (the bounded source),
     * triggers a checkpoint every few seconds: with a long checkpoint interval the finished tasks
     * would wait for the next periodic one before the sink's final commit.
     */
    public void awaitFinished(String jobId, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long nextCheckpoint = 0;
        String state = null;
        while (System.nanoTime() < deadline) {
            JsonNode job = rest("/jobs/" + jobId);
            state = job.path("state").asText();
            if ("FINISHED".equals(state)) {
                return;
            }
            if ("FAILED".equals(state) || "CANCELED".equals(state)) {
                break;
            }
            boolean sourceFinished = false;
            for (JsonNode vertex : job.path("vertices")) {
                sourceFinished |= "FINISHED".equals(vertex.path("status").asText());
            }
            if (sourceFinished && System.nanoTime() > nextCheckpoint) {
                try {
                    checkpoint(jobId, Duration.ofSeconds(30));
                } catch (IllegalStateException | IOException e) {
                    // the job may finish while the checkpoint runs: check its state again
                }
                nextCheckpoint = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException(
                String.format(
                        "Job %s did not finish within %s (state %s); its exceptions: %s; logs in "
                                + "%s",
                        jobId, timeout, state, jobExceptions(jobId), logDir));
    }

    /** The job's state ({@code RUNNING}, {@code RESTARTING}, {@code FINISHED}, ...). */
    public String jobState(String jobId) throws IOException, InterruptedException {
        return rest("/jobs/" + jobId).path("state").asText();
    }

    /**
     * Whether the job runs with all its tasks: state {@code RUNNING} and every vertex {@code
     * RUNNING} or {@code FINISHED} (a restarted job is {@code RUNNING} while its tasks are still
     * being deployed).
     */
    public boolean jobFullyRunning(String jobId) throws IOException, InterruptedException {
        JsonNode job = rest("/jobs/" + jobId);
        if (!"RUNNING".equals(job.path("state").asText())) {
            return false;
        }
        for (JsonNode vertex : job.path("vertices")) {
            String status = vertex.path("status").asText();
            if (!"RUNNING".equals(status) && !"FINISHED".equals(status)) {
                return false;
            }
        }
        return true;
    }

    /** How often the job has restarted (its {@code numRestarts} metric). */
    public long jobRestarts(String jobId) throws IOException, InterruptedException {
        for (JsonNode metric : rest("/jobs/" + jobId + "/metrics?get=numRestarts")) {
            if ("numRestarts".equals(metric.path("id").asText())) {
                return Long.parseLong(metric.path("value").asText());
            }
        }
        return 0;
    }

    /** The job's root exception and its history, for failure messages. */
    public String jobExceptions(String jobId) {
        try {
            return rest("/jobs/" + jobId + "/exceptions?maxExceptions=5").toPrettyString();
        } catch (Exception e) {
            return "(cannot ask the JobManager: " + e + ")";
        }
    }

    /**
     * Runs {@code BashJavaUtils} as {@code jobmanager.sh} and {@code taskmanager.sh} do and returns
     * its results: the JVM's memory flags, then the dynamic configuration.
     */
    private List<String> bashJavaUtils(String command) throws Exception {
        ChildJvm utils =
                start(
                        "bash-java-utils-" + command,
                        List.of("-Xmx128m", "-XX:+UseSerialGC"),
                        "org.apache.flink.runtime.util.bash.BashJavaUtils",
                        List.of(command, "--configDir", confDir.toString()));
        try {
            Integer exitCode = utils.waitFor(STARTUP_TIMEOUT);
            if (exitCode == null || exitCode != 0) {
                throw new IllegalStateException(
                        String.format(
                                "%s failed (exit code %s):%n%s",
                                utils, exitCode, utils.logTail(30)));
            }
        } finally {
            utils.stop(Duration.ZERO);
        }
        List<String> results = new ArrayList<>();
        for (String line : utils.output()) {
            if (line.startsWith(BASH_JAVA_UTILS_PREFIX)) {
                results.add(line.substring(BASH_JAVA_UTILS_PREFIX.length()).trim());
            }
        }
        if (results.isEmpty()) {
            throw new IllegalStateException(utils + " printed no result: " + utils.output());
        }
        return results;
    }

    private static List<String> jvmOptions(List<String> bashJavaUtilsResults) {
        List<String> options =
                new ArrayList<>(Arrays.asList(bashJavaUtilsResults.get(0).split("\\s+")));
        // two cores for everything: no parallel GC threads to spare
        options.add("-XX:+UseSerialGC");
        return options;
    }

    /** The {@code -D key=value} pairs, as separate arguments as the scripts pass them. */
    private static List<String> dynamicConfig(List<String> bashJavaUtilsResults) {
        if (bashJavaUtilsResults.size() < 2 || bashJavaUtilsResults.get(1).isEmpty()) {
            return Collections.emptyList();
        }
        return Arrays.asList(bashJavaUtilsResults.get(1).split("\\s+"));
    }

    private ChildJvm start(
            String name, List<String> jvmOptions, String mainClass, List<String> args)
            throws IOException {
        ChildJvm process =
                ChildJvm.start(
                        name,
                        logDir,
                        jvmOptions,
                        classPath,
                        Map.of("FLINK_CONF_DIR", confDir.toString()),
                        mainClass,
                        args);
        processes.add(process);
        return process;
    }

    /**
     * Stops the TaskManagers, then the JobManager (SIGTERM, then SIGKILL after a grace period), so
     * that no TaskManager waits for a JobManager already gone.
     */
    @Override
    public void close() throws Exception {
        List<ChildJvm> taskManagers = new ArrayList<>(processes);
        taskManagers.remove(jobManager);
        ChildJvm.stopInStages(
                List.of(taskManagers, Collections.singletonList(jobManager)), STOP_GRACE);
    }

    @Override
    public String toString() {
        return "Flink cluster at http://" + HOST + ":" + restPort + " (logs in " + logDir + ")";
    }
}
