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

import io.lakestream.local.cluster.ChildJvm;
import io.lakestream.local.cluster.FlussProcessCluster;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs lake-stream SQL in a JVM whose class path is what {@code docs/deploy.md} tells users to put
 * into Flink's {@code lib/}: the bundle jar, {@code paimon-flink-1.20}, {@code hadoop-client-api}
 * and {@code hadoop-client-runtime}, and Flink's jars (as Maven resolves them for this module, with
 * no project jar, no Fluss jar and nothing of the tests), against a Fluss cluster of OS processes.
 * The program ({@link BundleSqlMain}) is the one class added, from a directory of its own.
 */
class BundleClassPathE2ECase {

    private static final Duration TIMEOUT = Duration.ofMinutes(4);

    private static Path runDir;
    private static FlussProcessCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        Path e2eDir = Paths.get(System.getProperty("basedir", "."), "target", "e2e");
        Files.createDirectories(e2eDir);
        runDir = Files.createTempDirectory(e2eDir, "bundle-");
        cluster = FlussProcessCluster.start(runDir);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void sqlRunsOnTheBundleWithFlinksLibOnly() throws Exception {
        List<String> classPath = new ArrayList<>();
        classPath.add(programDir().toString());
        classPath.add(BundleJar.path().toString());
        classPath.addAll(flinkLib());

        List<String> output =
                runProgram("bundle-sql", classPath, runDir.resolve("warehouse"), "only_");

        Map<String, List<Long>> results = results(output);
        List<Long> committed = List.of(1L, 2L, 3L);
        // a committed table: the union read is Paimon's read
        assertThat(results.get("committed.union")).isEqualTo(committed);
        assertThat(results.get("committed.lake")).isEqualTo(committed);
        // before the streaming INSERT commits, its rows are read from the store only
        assertThat(results.get("uncommitted.lake")).isEqualTo(committed);
        List<Long> uncommitted = results.get("uncommitted.union");
        assertThat(uncommitted).startsWith(1L, 2L, 3L).hasSizeGreaterThanOrEqualTo(13);
        assertThat(uncommitted.subList(3, uncommitted.size()))
                .isEqualTo(sequence(101, uncommitted.size() - 3));
        // once it committed (stopped with drain), Paimon reads what the union read read, and more
        List<Long> finalLake = results.get("final.lake");
        assertThat(results.get("final.union")).isEqualTo(finalLake);
        assertThat(finalLake).containsAll(uncommitted).startsWith(1L, 2L, 3L);
        assertThat(finalLake.subList(3, finalLake.size()))
                .isEqualTo(sequence(101, finalLake.size() - 3));
    }

    /**
     * Fluss's own Flink connector jar, with its unrelocated Fluss client, ahead of the bundle on
     * the class path (as {@code fluss-flink-1.20-*.jar} sorts ahead of it in {@code lib/}): neither
     * sees the other's Fluss classes, so both catalogs work in one JVM.
     */
    @Test
    void sharesLibWithFlussOwnFlinkConnector() throws Exception {
        String flussConnector = System.getProperty("lakestream.fluss-flink.jar");
        assertThat(flussConnector).as("system property lakestream.fluss-flink.jar").isNotNull();
        List<String> classPath = new ArrayList<>();
        classPath.add(programDir().toString());
        classPath.add(flussConnector);
        classPath.add(BundleJar.path().toString());
        classPath.addAll(flinkLib());

        List<String> output =
                runProgram(
                        "bundle-sql-beside-fluss-connector",
                        classPath,
                        runDir.resolve("warehouse-beside-fluss-connector"),
                        "beside_",
                        "with-fluss-connector");

        Map<String, List<Long>> results = results(output);
        assertThat(results.get("committed.union")).isEqualTo(List.of(1L, 2L, 3L));
        assertThat(results.get("committed.lake")).isEqualTo(List.of(1L, 2L, 3L));
        // the stream table's Fluss database (the prefix and the Paimon database's name), seen by
        // Fluss's own catalog
        assertThat(output)
                .anyMatch(line -> line.matches("FLUSS_DATABASES \\[.*\\bbeside_db\\b.*]"));
    }

    /** Runs {@link BundleSqlMain} on {@code classPath} and returns what it printed. */
    private static List<String> runProgram(
            String name,
            List<String> classPath,
            Path warehouse,
            String databasePrefix,
            String... extraArgs)
            throws Exception {
        List<String> args = new ArrayList<>();
        args.add(warehouse.toUri().toString());
        args.add(cluster.bootstrapServers());
        args.add(runDir.resolve("savepoints").toUri().toString());
        // its own stream tables: the test's programs share the Fluss cluster
        args.add(databasePrefix);
        args.addAll(Arrays.asList(extraArgs));
        ChildJvm program =
                ChildJvm.start(
                        name,
                        runDir.resolve("logs"),
                        List.of("-Xmx1g", "-XX:+UseSerialGC"),
                        String.join(File.pathSeparator, classPath),
                        Collections.emptyMap(),
                        BundleSqlMain.class.getName(),
                        args);
        Integer exit;
        try {
            exit = program.waitFor(TIMEOUT);
        } finally {
            program.stop(Duration.ofSeconds(5));
        }
        assertThat(exit).as("exit code of %s:%n%s", program, program.logTail(60)).isEqualTo(0);
        return program.output();
    }

    /**
     * Flink's {@code lib/} but the bundle, as Maven resolved it for this module (see its pom): it
     * must hold Paimon's and Hadoop's jars and none of the project's or Fluss's own.
     */
    private static List<String> flinkLib() throws Exception {
        String file = System.getProperty("lakestream.flink-lib.classpath");
        assertThat(file).as("system property lakestream.flink-lib.classpath").isNotNull();
        List<String> jars =
                Arrays.stream(
                                Files.readString(Paths.get(file), StandardCharsets.UTF_8)
                                        .trim()
                                        .split(File.pathSeparator))
                        .collect(Collectors.toList());
        List<String> names =
                jars.stream()
                        .map(jar -> Paths.get(jar).getFileName().toString())
                        .collect(Collectors.toList());
        assertThat(names)
                .anyMatch(n -> n.startsWith("paimon-flink-1.20-"))
                .anyMatch(n -> n.startsWith("hadoop-client-api-"))
                .anyMatch(n -> n.startsWith("hadoop-client-runtime-"))
                .anyMatch(n -> n.startsWith("flink-table-planner-loader-"))
                .noneMatch(n -> n.startsWith("fluss-"))
                .noneMatch(n -> n.startsWith("paimon-flink-lakestream"));
        return jars;
    }

    /** A directory with the program's class only. */
    private static Path programDir() throws Exception {
        Path dir = runDir.resolve("program");
        copyResource(BundleSqlMain.class.getName().replace('.', '/') + ".class", dir);
        return dir;
    }

    private static void copyResource(String name, Path dir) throws Exception {
        URL url = BundleClassPathE2ECase.class.getClassLoader().getResource(name);
        assertThat(url).as(name).isNotNull();
        Path target = dir.resolve(name);
        Files.createDirectories(target.getParent());
        try (InputStream in = url.openStream()) {
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static Map<String, List<Long>> results(List<String> output) {
        Map<String, List<Long>> results = new HashMap<>();
        for (String line : output) {
            if (line.startsWith("RESULT ")) {
                String[] nameAndIds = line.substring("RESULT ".length()).split("=", 2);
                String ids = nameAndIds[1].replace("[", "").replace("]", "").trim();
                results.put(
                        nameAndIds[0],
                        ids.isEmpty()
                                ? List.of()
                                : Arrays.stream(ids.split(","))
                                        .map(id -> Long.parseLong(id.trim()))
                                        .collect(Collectors.toList()));
            }
        }
        return results;
    }

    private static List<Long> sequence(long first, int count) {
        return LongStream.range(first, first + count).boxed().collect(Collectors.toList());
    }
}
