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

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the bundle jar for Flink's {@code lib/} holds: the project's classes where they are, the
 * Fluss client relocated so that it cannot meet Fluss's own Flink connector, the service files
 * Flink, Paimon, the project and Fluss load their plugins from, and nothing the user's Flink,
 * Paimon and Hadoop jars provide.
 */
class BundleJarContentITCase {

    private static final String SHADED = "io/lakestream/shaded/";

    /** A reference to a Fluss class that relocation missed, in any class of the jar. */
    private static final Pattern UNRELOCATED_FLUSS =
            Pattern.compile("(?<!" + Pattern.quote(SHADED) + ")org/apache/fluss/");

    /**
     * A method descriptor such as {@code (Lorg/apache/fluss/row/InternalRow;I)V}. Relocation
     * rewrites descriptors where the bytecode links, but not the ones a serializable lambda's
     * {@code $deserializeLambda$} compares as plain strings: Fluss's field getters and writers
     * (which the project creates where it uses them, never Java-serializes) keep those.
     */
    private static final Pattern LAMBDA_DESCRIPTOR =
            Pattern.compile("\\([\\[\\w/$;]*\\)[\\[\\w/$;]+");

    private static Set<String> entries;

    @BeforeAll
    static void readEntries() throws IOException {
        try (JarFile jar = new JarFile(BundleJar.path().toFile())) {
            entries =
                    jar.stream()
                            .map(JarEntry::getName)
                            .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void holdsTheProjectAndTheRelocatedFlussClient() {
        assertThat(entries)
                .contains(
                        "io/lakestream/flink/catalog/LakeStreamCatalogFactory.class",
                        "io/lakestream/store/fluss/FlussStreamStoreFactory.class",
                        SHADED + "org/apache/fluss/client/ConnectionFactory.class",
                        SHADED + "org/apache/fluss/client/FlussConnection.class",
                        SHADED
                                + "org/apache/fluss/shaded/arrow/org/apache/arrow/vector/types/pojo/Schema.class",
                        SHADED + "org/apache/commons/lang3/StringUtils.class",
                        // its epoll library renamed with the package, as netty looks it up
                        "META-INF/native/libio_lakestream_shaded_org_apache_fluss_shaded_netty4_"
                                + "netty_transport_native_epoll_x86_64.so",
                        // zstd-jni stays: its native library binds to its class names
                        "com/github/luben/zstd/Zstd.class",
                        "META-INF/LICENSE",
                        "META-INF/NOTICE");
    }

    @Test
    void holdsNothingTheUsersLibProvidesOrThatWouldShadowIt() {
        assertThat(entries)
                .noneMatch(e -> e.startsWith("org/apache/fluss/"))
                .noneMatch(e -> e.startsWith("META-INF/native/liborg_apache_fluss"))
                .noneMatch(e -> e.startsWith("org/apache/flink/"))
                .noneMatch(e -> e.startsWith("org/apache/paimon/"))
                .noneMatch(e -> e.startsWith("org/apache/hadoop/"))
                .noneMatch(e -> e.startsWith("org/slf4j/"))
                .noneMatch(e -> e.startsWith("org/apache/logging/"))
                .noneMatch(e -> e.startsWith("org/apache/log4j/"))
                .noneMatch(e -> e.startsWith("org/apache/commons/"))
                .noneMatch(e -> e.startsWith("net/jpountz/"))
                .noneMatch(e -> e.startsWith("javax/"))
                // frocksdbjni 6.20 would shadow the RocksDB state backend's 8.x in flink-dist
                .noneMatch(e -> e.startsWith("org/rocksdb/"))
                .noneMatch(e -> e.contains("rocksdbjni"));
    }

    @Test
    void everyClassReferencesFlussRelocated() throws IOException {
        List<String> unrelocated = new ArrayList<>();
        try (JarFile jar = new JarFile(BundleJar.path().toFile())) {
            for (String name : entries) {
                if (name.endsWith(".class")) {
                    // class files hold names as modified UTF-8, which Latin-1 maps byte for byte
                    String bytes = new String(read(jar, name), StandardCharsets.ISO_8859_1);
                    if (name.startsWith(SHADED) && bytes.contains("$deserializeLambda$")) {
                        bytes = LAMBDA_DESCRIPTOR.matcher(bytes).replaceAll("");
                    }
                    if (UNRELOCATED_FLUSS.matcher(bytes).find()) {
                        unrelocated.add(name);
                    }
                }
            }
        }
        assertThat(unrelocated).isEmpty();
        // the Fluss internal API the writer uses is reached through its relocated name
        try (JarFile jar = new JarFile(BundleJar.path().toFile())) {
            assertThat(
                            new String(
                                    read(jar, "io/lakestream/store/fluss/FlussStreamWriter.class"),
                                    StandardCharsets.ISO_8859_1))
                    .contains(SHADED + "org/apache/fluss/client/FlussConnection")
                    .contains("getOrCreateWriterClient");
        }
    }

    @Test
    void serviceFilesListTheFactoriesAndEveryEntryIsInTheJar() throws IOException {
        assertThat(services("org.apache.flink.table.factories.Factory"))
                .containsExactly("io.lakestream.flink.catalog.LakeStreamCatalogFactory");
        // both stores: the bundle merges the service files of the connector and the Fluss store
        assertThat(services("io.lakestream.store.StreamStoreFactory"))
                .containsExactlyInAnyOrder(
                        "io.lakestream.store.memory.MemoryStreamStoreFactory",
                        "io.lakestream.store.fluss.FlussStreamStoreFactory");
        assertThat(services("org.apache.paimon.factories.Factory"))
                .containsExactlyInAnyOrder(
                        "io.lakestream.flink.procedure.EnableLakeStreamProcedure",
                        "io.lakestream.flink.procedure.DisableLakeStreamProcedure",
                        "io.lakestream.flink.procedure.LakeStreamStatusProcedure");
        // Fluss's own plugins, renamed and listed with their relocated names
        String fluss = SHADED.replace('/', '.') + "org.apache.fluss.";
        assertThat(services(fluss + "security.auth.AuthenticationPlugin"))
                .contains(fluss + "security.auth.PlainTextAuthenticationPlugin");
        assertThat(services(fluss + "metrics.reporter.MetricReporterPlugin"))
                .contains(fluss + "metrics.jmx.JMXReporterPlugin");

        List<String> services =
                entries.stream()
                        .filter(e -> e.startsWith("META-INF/services/") && !e.endsWith("/"))
                        .collect(Collectors.toList());
        assertThat(services).noneMatch(s -> s.startsWith("META-INF/services/org.apache.fluss."));
        for (String service : services) {
            for (String implementation :
                    services(service.substring("META-INF/services/".length()))) {
                assertThat(entries)
                        .as("%s lists %s", service, implementation)
                        .contains(implementation.replace('.', '/') + ".class");
            }
        }
    }

    /**
     * Fluss's netty finds its epoll library under the relocated name, so the client keeps the
     * transport it has with the thin jars (without the renaming it falls back to NIO).
     */
    @Test
    void relocatedNettyLoadsItsEpollLibrary() throws Exception {
        // the native libraries carry the relocated package in their names, for every platform
        for (String arch : new String[] {"x86_64", "aarch_64"}) {
            assertThat(entries)
                    .contains(
                            "META-INF/native/lib"
                                    + SHADED.replace('/', '_')
                                    + "org_apache_fluss_shaded_netty4_netty_transport_native_epoll_"
                                    + arch
                                    + ".so");
        }
        boolean linuxX86 =
                System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
                        && System.getProperty("os.arch").matches("amd64|x86_64");
        if (!linuxX86) {
            // epoll loads on Linux only; this machine checks what it can, the names above
            return;
        }
        try (URLClassLoader bundleOnly =
                new URLClassLoader(
                        new URL[] {BundleJar.path().toUri().toURL()},
                        ClassLoader.getPlatformClassLoader())) {
            Class<?> epoll =
                    Class.forName(
                            SHADED.replace('/', '.')
                                    + "org.apache.fluss.shaded.netty4.io.netty.channel.epoll.Epoll",
                            true,
                            bundleOnly);
            assertThat(epoll.getMethod("unavailabilityCause").invoke(null)).isNull();
            assertThat(epoll.getMethod("isAvailable").invoke(null)).isEqualTo(true);
        }
    }

    private static List<String> services(String service) throws IOException {
        try (JarFile jar = new JarFile(BundleJar.path().toFile())) {
            String name = "META-INF/services/" + service;
            assertThat(entries).as("service file").contains(name);
            return Arrays.stream(new String(read(jar, name), StandardCharsets.UTF_8).split("\n"))
                    .map(String::trim)
                    .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .collect(Collectors.toList());
        }
    }

    private static byte[] read(JarFile jar, String name) throws IOException {
        try (InputStream in = jar.getInputStream(jar.getEntry(name))) {
            return in.readAllBytes();
        }
    }
}
