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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The table and the JSON file of a run. */
class ReportTest {

    @Test
    void printsMedianSpreadAndRatioAndWritesTheRoundsAsJson(@TempDir Path dir) throws Exception {
        Figure figure = new Figure("COUNT(*) \"append\"", "s", false);
        rounds(figure.lakeStream, 0.5, 0.7, 0.6);
        rounds(figure.paimon, 0.3);
        Map<String, Object> environment = new LinkedHashMap<>();
        environment.put("cores", 2);
        environment.put("jvm", "OpenJDK 17");
        Report report =
                new Report(
                        environment,
                        Collections.singletonMap("rows", 1000),
                        Collections.singletonList(figure));

        assertThat(table(report))
                .contains("cores=2, jvm=OpenJDK 17")
                .contains("| COUNT(*) \"append\" (s) | 0.60 [0.50-0.70] | 0.30 [0.30-0.30] | 3 |")
                .contains("0.50x (worse) | - |");

        Path json = dir.resolve("out/results.json");
        report.writeJson(json);
        assertThat(new String(Files.readAllBytes(json), StandardCharsets.UTF_8))
                .contains("\"cores\": 2")
                .contains("\"name\": \"COUNT(*) \\\"append\\\"\"")
                .contains(
                        "\"lakeStream\": {\"median\": 0.6000, \"min\": 0.5000, \"max\": 0.7000,"
                                + " \"rounds\": [0.5000, 0.7000, 0.6000]}")
                .contains("\"ratio\": 0.5000, \"pairedRatio\": null");
    }

    /**
     * Rounds whose two sides drift together: the medians of the sides come from different rounds
     * and say 0.75; each round says lake-stream takes twice Paimon's time or the same, mostly
     * twice.
     */
    @Test
    void pairsTheRoundsOfBothSides() {
        Figure seconds = new Figure("scan", "s", false);
        double[][] rounds = {{0.9, 0.45}, {0.6, 0.6}, {0.3, 0.3}, {0.4, 0.2}, {0.2, 0.1}};
        for (double[] round : rounds) {
            seconds.lakeStream.add(round[0]);
            seconds.paimon.add(round[1]);
        }
        assertThat(seconds.ratio()).isCloseTo(0.3 / 0.4, within(1e-9));
        // the rounds' ratios 0.5, 1, 1, 0.5, 0.5
        assertThat(seconds.pairedRatio()).isEqualTo(0.5);

        Figure rate = new Figure("insert", "rows/s", true);
        rate.lakeStream.add(90.0);
        rate.paimon.add(100.0);
        assertThat(rate.pairedRatio()).isCloseTo(0.9, within(1e-9));
        rate.paimon.add(100.0);
        assertThat(rate.pairedRatio()).as("rounds missing on one side").isNaN();
    }

    /**
     * Paimon alone at 1,000,000 rows/s and the store alone at 500,000: a row costs 1 + 2 µs on the
     * same cores, so a dual write reaches at most a third of Paimon's rate.
     */
    @Test
    void boundsTheDualWriteByTheStoresCostAlone(@TempDir Path dir) throws Exception {
        Figure rate = new Figure("insert", "rows/s", true);
        rounds(rate.lakeStream, 300_000);
        rounds(rate.paimon, 1_000_000);
        rounds(rate.storeAlone, 400_000, 600_000, 500_000);
        assertThat(rate.storeBound()).isCloseTo(1.0 / 3, within(1e-9));

        Figure seconds = new Figure("scan", "s", false);
        seconds.paimon.add(3.0);
        seconds.storeAlone.add(1.0);
        assertThat(seconds.storeBound()).isCloseTo(0.75, within(1e-9));
        seconds.storeAlone.clear();
        assertThat(seconds.storeBound()).as("no store-alone rounds").isNaN();

        Report report =
                new Report(
                        Collections.emptyMap(),
                        Collections.emptyMap(),
                        Collections.singletonList(rate));
        assertThat(table(report)).contains("| 500,000 [400,000-600,000] | 0.33x |");
        Path json = dir.resolve("results.json");
        report.writeJson(json);
        assertThat(new String(Files.readAllBytes(json), StandardCharsets.UTF_8))
                .contains("\"storeBound\": 0.3333");
    }

    private static String table(Report report) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        report.printTable(new PrintStream(bytes, true, "UTF-8"));
        return bytes.toString("UTF-8");
    }

    private static void rounds(List<Double> side, double... values) {
        for (double value : values) {
            side.add(value);
        }
    }
}
