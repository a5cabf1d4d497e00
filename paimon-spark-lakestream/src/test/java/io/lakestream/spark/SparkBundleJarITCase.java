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

package io.lakestream.spark;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jar for Spark ({@code paimon-spark-lakestream-*-bundle.jar}): what it holds, and that Spark
 * reads a lake-stream table with it and nothing else of the project, Paimon or Fluss on its class
 * path.
 */
class SparkBundleJarITCase {

    private static final Path TARGET = Paths.get(System.getProperty("basedir", "."), "target");

    @Test
    void holdsTheCatalogTheStoresAndPaimonWithFlussRelocated() throws Exception {
        try (JarFile jar = new JarFile(bundle().toFile())) {
            List<String> entries =
                    Collections.list(jar.entries()).stream()
                            .map(entry -> entry.getName())
                            .collect(Collectors.toList());
            assertThat(entries)
                    .contains(
                            "io/lakestream/spark/catalog/LakeStreamSparkCatalog.class",
                            "io/lakestream/store/fluss/FlussStreamStoreFactory.class",
                            "io/lakestream/store/memory/MemoryStreamStoreFactory.class",
                            "org/apache/paimon/catalog/Catalog.class")
                    .anyMatch(name -> name.startsWith("io/lakestream/shaded/org/apache/fluss/"))
                    .noneMatch(name -> name.startsWith("org/apache/fluss/"))
                    .noneMatch(name -> name.startsWith("org/apache/spark/"))
                    .noneMatch(name -> name.startsWith("scala/"))
                    .noneMatch(name -> name.startsWith("org/slf4j/"));
            String stores =
                    new String(
                            jar.getInputStream(
                                            jar.getEntry(
                                                    "META-INF/services/"
                                                            + "io.lakestream.store.StreamStoreFactory"))
                                    .readAllBytes(),
                            StandardCharsets.UTF_8);
            assertThat(stores)
                    .contains("io.lakestream.store.memory.MemoryStreamStoreFactory")
                    .contains("io.lakestream.store.fluss.FlussStreamStoreFactory");
        }
    }

    @Test
    void sparkReadsALakeStreamTableWithTheBundleAlone(@TempDir Path dir) throws Exception {
        List<String> classPath = new ArrayList<>();
        // this module's test classes, for the main, and the bundle
        classPath.add(TARGET.resolve("test-classes").toString());
        classPath.add(bundle().toString());
        // Spark and what it depends on: the test class path without the project, Paimon, Fluss
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Paths.get(entry).getFileName().toString();
            if (!entry.endsWith(".jar")
                    || name.startsWith("lakestream-core")
                    || name.startsWith("fluss-")
                    || name.startsWith("paimon-")
                    || name.startsWith("junit")
                    || name.startsWith("curator-test")) {
                continue;
            }
            classPath.add(entry);
        }
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        // Spark's reflection into the JDK on Java 17
        for (String option : System.getProperty("lakestream.test.jvm-options", "").split("\\s+")) {
            if (!option.isBlank()) {
                command.add(option);
            }
        }
        command.add("-cp");
        command.add(String.join(File.pathSeparator, classPath));
        command.add(SparkBundleMain.class.getName());
        command.add(dir.resolve("warehouse").toUri().toString());
        Path out = dir.resolve("main.out");
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        boolean exited = process.waitFor(3, TimeUnit.MINUTES);
        if (!exited) {
            process.destroyForcibly();
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(exited).as(output).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(output).contains("ROW 1:committed", "ROW 2:uncommitted");
    }

    private static Path bundle() throws IOException {
        try (DirectoryStream<Path> jars =
                Files.newDirectoryStream(TARGET, "paimon-spark-lakestream-*-bundle.jar")) {
            for (Path jar : jars) {
                return jar;
            }
        }
        throw new IllegalStateException(
                "No bundle jar in " + TARGET + ": the package phase builds it ('mvn verify')");
    }
}
