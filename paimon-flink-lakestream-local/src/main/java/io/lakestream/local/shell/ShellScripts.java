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

package io.lakestream.local.shell;

import java.net.URI;
import java.util.Map;

/**
 * The SQL of the shell: the script that creates the sample table, the script that sets up the
 * person's session, and the banner that tells them what to type.
 */
final class ShellScripts {

    /** The sample table, in the database of the same name as its first part. */
    static final String TABLE = "shop.orders";

    /** How many rows the sample table holds before lake-stream mode is turned on. */
    static final int HISTORY_ROWS = 1000;

    private ShellScripts() {}

    /**
     * {@code CREATE CATALOG lake} of the shell's warehouse with the options of its stream store
     * ({@code 'lake-stream.store' = 'memory'}, or the Fluss cluster's bootstrap servers), and its
     * use.
     */
    static String catalog(URI warehouse, Map<String, String> storeOptions) {
        StringBuilder options = new StringBuilder();
        storeOptions.forEach(
                (key, value) -> options.append(String.format(",%n  '%s' = '%s'", key, value)));
        return String.format(
                "CREATE CATALOG lake WITH (%n"
                        + "  'type' = 'paimon-lakestream',%n"
                        + "  'warehouse' = '%s'%s);%n"
                        + "USE CATALOG lake;%n",
                warehouse, options);
    }

    /**
     * Creates the sample table, a plain Paimon table with a primary key and {@value #HISTORY_ROWS}
     * committed rows (order ids 1 to {@value #HISTORY_ROWS}), with lake-stream mode off: the person
     * turns it on in place.
     */
    static String sampleTable(URI warehouse, Map<String, String> storeOptions) {
        return catalog(warehouse, storeOptions)
                + String.format(
                        "CREATE DATABASE shop;%n"
                                + "CREATE TABLE %1$s (%n"
                                + "  order_id BIGINT,%n"
                                + "  amount DECIMAL(10, 2),%n"
                                + "  PRIMARY KEY (order_id) NOT ENFORCED%n"
                                + ") WITH ('bucket' = '2');%n"
                                + "CREATE TEMPORARY TABLE history (%n"
                                + "  order_id BIGINT,%n"
                                + "  amount DECIMAL(10, 2)%n"
                                + ") WITH (%n"
                                + "  'connector' = 'datagen',%n"
                                + "  'number-of-rows' = '%2$d',%n"
                                + "  'fields.order_id.kind' = 'sequence',%n"
                                + "  'fields.order_id.start' = '1',%n"
                                + "  'fields.order_id.end' = '%2$d',%n"
                                + "  'fields.amount.min' = '1',%n"
                                + "  'fields.amount.max' = '100');%n"
                                + "SET 'execution.runtime-mode' = 'batch';%n"
                                + "SET 'table.dml-sync' = 'true';%n"
                                + "INSERT INTO %1$s SELECT * FROM history;%n",
                        TABLE, HISTORY_ROWS);
    }

    /**
     * The person's session: the catalog and database in use, and {@code order_events}, a source of
     * new orders (20 a second, ids from {@value #HISTORY_ROWS} + 1, for almost three hours) for a
     * streaming {@code INSERT}. Flink's datagen holds every id of a sequence in memory up front, so
     * the sequence is kept short.
     */
    static String session(URI warehouse, Map<String, String> storeOptions) {
        return catalog(warehouse, storeOptions)
                + String.format(
                        "USE shop;%n"
                                // Flink starts the first checkpoint at a random moment between
                                // this pause and the interval: not in the first minute, so that
                                // the banner's counts show Paimon alone behind the stream
                                + "SET 'execution.checkpointing.min-pause' = '1 min';%n"
                                + "CREATE TEMPORARY TABLE order_events (%n"
                                + "  order_id BIGINT,%n"
                                + "  amount DECIMAL(10, 2)%n"
                                + ") WITH (%n"
                                + "  'connector' = 'datagen',%n"
                                + "  'rows-per-second' = '20',%n"
                                + "  'fields.order_id.kind' = 'sequence',%n"
                                + "  'fields.order_id.start' = '%d',%n"
                                + "  'fields.order_id.end' = '%d',%n"
                                + "  'fields.amount.min' = '1',%n"
                                + "  'fields.amount.max' = '100');%n",
                        HISTORY_ROWS + 1, HISTORY_ROWS + 200_000);
    }

    /** The statements the banner suggests, one step after another, each with what it does. */
    static String tryThese() {
        return String.join(
                System.lineSeparator(),
                "-- 1. Turn lake-stream mode on in place: the table keeps its history.",
                "ALTER TABLE orders SET ('lake-stream.enabled' = 'true');",
                "-- 2. A streaming INSERT of 20 orders a second that commits to Paimon every",
                "--    5 minutes. The client prints its job id and returns.",
                "SET 'execution.runtime-mode' = 'streaming';",
                "SET 'execution.checkpointing.interval' = '5 min';",
                "INSERT INTO orders SELECT * FROM order_events;",
                "-- 3. Every row within a second, beside what Paimon alone shows.",
                "SET 'execution.runtime-mode' = 'batch';",
                "SELECT COUNT(*) AS all_rows FROM orders;",
                "SELECT COUNT(*) AS committed_rows FROM orders"
                        + " /*+ OPTIONS('lake-stream.read.lake-only' = 'true') */;",
                "-- 4. Where each bucket's records are: committed, readable, uncommitted.",
                "CALL lake.sys.lake_stream_status(`table` => '" + TABLE + "');",
                "-- 5. A streaming query: new orders as they arrive (Ctrl-C stops it). Without",
                "--    checkpoints: with them, Flink's client shows rows only once checkpointed.",
                "RESET 'execution.checkpointing.interval';",
                "SET 'execution.runtime-mode' = 'streaming';",
                "SELECT * FROM orders WHERE order_id > " + HISTORY_ROWS + ";");
    }
}
