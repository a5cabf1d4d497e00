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

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A running {@code bin/lakestream-sql-shell} driven through its standard input, as a person types:
 * a statement, then what the shell printed until the answer arrives.
 */
final class ShellSession implements AutoCloseable {

    private final Process process;
    private final Writer stdin;
    private final StringBuffer output = new StringBuffer();
    private final Thread pump;

    ShellSession(Process process) {
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        // the client's prompt ends no line: read characters, not lines
        this.pump = new Thread(this::pump, "shell-output");
        pump.setDaemon(true);
        pump.start();
    }

    private void pump() {
        try (Reader reader =
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)) {
            char[] buffer = new char[8192];
            int read;
            while ((read = reader.read(buffer)) >= 0) {
                output.append(buffer, 0, read);
            }
        } catch (IOException e) {
            output.append(System.lineSeparator()).append("(output lost: ").append(e).append(')');
        }
    }

    /** Everything printed so far. */
    String output() {
        return output.toString();
    }

    /** Where the output ends now: what a statement prints starts there. */
    int mark() {
        return output.length();
    }

    /** Types {@code statement} and its end; returns the mark before the answer. */
    int type(String statement) throws IOException {
        int mark = mark();
        stdin.write(statement + ";" + System.lineSeparator());
        stdin.flush();
        return mark;
    }

    /** Closes standard input, as Ctrl-D does on a terminal. */
    void endInput() throws IOException {
        stdin.close();
    }

    /**
     * Waits until {@code text} is printed after {@code mark} and returns the output from the mark
     * on.
     */
    String await(int mark, String text, Duration timeout) throws InterruptedException {
        return await(mark, text, 1, timeout);
    }

    /** Waits until {@code text} is printed {@code times} times after {@code mark}; see above. */
    String await(int mark, String text, int times, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String all = output();
            int found = 0;
            for (int at = all.indexOf(text, mark);
                    at >= 0 && found < times;
                    at = all.indexOf(text, at + 1)) {
                found++;
            }
            if (found == times) {
                return all.substring(mark);
            }
            if (!process.isAlive() && !pump.isAlive()) {
                break;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(
                String.format(
                        "The shell did not print '%s' within %s (%s); it printed:%n%s",
                        text,
                        timeout,
                        process.isAlive() ? "running" : "exited with " + process.exitValue(),
                        output()));
    }

    @Override
    public void close() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor();
        pump.join(5_000);
    }
}
