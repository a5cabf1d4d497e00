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

package io.lakestream.store.memory;

import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.testutils.Await;

import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The process of a {@code memory} store dies: a job writing an append table is cancelled with rows
 * past its last commit readable, and the process's stream tables are gone with it (as in a new
 * process). The job restored from its last checkpoint continues each log at the offsets the
 * snapshots and its state hold and writes the lost rows again from its source: a read while it runs
 * sees the tail, and when it has finished, the union read and Paimon's own read both hold every row
 * exactly once.
 */
@ExtendWith(SharedMiniCluster.class)
class MemoryProcessRestartITCase {

    /** Written at {@link #ROWS_PER_SECOND}: the first job runs for 15 s unless it is stopped. */
    private static final int ROWS = 3000;

    private static final int ROWS_PER_SECOND = 200;

    @TempDir Path warehouse;
    @TempDir Path checkpoints;

    @Test
    void theJobRestoredInANewProcessRebuildsTheTailAndEveryRowIsReadOnce() throws Exception {
        StreamTableEnvironment first = environment(null);
        first.executeSql(
                "CREATE TABLE lake.db.events (id BIGINT, v STRING) WITH ("
                        + "'bucket' = '2', 'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");
        JobClient job = first.executeSql(insert()).getJobClient().orElseThrow();
        Await.until(
                () -> {
                    // Paimon's count first: the union's, taken after it, only grows
                    long paimon = paimonCount();
                    return paimon > 0 && unionCount() >= paimon + 50;
                },
                "a commit, and 50 rows readable past it");
        job.cancel().get(1, TimeUnit.MINUTES);
        long committed = paimonCount();

        // the process dies: its stream tables with it
        MemoryStreamTables.PROCESS.clear();
        assertThat(unionCount()).as("a new process reads what Paimon holds").isEqualTo(committed);

        String checkpoint = latestCheckpoint();
        JobClient restored =
                environment(checkpoint).executeSql(insert()).getJobClient().orElseThrow();
        Await.until(
                () -> {
                    // Paimon's count first: the union's, taken after it, only grows
                    long paimon = paimonCount();
                    return unionCount() > paimon;
                },
                "the restored job's tail is readable before its commits");
        restored.getJobExecutionResult().get(5, TimeUnit.MINUTES);

        List<String> paimon = rows("paimon");
        assertThat(paimon).hasSize(ROWS).doesNotHaveDuplicates();
        assertThat(rows("lake")).containsExactlyInAnyOrderElementsOf(paimon);
    }

    /** The newest checkpoint the cancelled job retained. */
    private String latestCheckpoint() throws IOException {
        try (Stream<Path> files = Files.walk(checkpoints)) {
            return files.filter(p -> p.getFileName().toString().equals("_metadata"))
                    .map(Path::getParent)
                    .max(
                            Comparator.comparingLong(
                                    p -> Long.parseLong(p.getFileName().toString().substring(4))))
                    .orElseThrow()
                    .toUri()
                    .toString();
        }
    }

    private static String insert() {
        return "INSERT INTO lake.db.events SELECT id, v FROM gen";
    }

    private StreamTableEnvironment environment(String restoreFrom) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(1_000);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        tEnv.getConfig().set("state.checkpoints.dir", checkpoints.toUri().toString());
        tEnv.getConfig()
                .set(
                        "execution.checkpointing.externalized-checkpoint-retention",
                        "RETAIN_ON_CANCELLATION");
        if (restoreFrom != null) {
            tEnv.getConfig().set("execution.savepoint.path", restoreFrom);
        }
        createCatalogs(tEnv);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE gen (id BIGINT, v STRING) WITH ('connector' = 'datagen', "
                        + "'rows-per-second' = '"
                        + ROWS_PER_SECOND
                        + "', 'number-of-rows' = '"
                        + ROWS
                        + "', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
                        + "'fields.id.end' = '"
                        + ROWS
                        + "', 'fields.v.length' = '8')");
        return tEnv;
    }

    private void createCatalogs(TableEnvironment tEnv) {
        tEnv.executeSql(
                "CREATE CATALOG lake WITH ('type' = 'paimon-lakestream', 'warehouse' = '"
                        + warehouse.toUri()
                        + "', 'lake-stream.store' = 'memory')");
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        tEnv.executeSql(
                "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                        + warehouse.toUri()
                        + "')");
    }

    private TableEnvironment batch() {
        TableEnvironment tEnv =
                TableEnvironment.create(
                        org.apache.flink.table.api.EnvironmentSettings.inBatchMode());
        tEnv.getConfig().set("parallelism.default", "1");
        createCatalogs(tEnv);
        return tEnv;
    }

    private long unionCount() {
        return count("lake");
    }

    private long paimonCount() {
        return count("paimon");
    }

    private long count(String catalog) {
        List<Row> rows =
                CollectionUtil.iteratorToList(
                        batch().executeSql("SELECT COUNT(*) FROM " + catalog + ".db.events")
                                .collect());
        return (Long) rows.get(0).getField(0);
    }

    private List<String> rows(String catalog) {
        List<String> rows = new ArrayList<>();
        for (Row row :
                CollectionUtil.iteratorToList(
                        batch().executeSql("SELECT id, v FROM " + catalog + ".db.events")
                                .collect())) {
            rows.add(row.toString());
        }
        return rows;
    }
}
