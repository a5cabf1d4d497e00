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

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.time.Duration;
import java.util.List;

/**
 * Freshness: one streaming job writes {@code freshness.rate} rows/s for {@code freshness.seconds}
 * into a lake-stream table and a Paimon table at once (one source, one checkpoint interval of
 * {@code checkpoint-seconds}); a streaming SELECT of each table measures every row's
 * write-to-visible latency, but for the rows of the first five seconds. Paimon's reader looks for
 * new snapshots every 100 ms, so that its figure is the commit's delay and not its polling.
 */
final class FreshnessScenario implements Scenario {

    private static final String TABLE = "freshness";
    private static final int WARM_UP_SECONDS = 5;

    @Override
    public String name() {
        return "freshness";
    }

    @Override
    public void run(Sessions sessions, BenchmarkSizes sizes, Results results) throws Exception {
        Duration interval = Duration.ofSeconds(sizes.checkpointSeconds);
        int rows = sizes.freshnessRate * sizes.freshnessSeconds;
        // the first seconds of a job measure its start (connections, first allocations), not the
        // freshness it keeps: their rows are read but not counted, on both sides
        int warmUpRows =
                sizes.freshnessRate * Math.min(WARM_UP_SECONDS, sizes.freshnessSeconds / 2);
        String figure =
                String.format(
                        "freshness %%s, checkpoint %d s, %,d rows/s",
                        sizes.checkpointSeconds, sizes.freshnessRate);
        for (int round = 1; round <= sizes.rounds; round++) {
            System.out.printf(
                    "freshness: round %d of %d, %d s of writing%n",
                    round, sizes.rounds, sizes.freshnessSeconds);
            String table = TABLE + "_" + round;
            TableEnvironment ddl = sessions.batch();
            for (boolean lakeStream : Sides.order(round)) {
                Sessions.run(
                        ddl,
                        "CREATE TABLE "
                                + Tables.name(lakeStream, table)
                                + " (id BIGINT, written_at TIMESTAMP_LTZ(3)) WITH ("
                                + "'bucket' = '4', 'bucket-key' = 'id'"
                                + (lakeStream ? ", 'lake-stream.enabled' = 'true'" : "")
                                + (lakeStream ? lakeOptions(sizes) : "")
                                + ")");
            }
            try (VisibilityProbe lake =
                            new VisibilityProbe(
                                    sessions.streaming(null),
                                    "SELECT id, written_at, NOW() FROM " + Tables.name(true, table),
                                    rows,
                                    warmUpRows);
                    VisibilityProbe paimon =
                            new VisibilityProbe(
                                    sessions.streaming(null),
                                    "SELECT id, written_at, NOW() FROM "
                                            + Tables.name(false, table)
                                            + " /*+ OPTIONS('continuous.discovery-interval' ="
                                            + " '100 ms') */",
                                    rows,
                                    warmUpRows)) {
                awaitRunning(lake.job());
                awaitRunning(paimon.job());
                StreamExecutionEnvironment env = sessions.streamingEnvironment(interval);
                JobClient writer = startWriter(env, sessions.tables(env), table, sizes, rows);
                try {
                    long deadline =
                            System.nanoTime()
                                    + Duration.ofSeconds(sizes.freshnessSeconds)
                                            .plus(interval.multipliedBy(2))
                                            .plusSeconds(60)
                                            .toNanos();
                    for (boolean lakeStream : new boolean[] {true, false}) {
                        VisibilityProbe probe = lakeStream ? lake : paimon;
                        if (!probe.await(deadline)) {
                            throw new IllegalStateException(
                                    String.format(
                                            "%s read %,d of the %,d rows written in time",
                                            Sides.label(lakeStream), probe.rowsSeen(), rows));
                        }
                        List<Long> latencies = probe.latencies();
                        Sides.record(
                                results,
                                lakeStream,
                                String.format(figure, "p50"),
                                "ms",
                                false,
                                Stats.percentile(latencies, 50));
                        Sides.record(
                                results,
                                lakeStream,
                                String.format(figure, "p99"),
                                "ms",
                                false,
                                Stats.percentile(latencies, 99));
                        writeTrace(probe, lakeStream, round);
                        List<Long> read = probe.readLatencies();
                        for (int percentile : new int[] {50, 99}) {
                            Sides.record(
                                    results,
                                    lakeStream,
                                    String.format(
                                                    figure,
                                                    "p"
                                                            + percentile
                                                            + " at the reading job's source")
                                            + " (without Flink's collect client)",
                                    "ms",
                                    false,
                                    Stats.percentile(read, percentile));
                        }
                    }
                } finally {
                    writer.cancel().get();
                }
            }
        }
    }

    /**
     * Starts the job that writes the rows into both tables, and keeps running after them (so that
     * no end-of-input commit makes Paimon fresher than its checkpoints would).
     */
    private static JobClient startWriter(
            StreamExecutionEnvironment env,
            StreamTableEnvironment tEnv,
            String table,
            BenchmarkSizes sizes,
            int rows) {
        if (BenchmarkSizes.freshnessPacing().equals("even")) {
            // Flink's rate limiter spaces each subtask's rows evenly (it splits the rate among
            // them). The source runs at the job's parallelism, as its SQL stages and the sink do,
            // and on past the measured rows, which keeps the job alive without the union below:
            // an operator of a union has two inputs and chains to neither, so the rows would wait
            // in an exchange of the job's own (Flink's buffer timeout) between their stamp and the
            // sink, which is the job's and not the sink's cost
            int parallelism = env.getParallelism();
            DataGeneratorSource<Long> source =
                    new DataGeneratorSource<>(
                            index -> interleaved(index, Long.MAX_VALUE, parallelism),
                            Long.MAX_VALUE,
                            RateLimiterStrategy.perSecond(sizes.freshnessRate),
                            Types.LONG);
            DataStream<Long> ids =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "fresh");
            tEnv.createTemporaryView("fresh", tEnv.fromDataStream(ids).as("id"));
            tEnv.executeSql(
                    "CREATE TEMPORARY VIEW written AS SELECT id FROM fresh WHERE id < " + rows);
        } else {
            Tables.registerSequence(tEnv, "fresh", 0, rows - 1, sizes.freshnessRate);
            Tables.registerKeepAlive(tEnv, "keep_alive");
            tEnv.executeSql(
                    "CREATE TEMPORARY VIEW written AS SELECT id FROM fresh UNION ALL SELECT id "
                            + "FROM keep_alive WHERE "
                            + Tables.neverMatches());
        }
        StatementSet inserts = tEnv.createStatementSet();
        for (boolean lakeStream : new boolean[] {true, false}) {
            // NOW() is evaluated per row in streaming mode: the moment the row is written
            inserts.addInsertSql(
                    "INSERT INTO "
                            + Tables.name(lakeStream, table)
                            + " SELECT id, NOW() FROM written");
        }
        TableResult result = inserts.execute();
        return result.getJobClient().orElseThrow();
    }

    /**
     * The id of the row of generator index {@code index} of {@code count}: Flink's {@code
     * NumberSequenceSource} gives each of {@code parallelism} subtasks one range of indexes (the
     * first {@code count % parallelism} ranges one longer), read at the same rate; numbering a
     * range's rows {@code k}, {@code k + parallelism}, ... by their subtask {@code k} makes ids
     * grow with time, so that the probes' warm-up (the first ids) is the run's first seconds.
     */
    private static long interleaved(long index, long count, int parallelism) {
        long perSplit = count / parallelism;
        long longer = count % parallelism;
        long inLonger = longer * (perSplit + 1);
        long split;
        long position;
        if (index < inLonger) {
            split = index / (perSplit + 1);
            position = index % (perSplit + 1);
        } else {
            split = longer + (index - inLonger) / perSplit;
            position = (index - inLonger) % perSplit;
        }
        return position * parallelism + split;
    }

    /**
     * With {@code -Dbench.freshness.trace=<prefix>}, writes each measured row of a side and round
     * to {@code <prefix>-<side>-<round>.csv}: when it was written, its latency at the reading job's
     * source and at the client, so that the slow rows can be set against the writer's checkpoints.
     */
    private static void writeTrace(VisibilityProbe probe, boolean lakeStream, int round)
            throws java.io.IOException {
        String prefix = System.getProperty("bench.freshness.trace", "");
        if (prefix.isEmpty()) {
            return;
        }
        java.nio.file.Path file =
                java.nio.file.Paths.get(
                        String.format(
                                "%s-%s-%d.csv",
                                prefix, lakeStream ? "lake-stream" : "paimon", round));
        List<String> lines = new java.util.ArrayList<>();
        lines.add("written_at_ms,source_latency_ms,client_latency_ms");
        for (long[] row : probe.trace()) {
            lines.add(row[0] + "," + row[1] + "," + row[2]);
        }
        java.nio.file.Files.write(file, lines);
        System.out.printf("Wrote %s%n", file);
    }

    /** The lake side's extra table options ({@code bench.lake-options}), as SQL. */
    private static String lakeOptions(BenchmarkSizes sizes) {
        StringBuilder sql = new StringBuilder();
        sizes.lakeOptions.forEach(
                (key, value) ->
                        sql.append(String.format(", '%s' = '%s'", key, value.replace("'", "''"))));
        return sql.toString();
    }

    private static void awaitRunning(JobClient job) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (job.getJobStatus().get() != org.apache.flink.api.common.JobStatus.RUNNING) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("A reading job did not start: " + job.getJobID());
            }
            Thread.sleep(100);
        }
        // its tasks deploy and its source plans after the job switched to running
        Thread.sleep(2_000);
    }
}
