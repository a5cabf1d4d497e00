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
 * Batch reads with a store tail: a lake-stream append table with {@code rows} rows, of which {@code
 * tail-percent} are in the stream store only, against a Paimon table with the same rows all
 * committed. Full scan (into a blackhole sink) and COUNT(*), whole statement including planning;
 * both counts are checked against {@code rows}.
 */
final class TailScanScenario implements Scenario {

    private static final String TABLE = "scan";

    @Override
    public String name() {
        return "scan";
    }

    @Override
    public void run(Sessions sessions, BenchmarkSizes sizes, Results results) throws Exception {
        long tail = sizes.tailRows();
        long committed = sizes.rows - tail;
        System.out.printf(
                "scan: writing %,d rows, %,d of them as the store tail%n", sizes.rows, tail);
        TableEnvironment setup = sessions.batch();
        Tables.registerSequence(setup, "committed", 0, committed - 1, 0);
        for (boolean lakeStream : Sides.order(1)) {
            Tables.create(setup, lakeStream, TABLE, false, false);
            Sessions.run(setup, Tables.insert(lakeStream, TABLE, "committed", 0));
        }
        if (tail > 0) {
            Tables.registerSequence(setup, "tail", committed, sizes.rows - 1, 0);
            StoreTail.write(sessions, TABLE, committed, sizes.rows - 1);
            Sessions.run(setup, Tables.insert(false, TABLE, "tail", 0));
        }

        String percent =
                tail == 0
                        ? "nothing uncommitted"
                        : String.format("%s%% store tail", sizes.tailPercent);
        for (int round = 1; round <= sizes.rounds; round++) {
            System.out.printf("scan: round %d of %d%n", round, sizes.rounds);
            TableEnvironment tEnv = sessions.batch();
            Tables.registerBlackhole(tEnv, "blackhole");
            for (boolean lakeStream : Sides.order(round)) {
                double seconds =
                        Sessions.timeSeconds(
                                tEnv,
                                "INSERT INTO blackhole SELECT * FROM "
                                        + Tables.name(lakeStream, TABLE));
                Sides.record(
                        results,
                        lakeStream,
                        String.format(
                                "batch full scan, %,d rows, append, %s (Paimon: all committed)",
                                sizes.rows, percent),
                        "s",
                        false,
                        seconds);
            }
            for (boolean lakeStream : Sides.order(round)) {
                long start = System.nanoTime();
                long count =
                        Sessions.single(
                                tEnv, "SELECT COUNT(*) FROM " + Tables.name(lakeStream, TABLE));
                double seconds = (System.nanoTime() - start) / 1e9;
                Counts.check(Sides.label(lakeStream), TABLE, sizes.rows, count);
                Sides.record(
                        results,
                        lakeStream,
                        String.format(
                                "batch COUNT(*), %,d rows, append, %s (Paimon: all committed)",
                                sizes.rows, percent),
                        "s",
                        false,
                        seconds);
            }
        }
    }
}
