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

import java.util.Optional;

/**
 * Many partitions: a batch INSERT of {@code rows-per-partition} rows into each of {@code
 * partitions} new partitions of four buckets, then on that table COUNT(*), the planning of a {@code
 * SELECT *} (EXPLAIN, which builds the source as a submitted statement does), the time to the first
 * row of a {@code SELECT * LIMIT 1} (the job's split planning included), and the sizes of the
 * latest snapshot file and the offsets file.
 */
final class PartitionsScenario implements Scenario {

    @Override
    public String name() {
        return "partitions";
    }

    @Override
    public void run(Sessions sessions, BenchmarkSizes sizes, Results results) throws Exception {
        int partitions = sizes.partitions;
        long rows = (long) partitions * sizes.rowsPerPartition;
        String shape = String.format("%,d partitions x 4 buckets", partitions);
        for (int round = 1; round <= sizes.rounds; round++) {
            System.out.printf("partitions: round %d of %d%n", round, sizes.rounds);
            TableEnvironment tEnv = sessions.batch();
            Tables.registerSequence(tEnv, "gen", 0, rows - 1, 0);
            String table = "partitions_" + round;
            for (boolean lakeStream : Sides.order(round)) {
                Tables.create(tEnv, lakeStream, table, false, true);
                double seconds =
                        Sessions.timeSeconds(
                                tEnv, Tables.insert(lakeStream, table, "gen", partitions));
                Sides.record(
                        results,
                        lakeStream,
                        String.format("writing %,d rows into %,d new partitions", rows, partitions),
                        "s",
                        false,
                        seconds);
            }
            for (boolean lakeStream : Sides.order(round)) {
                String name = Tables.name(lakeStream, table);
                long start = System.nanoTime();
                long count = Sessions.single(tEnv, "SELECT COUNT(*) FROM " + name);
                double seconds = (System.nanoTime() - start) / 1e9;
                Counts.check(Sides.label(lakeStream), table, rows, count);
                Sides.record(results, lakeStream, "COUNT(*) on " + shape, "s", false, seconds);

                start = System.nanoTime();
                tEnv.explainSql("SELECT * FROM " + name);
                Sides.record(
                        results,
                        lakeStream,
                        "planning SELECT * (EXPLAIN) on " + shape,
                        "s",
                        false,
                        (System.nanoTime() - start) / 1e9);

                start = System.nanoTime();
                Sessions.single(tEnv, "SELECT id FROM " + name + " LIMIT 1");
                Sides.record(
                        results,
                        lakeStream,
                        "first row of SELECT * LIMIT 1 on " + shape,
                        "s",
                        false,
                        (System.nanoTime() - start) / 1e9);

                TableFiles files =
                        new TableFiles(sessions.warehouse(), Tables.physical(lakeStream, table));
                Sides.record(
                        results,
                        lakeStream,
                        "latest snapshot file on " + shape,
                        "bytes",
                        false,
                        files.latestSnapshotBytes());
                if (lakeStream) {
                    Optional<Long> offsets = files.newestOffsetsBytes();
                    if (offsets.isPresent()) {
                        results.lakeStream(
                                "offsets file on " + shape, "bytes", false, offsets.get());
                    }
                }
            }
        }
    }
}
