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

import io.lakestream.store.fluss.FlussStoreOptions;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.writer.AppendWriter;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.metadata.DatabaseDescriptor;
import org.apache.fluss.metadata.LogFormat;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.row.TimestampNtz;
import org.apache.fluss.types.DataTypes;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The same rows as a batch INSERT of the insert pair, written with Fluss's own client alone: no
 * Flink, no Paimon, no lake-stream code. A dual write does Paimon's write and the store's on the
 * same cores, so the rate at which Fluss alone takes these rows bounds what a dual write through
 * Fluss can reach: if Paimon alone writes {@code P} rows/s and Fluss alone {@code F}, a dual write
 * that keeps both busy on the same cores needs about {@code 1/P + 1/F} seconds a row, so at most
 * {@code F / (P + F)} of Paimon's rate.
 *
 * <p>The table is the store's: a log table in Fluss's indexed format with the benchmark's columns
 * (and a row-kind column for a primary-key table's stream table), four buckets keyed by {@code id}.
 * As many threads as the jobs' parallelism each append their share of the rows with Fluss's {@code
 * AppendWriter}, at the writer batch timeout the store sets, and flush; the time runs from the
 * first append to the last flush.
 */
final class FlussAloneInsert {

    private static final String DATABASE = "bench_fluss_alone";

    private static final LocalDateTime EPOCH = LocalDateTime.of(2026, 1, 1, 0, 0);

    private FlussAloneInsert() {}

    /** Rows per second at which Fluss's client alone appends {@code rows} rows to a new table. */
    static double rowsPerSecond(
            String bootstrapServers, String table, long rows, int threads, boolean rowKind)
            throws Exception {
        Configuration conf = new Configuration();
        conf.setString(ConfigOptions.BOOTSTRAP_SERVERS.key(), bootstrapServers);
        conf.set(
                ConfigOptions.CLIENT_WRITER_BATCH_TIMEOUT,
                FlussStoreOptions.CLIENT_WRITER_BATCH_TIMEOUT.defaultValue());
        TablePath path = TablePath.of(DATABASE, table);
        ExecutorService writers = Executors.newFixedThreadPool(threads);
        try (Connection connection = ConnectionFactory.createConnection(conf);
                Admin admin = connection.getAdmin()) {
            admin.createDatabase(DATABASE, DatabaseDescriptor.EMPTY, true).get();
            admin.createTable(path, descriptor(rowKind), false).get();
            try (Table fluss = connection.getTable(path)) {
                long start = System.nanoTime();
                List<Future<?>> written = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int share = t;
                    written.add(
                            writers.submit(
                                    () -> {
                                        append(fluss, share, threads, rows, rowKind);
                                        return null;
                                    }));
                }
                for (Future<?> future : written) {
                    future.get();
                }
                return rows / ((System.nanoTime() - start) / 1e9);
            } finally {
                admin.dropTable(path, true).get();
            }
        } finally {
            writers.shutdownNow();
        }
    }

    private static TableDescriptor descriptor(boolean rowKind) {
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("id", DataTypes.BIGINT())
                        .column("name", DataTypes.STRING())
                        .column("amount", DataTypes.DOUBLE())
                        .column("ts", DataTypes.TIMESTAMP(3));
        if (rowKind) {
            schema.column("row_kind", DataTypes.TINYINT().copy(false));
        }
        return TableDescriptor.builder()
                .schema(schema.build())
                .distributedBy(Tables.BUCKETS, "id")
                .property(ConfigOptions.TABLE_LOG_FORMAT, LogFormat.INDEXED)
                .build();
    }

    /** Appends the ids {@code share}, {@code share + threads}, ... below {@code rows}. */
    private static void append(Table table, int share, int threads, long rows, boolean rowKind)
            throws Exception {
        AppendWriter writer = table.newAppend().createWriter();
        for (long id = share; id < rows; id += threads) {
            // the values of Tables' SELECT, so that both sides write the same rows
            GenericRow row = new GenericRow(rowKind ? 5 : 4);
            row.setField(0, id);
            row.setField(1, BinaryString.fromString("customer-" + id % 1000));
            row.setField(2, (double) (id % 100000) / 100);
            row.setField(3, TimestampNtz.fromLocalDateTime(EPOCH.plusSeconds(id % 86400)));
            if (rowKind) {
                row.setField(4, (byte) 0);
            }
            writer.append(row);
        }
        writer.flush();
    }
}
