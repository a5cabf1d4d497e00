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

package io.lakestream.flink.catalog;

import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Measures the fixed cost of a statement: the wall time of a batch {@code INSERT INTO ... VALUES}
 * of one row and of a batch {@code SELECT COUNT(*)} on a small table in lake-stream mode, side by
 * side with the same statements on a plain Paimon table of the same catalog, in one process with
 * the in-process Fluss cluster and MiniCluster. It prints the figures and asserts only the results;
 * its name keeps it out of the default build: run it with {@code
 * -Dtest=StatementFixedCostBenchmark}.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class StatementFixedCostBenchmark {

    private static final int ROUNDS = 5;

    @TempDir static Path warehouse;

    @Test
    void printsTheFixedCostOfAStatementBesidePaimons() {
        TableEnvironment tEnv = new LakeSqlEnvironments(warehouse).batch();
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        tEnv.executeSql(
                "CREATE TABLE lake.db.plain (id INT, name STRING) WITH ('bucket' = '2', "
                        + "'bucket-key' = 'id')");
        tEnv.executeSql(
                "CREATE TABLE lake.db.fresh (id INT, name STRING) WITH ('bucket' = '2', "
                        + "'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");
        // one statement each first: class loading and the first connection are not fixed costs
        insert(tEnv, "lake.db.plain", 0);
        insert(tEnv, "lake.db.fresh", 0);

        List<Long> plainInserts = new ArrayList<>();
        List<Long> freshInserts = new ArrayList<>();
        List<Long> plainCounts = new ArrayList<>();
        List<Long> freshCounts = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            plainInserts.add(insert(tEnv, "lake.db.plain", round));
            freshInserts.add(insert(tEnv, "lake.db.fresh", round));
            plainCounts.add(count(tEnv, "lake.db.plain", round + 1));
            freshCounts.add(count(tEnv, "lake.db.fresh", round + 1));
        }
        System.out.printf(
                "%nFixed cost of a statement, %d rounds, %d cores (median, min-max, ms)%n"
                        + "| statement | lake-stream | Paimon alone | difference |%n"
                        + "| --- | --- | --- | --- |%n%s%s",
                ROUNDS,
                Runtime.getRuntime().availableProcessors(),
                row("batch INSERT INTO ... VALUES (1 row)", freshInserts, plainInserts),
                row("batch SELECT COUNT(*)", freshCounts, plainCounts));
    }

    private static long insert(TableEnvironment tEnv, String table, int id) {
        long start = System.nanoTime();
        try {
            tEnv.executeSql(String.format("INSERT INTO %s VALUES (%d, 'n%d')", table, id, id))
                    .await();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static long count(TableEnvironment tEnv, String table, long expected) {
        long start = System.nanoTime();
        long count = LakeSqlEnvironments.count(tEnv, table);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(count).isEqualTo(expected);
        return millis;
    }

    private static String row(String statement, List<Long> fresh, List<Long> plain) {
        return String.format(
                "| %s | %d (%d-%d) | %d (%d-%d) | %+d |%n",
                statement,
                median(fresh),
                Collections.min(fresh),
                Collections.max(fresh),
                median(plain),
                Collections.min(plain),
                Collections.max(plain),
                median(fresh) - median(plain));
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
