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

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sizes of one side-by-side run, from system properties ({@code -Dbench.rows=2000000} and the
 * like); an unset or empty property takes the default, which completes in about ten minutes on two
 * cores.
 */
public final class BenchmarkSizes {

    final int rounds;
    final long rows;
    final double tailPercent;
    final int partitions;
    final int rowsPerPartition;
    final int freshnessRate;
    final int freshnessSeconds;
    final int checkpointSeconds;
    final Set<String> only;

    /** Table options of the lake-stream side's freshness table, {@code k=v} comma-separated. */
    final Map<String, String> lakeOptions;

    private BenchmarkSizes(
            int rounds,
            long rows,
            double tailPercent,
            int partitions,
            int rowsPerPartition,
            int freshnessRate,
            int freshnessSeconds,
            int checkpointSeconds,
            Set<String> only,
            Map<String, String> lakeOptions) {
        this.rounds = rounds;
        this.rows = rows;
        this.tailPercent = tailPercent;
        this.partitions = partitions;
        this.rowsPerPartition = rowsPerPartition;
        this.freshnessRate = freshnessRate;
        this.freshnessSeconds = freshnessSeconds;
        this.checkpointSeconds = checkpointSeconds;
        this.only = only;
        this.lakeOptions = lakeOptions;
    }

    /** The sizes the system properties set. */
    public static BenchmarkSizes fromSystemProperties() {
        String only = property("bench.only", "");
        return new BenchmarkSizes(
                positive("bench.rounds", 3),
                positive("bench.rows", 500_000),
                Double.parseDouble(property("bench.tail-percent", "1")),
                positive("bench.partitions", 200),
                positive("bench.rows-per-partition", 16),
                positive("bench.freshness.rate", 2_000),
                positive("bench.freshness.seconds", 120),
                positive("bench.checkpoint-seconds", 30),
                only.isEmpty()
                        ? new TreeSet<>()
                        : new TreeSet<>(Arrays.asList(only.trim().split("\\s*,\\s*"))),
                options("bench.lake-options"));
    }

    /** {@code k=v,k2=v2} of the property {@code key}, in order. */
    private static Map<String, String> options(String key) {
        Map<String, String> options = new LinkedHashMap<>();
        String value = property(key, "");
        if (value.isEmpty()) {
            return options;
        }
        for (String option : value.split("\\s*,\\s*")) {
            int eq = option.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException(
                        "-D" + key + "=" + value + ": '" + option + "' is not key=value");
            }
            options.put(option.substring(0, eq).trim(), option.substring(eq + 1).trim());
        }
        return options;
    }

    /** Whether the scenario {@code name} runs: all run unless {@code bench.only} names some. */
    boolean runs(String name) {
        return only.isEmpty() || only.contains(name);
    }

    /**
     * How the freshness writer paces its rows: {@code burst} (Flink SQL's {@code datagen}: each
     * source subtask emits a second's rows at once, then sleeps) or {@code even} (Flink's {@code
     * DataGeneratorSource} with a rate limiter: one row every {@code 1/rate} s, as records of a
     * stream arrive).
     */
    static String freshnessPacing() {
        String pacing = property("bench.freshness.pacing", "burst");
        if (!pacing.equals("burst") && !pacing.equals("even")) {
            throw new IllegalArgumentException(
                    "-Dbench.freshness.pacing=" + pacing + ": 'burst' or 'even'");
        }
        return pacing;
    }

    /**
     * The parallelism of every job of the run ({@code bench.parallelism}, 2 as in the issue's
     * figures): 1 on two cores leaves a core to a task that is not a job's writer or source, such
     * as the store's writer of its own.
     */
    static int parallelism() {
        return positive("bench.parallelism", 2);
    }

    /** The rows of the store tail of the scan scenario. */
    long tailRows() {
        // at least one row of a tail asked for; none at 0: a table with nothing uncommitted
        return tailPercent <= 0 ? 0 : Math.max(1, Math.round(rows * tailPercent / 100));
    }

    /** The sizes by name, for the report. */
    Map<String, Object> asMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("rounds", rounds);
        map.put("rows", rows);
        map.put("tail-percent", tailPercent);
        map.put("partitions", partitions);
        map.put("buckets", 4);
        map.put("rows-per-partition", rowsPerPartition);
        map.put("freshness.rate", freshnessRate);
        map.put("freshness.seconds", freshnessSeconds);
        map.put("checkpoint-seconds", checkpointSeconds);
        map.put("lake-options", lakeOptions);
        map.put("store", property("bench.store", "fluss"));
        map.put("fluss", property("bench.fluss", "in-process"));
        map.put("pin", property("bench.pin", "false"));
        map.put("freshness.pacing", freshnessPacing());
        map.put("parallelism", parallelism());
        return map;
    }

    private static String property(String key, String defaultValue) {
        String value = System.getProperty(key);
        return value == null || value.trim().isEmpty() ? defaultValue : value.trim();
    }

    private static int positive(String key, int defaultValue) {
        String value = property(key, String.valueOf(defaultValue));
        int parsed;
        try {
            parsed = Integer.parseInt(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "-D" + key + "=" + value + " is not a whole number", e);
        }
        if (parsed < 1) {
            throw new IllegalArgumentException("-D" + key + "=" + value + " must be at least 1");
        }
        return parsed;
    }
}
