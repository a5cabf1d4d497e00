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

package io.lakestream.flink.source;

import io.lakestream.flink.source.SourceTestTables.Kind;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.testutils.Await;

import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.lakestream.flink.source.SourceTestTables.paimonRead;
import static io.lakestream.flink.source.SourceTestTables.storeOptions;
import static io.lakestream.flink.source.SourceTestTables.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A restore of an unbounded read whose lake parts were read, on a table of 200 partitions: no lake
 * row is emitted twice and the store's new records still arrive, each once; what the read returned
 * equals Paimon's own read once everything is committed. (That the restored splits read no lake row
 * at all, not even to skip it, is counted by {@code lakeRecordsRead} and checked by {@code
 * LakeStreamSplitReaderTest#restoredSplitsAreSubscribedWithOneCallAndReadNoLakeRow}.)
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class LakeStreamSourceRestoreITCase {

    private static final int PARTITIONS = 200;

    @TempDir static java.nio.file.Path warehouse;

    private static SourceTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SourceTestTables(warehouse, "source_restore_it");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    @Test
    void aRestoreAfterTheLakePartsWereReadEmitsNoLakeRowAgain(
            @TempDir java.nio.file.Path savepoints) throws Exception {
        FileStoreTable table = tables.createTable("restore_200_partitions", Kind.APPEND);
        List<Row> committed = new ArrayList<>();
        for (int dt = 1; dt <= PARTITIONS; dt++) {
            for (int id = 0; id < 4; id++) {
                committed.add(Row.ofKind(RowKind.INSERT, dt, id, (long) id, "a"));
            }
        }
        write(table, committed);
        CommittedRows.clear();

        JobClient first = startReader(table, null);
        Await.until(
                () -> CommittedRows.published().size() >= committed.size(),
                "the lake parts of all partitions are read and published");
        // a checkpoint after the last lake row: the splits' state has dropped their lake parts
        CommittedRows.awaitMoreCheckpoints("", 2);
        // read while the job runs: the shared cluster keeps no metrics of ended jobs
        assertThat(lakeRecordsRead(first))
                .as("lake rows the first reader read")
                .isGreaterThanOrEqualTo(committed.size());
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(1, TimeUnit.MINUTES);

        JobClient second = startReader(table, savepoint);
        try {
            List<Row> later = new ArrayList<>();
            for (int dt = 1; dt <= PARTITIONS; dt += 10) {
                later.add(Row.ofKind(RowKind.INSERT, dt, 100, 100L, "b"));
            }
            tables.writeThroughTheStore(table, later);
            Await.until(
                    () -> CommittedRows.published().size() >= committed.size() + later.size(),
                    "the store's new records are published");
            CommittedRows.awaitMoreCheckpoints("", 3);
            List<String> paimon = paimonRead(tables.table(table.name()));
            assertThat(paimon).hasSize(committed.size() + later.size());
            assertThat(CommittedRows.published()).containsExactlyInAnyOrderElementsOf(paimon);
            // the evidence that no finished lake part was scanned again: a rescan would skip the
            // rows it emitted before, so the output alone cannot show it
            assertThat(lakeRecordsRead(second))
                    .as("lake rows read again after the restore")
                    .isZero();
        } finally {
            second.cancel().get();
        }
    }

    /** The lake rows the source readers of {@code job} read, from the shared cluster's metrics. */
    private static long lakeRecordsRead(JobClient job) {
        Map<String, Metric> counters =
                SharedMiniCluster.metrics().findMetrics(job.getJobID(), "lakeRecordsRead");
        assertThat(counters).as("lakeRecordsRead counters of %s", job.getJobID()).isNotEmpty();
        long read = 0;
        for (Metric counter : counters.values()) {
            read += ((Counter) counter).getCount();
        }
        return read;
    }

    private static JobClient startReader(FileStoreTable table, @Nullable String savepoint)
            throws Exception {
        Configuration conf = new Configuration();
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(200);
        LakeStreamSource source =
                LakeStreamSource.builder().setTable(table).setOptions(storeOptions()).build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "read")
                .uid("lake-stream-source")
                .addSink(new CommittedRows(SourceTestTables::render))
                .uid("committed-rows")
                .setParallelism(1);
        return env.executeAsync("restore reader" + (savepoint == null ? "" : " (restored)"));
    }
}
