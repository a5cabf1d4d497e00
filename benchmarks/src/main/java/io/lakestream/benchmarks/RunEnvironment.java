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

package io.lakestream.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** What a run ran on: the date, cores, JVM and the versions of Flink, Paimon and Fluss. */
final class RunEnvironment {

    private RunEnvironment() {}

    static Map<String, Object> describe() {
        Properties versions = new Properties();
        try (InputStream in =
                RunEnvironment.class.getResourceAsStream("/benchmark-versions.properties")) {
            if (in != null) {
                versions.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        env.put("cores", Runtime.getRuntime().availableProcessors());
        env.put(
                "jvm",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        env.put("max-heap-mb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
        env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        for (String component : new String[] {"project", "flink", "paimon", "fluss"}) {
            env.put(component, versions.getProperty(component, "unknown"));
        }
        return env;
    }
}
