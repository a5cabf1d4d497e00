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

import io.lakestream.examples.TemporaryDirectories;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;

/**
 * Runs every pair of the side-by-side benchmark in one process: an in-process Fluss cluster (or one
 * of OS processes, {@link BenchmarkFluss}; or, with {@code -Dbench.store=memory}, the process-local
 * memory store), one Flink MiniCluster and a local warehouse shared by lake-stream mode and Paimon
 * alone, several rounds each; then prints a table (median and min-max spread per figure, with
 * cores, JVM and versions) and writes it as JSON to {@code -Dbench.output}.
 */
public final class BenchmarkRunner {

    private BenchmarkRunner() {}

    public static void main(String[] args) throws Exception {
        BenchmarkSizes sizes = BenchmarkSizes.fromSystemProperties();
        Path output =
                Paths.get(System.getProperty("bench.output", "benchmark-results.json"))
                        .toAbsolutePath();
        List<Scenario> scenarios =
                Arrays.asList(
                        new FreshnessScenario(),
                        new LookupFreshnessScenario(),
                        new InsertScenario(),
                        new TailScanScenario(),
                        new PartitionsScenario());
        long start = System.nanoTime();
        int exitCode = 0;
        Results results = new Results();
        Path warehouse = Files.createTempDirectory("lake-stream-benchmark-warehouse");
        // -Dbench.store=memory: lake-stream mode on the process-local store, no Fluss cluster
        boolean memory = System.getProperty("bench.store", "fluss").trim().equals("memory");
        try (BenchmarkFluss fluss = memory ? null : BenchmarkFluss.start();
                LocalFlinkCluster flink = LocalFlinkCluster.start()) {
            StringBuilder catalogOptions =
                    new StringBuilder(
                            memory
                                    ? "'lake-stream.store' = 'memory'"
                                    : "'lake-stream.fluss.bootstrap.servers' = '"
                                            + fluss.bootstrapServers()
                                            + "'");
            // -Dbench.lake-options: every lake-stream table's defaults (a store's memory budget,
            // the store writer's placement), besides the freshness table's own options
            sizes.lakeOptions.forEach(
                    (key, value) ->
                            catalogOptions.append(
                                    String.format(", '%s' = '%s'", key, value.replace("'", "''"))));
            Sessions sessions =
                    new Sessions(
                            warehouse,
                            catalogOptions.toString(),
                            memory ? null : fluss.bootstrapServers());
            for (Scenario scenario : scenarios) {
                if (sizes.runs(scenario.name())) {
                    scenario.run(sessions, sizes, results);
                }
            }
        } catch (Throwable t) {
            // the figures so far are still reported: a failed pair says where it failed
            t.printStackTrace(System.out);
            exitCode = 1;
        } finally {
            TemporaryDirectories.delete(warehouse);
        }
        Report report = new Report(RunEnvironment.describe(), sizes.asMap(), results.figures());
        report.printTable(System.out);
        report.writeJson(output);
        System.out.printf(
                "Wrote %s. The run took %.1f minutes.%n",
                output, (System.nanoTime() - start) / 60e9);
        // Flink's and Fluss's non-daemon threads would keep the JVM alive
        System.exit(exitCode);
    }
}
