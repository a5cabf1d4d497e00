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

import org.apache.flink.table.api.TableEnvironment;

/**
 * Batch INSERT throughput: {@code rows} rows into a new table of four buckets, append and primary
 * key, and the fixed cost of an INSERT of one row; the whole statement is timed, planning and job
 * included.
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
            }
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
}
