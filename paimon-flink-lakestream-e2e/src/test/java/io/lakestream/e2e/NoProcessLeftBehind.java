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

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Fails a test class that leaves a child process of the test JVM running after its own cleanup
 * ({@code @AfterAll}), and kills what is left: a server or client started by the class and not
 * stopped would hold ports, memory and CPU for the rest of the build.
 */
public final class NoProcessLeftBehind implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        List<ProcessHandle> left =
                ProcessHandle.current()
                        .descendants()
                        .filter(ProcessHandle::isAlive)
                        .collect(Collectors.toList());
        if (left.isEmpty()) {
            return;
        }
        String described =
                left.stream()
                        .map(
                                process ->
                                        process.pid()
                                                + " "
                                                + process.info()
                                                        .commandLine()
                                                        .map(NoProcessLeftBehind::withoutClassPath)
                                                        .orElse("(command unknown)"))
                        .collect(Collectors.joining(System.lineSeparator()));
        for (ProcessHandle process : left) {
            process.destroyForcibly();
        }
        for (ProcessHandle process : left) {
            process.onExit().get(10, TimeUnit.SECONDS);
        }
        throw new AssertionError(
                String.format(
                        "%s left %d child processes running (now killed):%n%s",
                        context.getDisplayName(), left.size(), described));
    }

    /** The command line without its class path, which is longer than anything else in it. */
    private static String withoutClassPath(String commandLine) {
        return commandLine.replaceAll("-cp \\S+", "-cp ...");
    }
}
