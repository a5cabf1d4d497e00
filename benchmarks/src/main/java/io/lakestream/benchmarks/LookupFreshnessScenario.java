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

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.time.Duration;

/**
 * Lookup freshness: one streaming job writes ids at {@code freshness.rate} rows/s into a
 * lake-stream primary-key table and a Paimon one at once (checkpoint every {@code
 * checkpoint-seconds}); a probing job looks up, every 10 ms, the id written 25 ms, 50 ms, ... 300 s
 * before in each table ({@link LagProbes}), with Paimon's lookup refreshing every 100 ms. The
 * figures: the shortest lag at which half, and 99%, of the probes find their row, and the share of
 * probes that find a row written one second before. The run writes for {@code freshness.seconds},
 * and at least two and a half checkpoint intervals, so that Paimon's side sees commits.
 */
final class LookupFreshnessScenario implements Scenario {

    private static final String TABLE = "lookup_dim";
    private static final int WARM_UP_SECONDS = 10;

    @Override
    public String name() {
        return "lookup";
    }

    @Override
    public void run(Sessions sessions, BenchmarkSizes sizes, Results results) throws Exception {
        Duration interval = Duration.ofSeconds(sizes.checkpointSeconds);
        int seconds = Math.max(sizes.freshnessSeconds, sizes.checkpointSeconds * 5 / 2);
        int rate = Math.min(sizes.freshnessRate, 1_000);
        int rows = rate * seconds;
        String figure = "lookup join freshness %s, checkpoint " + sizes.checkpointSeconds + " s";
        for (int round = 1; round <= sizes.rounds; round++) {
            System.out.printf(
                    "lookup: round %d of %d, %d s of writing at %d rows/s%n",
                    round, sizes.rounds, seconds, rate);
            String table = TABLE + "_" + round;
            TableEnvironment ddl = sessions.batch();
            for (boolean lakeStream : Sides.order(round)) {
                Sessions.run(
                        ddl,
                        "CREATE TABLE "
                                + Tables.name(lakeStream, table)
                                + " (id BIGINT, written_at TIMESTAMP_LTZ(3),"
                                + " PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4'"
                                + (lakeStream ? ", 'lake-stream.enabled' = 'true'" : "")
                                + ")");
            }
            StreamExecutionEnvironment writing = sessions.streamingEnvironment(interval);
            JobClient writer = startWriter(writing, sessions.tables(writing), table, rows, rate);
            try {
                long[][] counts = probe(sessions, table, rate * WARM_UP_SECONDS, rows);
                for (boolean lakeStream : new boolean[] {true, false}) {
                    long[] probes = counts[lakeStream ? 0 : 1];
                    long[] found = counts[lakeStream ? 2 : 3];
                    Sides.record(
                            results,
                            lakeStream,
                            String.format(figure, "p50 (shortest lag at which half find it)"),
                            "ms",
                            false,
                            lagFinding(probes, found, 0.5));
                    Sides.record(
                            results,
                            lakeStream,
                            String.format(figure, "p99 (shortest lag at which 99% find it)"),
                            "ms",
                            false,
                            lagFinding(probes, found, 0.99));
                    int oneSecond = indexOf(1_000);
                    Sides.record(
                            results,
                            lakeStream,
                            String.format(figure, "probes finding a row written 1 s before"),
                            "%",
                            true,
                            probes[oneSecond] == 0
                                    ? 0
                                    : 100.0 * found[oneSecond] / probes[oneSecond]);
                }
            } finally {
                writer.cancel().get();
            }
        }
    }

    /**
     * Runs the probing job to the end of writing: per lag of {@link LagProbes#LAGS_MS}, the probes
     * and the probes that found their row, of the lake-stream table then of Paimon's.
     */
    private static long[][] probe(Sessions sessions, String table, int warmUpRows, int rows)
            throws Exception {
        StreamExecutionEnvironment env = sessions.streamingEnvironment(null);
        StreamTableEnvironment tEnv = sessions.tables(env);
        DataStream<Row> probes =
                env.addSource(
                                new LagProbes(warmUpRows, rows),
                                "lag probes",
                                new RowTypeInfo(Types.LONG, Types.LONG))
                        .setParallelism(1);
        tEnv.createTemporaryView(
                "probes",
                tEnv.fromDataStream(
                        probes,
                        Schema.newBuilder()
                                .column("f0", "BIGINT")
                                .column("f1", "BIGINT")
                                .columnByExpression("pt", "PROCTIME()")
                                .build()));
        String query =
                "SELECT 0, p.f1, d.id IS NOT NULL FROM probes AS p LEFT JOIN "
                        + Tables.name(true, table)
                        + " FOR SYSTEM_TIME AS OF p.pt AS d ON p.f0 = d.id"
                        + " UNION ALL SELECT 1, p.f1, d.id IS NOT NULL FROM probes AS p LEFT JOIN "
                        + Tables.name(false, table)
                        + " /*+ OPTIONS('continuous.discovery-interval' = '100 ms') */"
                        + " FOR SYSTEM_TIME AS OF p.pt AS d ON p.f0 = d.id";
        long[][] counts = new long[4][LagProbes.LAGS_MS.length];
        try (CloseableIterator<Row> it = tEnv.executeSql(query).collect()) {
            while (it.hasNext()) {
                Row row = it.next();
                int side = (Integer) row.getField(0);
                int lag = indexOf((Long) row.getField(1));
                counts[side][lag]++;
                if ((Boolean) row.getField(2)) {
                    counts[side + 2][lag]++;
                }
            }
        }
        return counts;
    }

    /** The shortest lag at which at least {@code share} of the probes found their row. */
    private static double lagFinding(long[] probes, long[] found, double share) {
        for (int i = 0; i < LagProbes.LAGS_MS.length; i++) {
            if (probes[i] > 0 && found[i] >= share * probes[i]) {
                return LagProbes.LAGS_MS[i];
            }
        }
        return Double.NaN;
    }

    private static int indexOf(long lagMs) {
        for (int i = 0; i < LagProbes.LAGS_MS.length; i++) {
            if (LagProbes.LAGS_MS[i] == lagMs) {
                return i;
            }
        }
        throw new IllegalArgumentException("Not a probed lag: " + lagMs);
    }

    /** Starts the job that writes each id, with the time it is written, into both tables. */
    private static JobClient startWriter(
            StreamExecutionEnvironment env,
            StreamTableEnvironment tEnv,
            String table,
            int rows,
            int rate) {
        DataStream<Long> ids =
                env.addSource(WriteSchedule.of(rows, rate), "written ids", Types.LONG)
                        .setParallelism(1);
        tEnv.createTemporaryView("written", tEnv.fromDataStream(ids).as("id"));
        StatementSet inserts = tEnv.createStatementSet();
        for (boolean lakeStream : new boolean[] {true, false}) {
            inserts.addInsertSql(
                    "INSERT INTO "
                            + Tables.name(lakeStream, table)
                            + " SELECT id, NOW() FROM written");
        }
        return inserts.execute().getJobClient().orElseThrow();
    }
}
