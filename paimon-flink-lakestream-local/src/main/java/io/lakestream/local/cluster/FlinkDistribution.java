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

/**
 * The jars of a Flink installation as the end-to-end tests assemble it without flink-dist (which is
 * not published): class paths that Maven resolved into {@code target/flink-classpath/} (see the
 * dependency plugin in this module's pom), one file each.
 *
 * <ul>
 *   <li>{@code flink-dist.classpath}: what flink-dist puts into Flink's {@code lib/};
 *   <li>{@code user-lib.classpath}: the jars {@code docs/deploy.md} tells users to add to {@code
 *       lib/} for lake-stream mode: the bundle jar, Paimon's {@code paimon-flink-1.20} and Hadoop's
 *       client. The pom's {@code flink-user-lib-classpath} execution is the one place that lists
 *       them;
 *   <li>{@code sql-client.classpath}: Flink's SQL client with its gateway and {@code flink-python}
 *       (flink-dist's {@code opt/}).
 * </ul>
 */
public final class FlinkDistribution {

    private FlinkDistribution() {}

    /** The class path of a JobManager or TaskManager: Flink's {@code lib/} with the user's jars. */
    public static String lib() throws IOException {
        return join(read("flink-dist.classpath"), read("user-lib.classpath"));
    }

    /** The class path of the SQL client: Flink's {@code lib/} and the SQL client's jars. */
    public static String sqlClient() throws IOException {
        return join(lib(), read("sql-client.classpath"));
    }

    /**
     * The system property naming the directory of the class path files; by default {@code
     * target/flink-classpath} of the module in the working directory (Maven's {@code basedir}).
     */
    public static final String DIRECTORY_PROPERTY = "lakestream.flink-classpath.dir";

    private static String read(String name) throws IOException {
        String dir = System.getProperty(DIRECTORY_PROPERTY);
        Path file =
                dir == null
                        ? Paths.get(
                                System.getProperty("basedir", "."),
                                "target",
                                "flink-classpath",
                                name)
                        : Paths.get(dir, name);
        if (!Files.exists(file)) {
            throw new IllegalStateException(
                    file
                            + " is missing: the Maven build of the module writes it (build with "
                            + "'mvn install -DskipTests' first)");
        }
        String classPath = Files.readString(file, StandardCharsets.UTF_8).trim();
        if (classPath.isEmpty()) {
            throw new IllegalStateException(file + " lists no jar");
        }
        return classPath;
    }

    private static String join(String first, String second) {
        return first + File.pathSeparator + second;
    }
}
