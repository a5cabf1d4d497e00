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
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.time.Duration;

/**
 * Leaves rows in the stream store that no Paimon snapshot holds, the way a running streaming INSERT
 * does between two checkpoints: a streaming INSERT whose first checkpoint is an hour away writes
 * them, and is cancelled once the store holds them all.
 */
final class StoreTail {

    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    /** The position of {@code lag_records} in the rows of {@code sys.lake_stream_status}. */
    private static final int LAG_RECORDS = 5;

    private StoreTail() {}

    /** Writes the rows {@code from} to {@code to} (inclusive) of the lake-stream {@code table}. */
    static void write(Sessions sessions, String table, long from, long to) throws Exception {
        StreamTableEnvironment tEnv = sessions.streaming(Duration.ofHours(1));
        Tables.registerSequence(tEnv, "tail", from, to, 0);
        Tables.registerKeepAlive(tEnv, "keep_alive");
        TableResult insert =
                tEnv.executeSql(
                        "INSERT INTO "
                                + Tables.name(true, table)
                                + " "
                                + Tables.select("tail", false, 0)
                                + " UNION ALL "
                                + Tables.select("keep_alive", false, 0)
                                + " WHERE "
                                + Tables.neverMatches());
        try {
            awaitUncommitted(sessions.batch(), table, to - from + 1, insert);
        } finally {
            insert.getJobClient().orElseThrow().cancel().get();
        }
    }

    /** Waits until the store holds {@code rows} rows of {@code table} past its last snapshot. */
    private static void awaitUncommitted(
            TableEnvironment tEnv, String table, long rows, TableResult insert) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        long uncommitted = 0;
        while (System.nanoTime() < deadline) {
            uncommitted = lagRecords(tEnv, table);
            if (uncommitted >= rows) {
                return;
            }
            if (insert.getJobClient()
                    .orElseThrow()
                    .getJobStatus()
                    .get()
                    .isGloballyTerminalState()) {
                throw new IllegalStateException(
                        "The INSERT writing the store tail of " + table + " ended early");
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException(
                String.format(
                        "The store holds %d of the %d tail rows of %s after %s",
                        uncommitted, rows, table, TIMEOUT));
    }

    private static long lagRecords(TableEnvironment tEnv, String table) throws Exception {
        long lag = 0;
        try (CloseableIterator<Row> rows =
                tEnv.executeSql(
                                "CALL lake.sys.lake_stream_status(`table` => '"
                                        + Sessions.DATABASE
                                        + "."
                                        + Tables.physical(true, table)
                                        + "')")
                        .collect()) {
            while (rows.hasNext()) {
                // lag_records: the store's end minus the offset of the latest snapshot
                Object records = rows.next().getField(LAG_RECORDS);
                lag += records == null ? 0 : ((Number) records).longValue();
            }
        }
        return lag;
    }
}
