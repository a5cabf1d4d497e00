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

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A main class run in a JVM of its own, with this JVM's class path: a ZooKeeper or Fluss server, or
 * a client that must not share anything with the test but the cluster. Its standard output goes to
 * {@code <name>.out} and its standard error (where the children's logging goes) to {@code
 * <name>.log}, both in the log directory, so that a failed run can be diagnosed from the files.
 */
public final class ChildJvm implements AutoCloseable {

    /**
     * The log4j configuration of every child: INFO to standard error. The test JVM itself logs
     * through log4j2-test.properties, which the children would otherwise pick up too.
     */
    private static final String LOG_CONFIG = "log4j2-child-jvm.properties";

    /** Whether children start in sessions of their own: see {@link #detachFromTerminal()}. */
    private static volatile boolean detached;

    private final String name;
    private final Process process;
    private final Path out;
    private final Path log;
    private final Thread killOnExit;

    private ChildJvm(String name, Process process, Path out, Path log) {
        this.name = name;
        this.process = process;
        this.out = out;
        this.log = log;
        // an aborted test run (a surefire timeout, Ctrl-C) must not leave servers running
        this.killOnExit = new Thread(process::destroyForcibly, "kill " + name);
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM.
     *
     * @param name names the log files, unique per log directory
     * @param jvmOptions options on top of the inherited ones, such as the heap size
     */
    public static ChildJvm start(
            String name, Path logDir, List<String> jvmOptions, String mainClass, List<String> args)
            throws IOException {
        return start(
                name,
                logDir,
                jvmOptions,
                System.getProperty("java.class.path"),
                Collections.emptyMap(),
                mainClass,
                args);
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM on {@code classPath}, such as a Flink
     * process on the jars of Flink's {@code lib/}, with {@code environment} on top of this JVM's.
     * Its log4j configuration is the children's one of the test resources unless {@code jvmOptions}
     * set another.
     */
    public static ChildJvm start(
            String name,
            Path logDir,
            List<String> jvmOptions,
            String classPath,
            Map<String, String> environment,
            String mainClass,
            List<String> args)
            throws IOException {
        Path out = logDir.resolve(name + ".out");
        ProcessBuilder builder =
                builder(name, logDir, jvmOptions, classPath, environment, mainClass, args)
                        .redirectOutput(out.toFile());
        if (detached) {
            // setsid execs the JVM in its place (a child of this JVM leads no process group), so
            // the process and its pid are the JVM's own
            builder.command().add(0, "setsid");
        }
        return new ChildJvm(name, builder.start(), out, logDir.resolve(name + ".log"));
    }

    /**
     * Starts {@code mainClass} like {@link #start(String, Path, List, String, Map, String, List)},
     * but on this JVM's terminal: it reads this JVM's standard input and writes to its standard
     * output, for a program that a person uses, such as Flink's SQL client. Its log goes to the log
     * file; {@link #output()} has nothing.
     */
    public static ChildJvm startOnTerminal(
            String name,
            Path logDir,
            List<String> jvmOptions,
            String classPath,
            Map<String, String> environment,
            String mainClass,
            List<String> args)
            throws IOException {
        ProcessBuilder builder =
                builder(name, logDir, jvmOptions, classPath, environment, mainClass, args)
                        .redirectInput(ProcessBuilder.Redirect.INHERIT)
                        .redirectOutput(ProcessBuilder.Redirect.INHERIT);
        return new ChildJvm(name, builder.start(), null, logDir.resolve(name + ".log"));
    }

    /**
     * Starts every later child, but those on the terminal, in a session of its own ({@code
     * setsid}), away from the terminal's process group: a Ctrl-C that a person types into a program
     * on the terminal then reaches that program alone, not the servers under it.
     */
    public static void detachFromTerminal() {
        detached = true;
    }

    private static ProcessBuilder builder(
            String name,
            Path logDir,
            List<String> jvmOptions,
            String classPath,
            Map<String, String> environment,
            String mainClass,
            List<String> args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(inheritedJvmOptions());
        command.add("-Dlog4j2.configurationFile=" + logConfig(logDir));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);

        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        // the command line, without the long class path, heads the log for the record
        Files.writeString(
                log,
                "# "
                        + String.join(" ", jvmOptions)
                        + " "
                        + mainClass
                        + " "
                        + String.join(" ", args)
                        + System.lineSeparator(),
                StandardCharsets.UTF_8);
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        return builder;
    }

    /**
     * The children's log4j configuration as a file, so that children whose class path lacks it
     * (Flink's processes) find it too: the resource itself when it is a file, else (in a jar) a
     * copy in {@code logDir}.
     */
    private static String logConfig(Path logDir) throws IOException {
        URL resource = ChildJvm.class.getClassLoader().getResource(LOG_CONFIG);
        if (resource == null) {
            throw new IllegalStateException("The resource " + LOG_CONFIG + " is missing");
        }
        if ("file".equals(resource.getProtocol())) {
            try {
                return Paths.get(resource.toURI()).toString();
            } catch (URISyntaxException e) {
                throw new IOException("Cannot read " + resource, e);
            }
        }
        Path copy = logDir.resolve(LOG_CONFIG);
        // one copy per directory, written once: children are started from several threads
        synchronized (ChildJvm.class) {
            if (!Files.exists(copy)) {
                Files.createDirectories(logDir);
                try (InputStream in = resource.openStream()) {
                    Files.copy(in, copy);
                }
            }
        }
        return copy.toString();
    }

    /**
     * The module-opening flags and system properties this JVM was started with (the root pom's
     * surefire argLine): Fluss's Netty and Arrow need the same in every JVM on Java 17.
     */
    private static List<String> inheritedJvmOptions() {
        List<String> options = new ArrayList<>();
        for (String argument : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (argument.startsWith("--add-opens")
                    || argument.startsWith("--add-exports")
                    || argument.startsWith("-D")
                    || argument.equals("-XX:+IgnoreUnrecognizedVMOptions")) {
                options.add(argument);
            }
        }
        return options;
    }

    public String name() {
        return name;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** Waits up to {@code timeout} for the JVM to exit; returns its exit code or null. */
    public Integer waitFor(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
                ? process.exitValue()
                : null;
    }

    /** Waits until the JVM exits and returns its exit code. */
    public int waitForExit() throws InterruptedException {
        return process.waitFor();
    }

    /** Kills the JVM with SIGKILL, as a crash would, and waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
        Runtime.getRuntime().removeShutdownHook(killOnExit);
    }

    /** Asks the JVM to exit (SIGTERM) without waiting, so that several stop at once. */
    public void terminate() {
        process.destroy();
    }

    /**
     * Asks the JVM to exit (SIGTERM) and kills it if it has not within {@code grace}: Fluss's
     * servers shut down in their shutdown hooks, which wait on the other servers and may hang when
     * those are gone.
     */
    public void stop(Duration grace) throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        }
        Runtime.getRuntime().removeShutdownHook(killOnExit);
    }

    /**
     * Stops {@code processes} together: SIGTERM to all of them first, so that they shut down at the
     * same time, then each is waited for up to {@code grace} and killed after it. Null entries are
     * skipped. Every process is stopped even if stopping one fails; the first failure is thrown
     * with the others suppressed.
     */
    public static void stopAll(List<ChildJvm> processes, Duration grace) throws Exception {
        for (ChildJvm process : processes) {
            if (process != null) {
                process.terminate();
            }
        }
        Exception error = null;
        for (ChildJvm process : processes) {
            if (process == null) {
                continue;
            }
            try {
                process.stop(grace);
            } catch (Exception e) {
                if (error == null) {
                    error = e;
                } else {
                    error.addSuppressed(e);
                }
            }
        }
        if (error != null) {
            throw error;
        }
    }

    /**
     * Stops {@code stages} one after the other, the processes of each together (see {@link
     * #stopAll}), so that no process waits on one of a later stage that is already gone. Every
     * stage is stopped even if stopping one fails; the first failure is thrown with the others
     * suppressed.
     */
    public static void stopInStages(List<List<ChildJvm>> stages, Duration grace) throws Exception {
        Exception error = null;
        for (List<ChildJvm> stage : stages) {
            try {
                stopAll(stage, grace);
            } catch (Exception e) {
                if (error == null) {
                    error = e;
                } else {
                    error.addSuppressed(e);
                }
            }
        }
        if (error != null) {
            throw error;
        }
    }

    /** Fails with the end of the JVM's log when it is no longer running. */
    public void checkAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(
                    String.format("%s exited unexpectedly:%n%s", this, logTail(30)));
        }
    }

    /**
     * Waits up to {@code timeout} until the JVM accepts connections on {@code port} of the loopback
     * address; fails at once when the JVM exits.
     */
    public void awaitListening(int port, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            checkAlive();
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(LocalPorts.HOST, port), 500);
                return;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException(
                String.format(
                        "%s did not listen on port %d within %s:%n%s",
                        this, port, timeout, logTail(30)));
    }

    /** What the JVM printed to standard output so far. */
    public List<String> output() throws IOException {
        if (out == null) {
            throw new IllegalStateException(name + " writes to the terminal");
        }
        return Files.readAllLines(out, StandardCharsets.UTF_8);
    }

    public Path logFile() {
        return log;
    }

    /** The last lines of the log, for failure messages. */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join(
                    System.lineSeparator(),
                    all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop(Duration.ofSeconds(10));
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", log " + log + ")";
    }
}
