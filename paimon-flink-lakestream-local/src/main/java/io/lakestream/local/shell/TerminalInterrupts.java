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

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Keeps this JVM running when a person types Ctrl-C into the SQL client that shares its terminal:
 * the terminal sends SIGINT to every process of its foreground group, this launcher included, and
 * the client alone should act on it (it cancels the running query). The JDK has no public API for
 * signals; {@code sun.misc.Signal} is the one Flink's own {@code SignalHandler} uses too.
 */
final class TerminalInterrupts {

    private TerminalInterrupts() {}

    static void ignore() {
        Signal.handle(new Signal("INT"), SignalHandler.SIG_IGN);
    }
}
