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

import java.io.PrintStream;
import java.util.Locale;

/** Prints a step that takes seconds as it starts, and how long it took when it is done. */
final class ShellProgress {

    private final PrintStream out;
    private long startNanos;

    ShellProgress(PrintStream out) {
        this.out = out;
    }

    void start(String step) {
        out.print(step + " ... ");
        out.flush();
        startNanos = System.nanoTime();
    }

    void done(String result) {
        out.printf(
                Locale.ROOT,
                "%.1f s: %s%n",
                (System.nanoTime() - startNanos) / 1_000_000_000.0,
                result);
        out.flush();
    }
}
