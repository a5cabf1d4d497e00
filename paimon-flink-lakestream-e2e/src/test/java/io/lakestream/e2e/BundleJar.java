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

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Where the bundle jar the build made is: Maven hands its path to the tests (see the pom). */
final class BundleJar {

    static final String PROPERTY = "lakestream.bundle.jar";

    private BundleJar() {}

    static Path path() {
        String path = System.getProperty(PROPERTY);
        if (path == null || path.isEmpty() || path.startsWith("${")) {
            throw new IllegalStateException(
                    "System property "
                            + PROPERTY
                            + " does not name the bundle jar (run the tests through Maven): "
                            + path);
        }
        Path jar = Paths.get(path);
        if (!Files.isRegularFile(jar) || !jar.getFileName().toString().endsWith(".jar")) {
            throw new IllegalStateException(
                    "The bundle jar " + jar + " is not a packaged jar: build it with 'package'.");
        }
        return jar;
    }
}
