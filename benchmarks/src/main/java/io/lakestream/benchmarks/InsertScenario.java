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

import io.lakestream.LakeStreamOptions;

import org.apache.flink.table.api.TableEnvironment;

import java.time.Duration;

/**
 * Batch INSERT throughput: {@code rows} rows into a new table of four buckets, append and primary
 * key, and the fixed cost of an INSERT of one row; the whole statement is timed, planning and job
 * included. On Fluss, each batch figure also has the same rows written by Fluss's own client alone
 * ({@link FlussAloneInsert}), the store's part of a dual write without Flink or Paimon.
 */
final class InsertScenario implements Scenario {

    @Override
    public String name() {
        return "insert";
    }

    @Override
    public void run(Sessions sessions, BenchmarkSizes sizes, Results results) throws Exception {
        for (int round = 1; round <= sizes.rounds; round++) {
            System.out.printf("insert: round %d of %d%n", round, sizes.rounds);
            TableEnvironment tEnv = sessions.batch();
            Tables.registerSequence(tEnv, "gen", 0, sizes.rows - 1, 0);
            for (boolean primaryKey : new boolean[] {false, true}) {
                String figure =
                        String.format(
                                "batch INSERT of %,d rows, %s, 4 buckets",
                                sizes.rows, primaryKey ? "primary key" : "append");
                // alternate which side goes first, so that neither always gets the warmer JVM
                for (boolean lakeStream : Sides.order(round)) {
                    String table = (primaryKey ? "insert_pk_" : "insert_append_") + round;
                    Tables.create(tEnv, lakeStream, table, primaryKey, false);
                    double seconds =
                            Sessions.timeSeconds(tEnv, Tables.insert(lakeStream, table, "gen", 0));
                    Sides.record(results, lakeStream, figure, "rows/s", true, sizes.rows / seconds);
                }
                if (sessions.flussBootstrapServers() != null) {
                    results.storeAlone(
                            figure,
                            "rows/s",
                            true,
                            FlussAloneInsert.rowsPerSecond(
                                    sessions.flussBootstrapServers(),
                                    (primaryKey ? "insert_pk_" : "insert_append_") + round,
                                    sizes.rows,
                                    Sessions.PARALLELISM,
                                    primaryKey));
                }
            }
            streamingInserts(sessions, sizes, results, round);
            String figure = "INSERT of 1 row (the fixed cost)";
            for (boolean lakeStream : Sides.order(round)) {
                String table = "insert_one_" + round;
                Tables.create(tEnv, lakeStream, table, false, false);
                double seconds =
                        Sessions.timeSeconds(
                                tEnv,
                                "INSERT INTO "
                                        + Tables.name(lakeStream, table)
                                        + " VALUES (1, 'one', 1.0, TIMESTAMP '2026-01-01 00:00:00')");
                Sides.record(results, lakeStream, figure, "s", false, seconds);
            }
        }
    }

    /**
     * A streaming INSERT of the same rows into an append table, with the store written from
     * Paimon's writer task (chained, the default) and from a task of its own ahead of it: what the
     * second costs in throughput for what it gives in freshness. Checkpoints every 2 s, so that the
     * job's final checkpoint at the end of its input does not wait for a long interval.
     */
    private static void streamingInserts(
            Sessions sessions, BenchmarkSizes sizes, Results results, int round) throws Exception {
        TableEnvironment tEnv = sessions.streaming(Duration.ofSeconds(2));
        Tables.registerSequence(tEnv, "gen", 0, sizes.rows - 1, 0);
        for (boolean chained : new boolean[] {true, false}) {
            String figure =
                    String.format(
                            "streaming INSERT of %,d rows, append, 4 buckets, store written %s",
                            sizes.rows,
                            chained ? "by Paimon's writer task" : "by a task of its own");
            for (boolean lakeStream : Sides.order(round)) {
                String table = (chained ? "stream_chained_" : "stream_ahead_") + round;
                Tables.create(tEnv, lakeStream, table, false, false);
                String hint =
                        lakeStream
                                ? String.format(
                                        " /*+ OPTIONS('%s' = '%s') */",
                                        LakeStreamOptions.SINK_STORE_WRITER_CHAINING.key(), chained)
                                : "";
                double seconds =
                        Sessions.timeSeconds(
                                tEnv, Tables.insert(lakeStream, table, hint, "gen", 0));
                Sides.record(results, lakeStream, figure, "rows/s", true, sizes.rows / seconds);
            }
        }
    }
}
