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

package io.lakestream.examples;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the quickstart's main path end to end, shortened (checkpoints every 5 s, 15 s of writing),
 * on a local Fluss cluster and on the memory store (no cluster), and checks what a person reads:
 * the live table with the three reads side by side, the status table with column names, a verdict
 * from the run's own figures in which lake-stream is the fresher, no escape codes, and nothing left
 * behind.
 */
class SqlQuickstartITCase {

    @ParameterizedTest(name = "on the {0} store")
    @ValueSource(strings = {"fluss", "memory"})
    void showsLakeStreamFresherThanPaimonAloneAndCleansUp(String store, @TempDir Path tempRoot)
            throws Exception {
        SqlQuickstart.Settings settings = new SqlQuickstart.Settings();
        settings.store = store;
        settings.seconds = 15;
        settings.checkpointSeconds = 5;
        settings.tempRoot = tempRoot;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        SqlQuickstart.Figures figures =
                SqlQuickstart.run(settings, out, new SqlQuickstart.Cleanup(out));

        String output = bytes.toString(StandardCharsets.UTF_8);
        List<String> lines = Arrays.asList(output.split("\n"));
        assertThat(output).doesNotContain("\u001B").doesNotContain("Exception");
        String header =
                lines.stream().filter(l -> l.contains("visible (lake-stream)")).findFirst().get();
        assertThat(header)
                .contains(
                        "elapsed",
                        "written",
                        "visible (Spark stream)",
                        "visible (Paimon alone)",
                        "p50/p99 lake-stream",
                        "p50/p99 Spark stream",
                        "p50/p99 Paimon alone");
        // one live row every two seconds, each starting with its elapsed seconds
        List<String> liveRows =
                lines.stream()
                        .filter(l -> l.matches("\\s+\\d+ s\\s+\\d+\\s+\\d+\\s+\\d+\\s+.*"))
                        .collect(Collectors.toList());
        assertThat(liveRows).hasSizeGreaterThanOrEqualTo(5);
        assertThat(output).contains("partition", "bucket", "tiered_offset");

        // every read saw the new rows, and lake-stream saw them sooner, by the run's own figures
        assertThat(figures.lakeStreamMillis).isNotEmpty();
        assertThat(figures.paimonMillis).isNotEmpty();
        assertThat(figures.sparkMillis).isNotEmpty();
        assertThat(SqlQuickstart.percentile(figures.lakeStreamMillis, 50))
                .isLessThan(SqlQuickstart.percentile(figures.paimonMillis, 50));
        // Spark's stream of the same table reads the store too: fresher than Paimon alone
        assertThat(SqlQuickstart.percentile(figures.sparkMillis, 50))
                .isLessThan(SqlQuickstart.percentile(figures.paimonMillis, 50));
        assertThat(lines)
                .anySatisfy(
                        l ->
                                assertThat(l)
                                        .startsWith(
                                                "Verdict: lake-stream made rows readable in p50")
                                        .contains("Spark's stream: p50")
                                        .contains("Paimon alone in p50")
                                        .contains("fresher"));

        // the temporary warehouse is gone
        try (Stream<Path> left = Files.list(tempRoot)) {
            assertThat(left).isEmpty();
        }
    }
}
