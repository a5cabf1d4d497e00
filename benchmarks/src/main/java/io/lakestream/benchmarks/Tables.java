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
 * The benchmark tables and their data. Both sides get the same rows: every column is a function of
 * a sequence number {@code id}, so a lake-stream table and its Paimon-alone twin hold equal data.
 */
final class Tables {

    /** The bucket count of every table, as in the figures. */
    static final int BUCKETS = 4;

    /** The columns other than {@code id} and the partition column, as a function of {@code id}. */
    private static final String VALUES =
            "CONCAT('customer-', CAST(id % 1000 AS STRING)), CAST(id % 100000 AS DOUBLE) / 100, "
                    + "TIMESTAMPADD(SECOND, CAST(id % 86400 AS INT), TIMESTAMP '2026-01-01 00:00:00')";

    /** A rate that never holds a source back. */
    private static final long UNTHROTTLED = 1_000_000_000_000L;

    private static final String COLUMNS = "id BIGINT, name STRING, amount DOUBLE, ts TIMESTAMP(3)";

    private Tables() {}

    /**
     * The full name of the benchmark table {@code name} of one side: in the catalog {@code lake}
     * (in lake-stream mode) or {@code paimon}. The two sides' tables share the warehouse and so
     * have different names.
     */
    static String name(boolean lakeStream, String name) {
        return (lakeStream ? "lake." : "paimon.")
                + Sessions.DATABASE
                + "."
                + physical(lakeStream, name);
    }

    /** The table's name in the warehouse. */
    static String physical(boolean lakeStream, String name) {
        return name + (lakeStream ? "_ls" : "_paimon");
    }

    /**
     * Creates a table of four buckets: keyed by {@code id} when {@code primaryKey}, else an append
     * table bucketed by {@code id}; partitioned by {@code p INT} when {@code partitioned}.
     */
    static void create(
            TableEnvironment tEnv,
            boolean lakeStream,
            String name,
            boolean primaryKey,
            boolean partitioned)
            throws Exception {
        StringBuilder ddl = new StringBuilder("CREATE TABLE ").append(name(lakeStream, name));
        ddl.append(" (").append(COLUMNS).append(partitioned ? ", p INT" : "");
        if (primaryKey) {
            ddl.append(
                    partitioned
                            ? ", PRIMARY KEY (p, id) NOT ENFORCED"
                            : ", PRIMARY KEY (id) NOT ENFORCED");
        }
        ddl.append(')');
        if (partitioned) {
            ddl.append(" PARTITIONED BY (p)");
        }
        ddl.append(" WITH ('bucket' = '").append(BUCKETS).append('\'');
        if (!primaryKey) {
            ddl.append(", 'bucket-key' = 'id'");
        }
        if (lakeStream) {
            ddl.append(", 'lake-stream.enabled' = 'true'");
        }
        Sessions.run(tEnv, ddl.append(')').toString());
    }

    /**
     * Registers the temporary table {@code source} of the rows {@code from} to {@code to}
     * (inclusive), {@code rowsPerSecond} at most when positive, else as fast as it can. It is
     * bounded (Flink's datagen is only with a row count), so that batch statements may read it.
     */
    static void registerSequence(
            TableEnvironment tEnv, String source, long from, long to, int rowsPerSecond) {
        tEnv.executeSql(
                String.format(
                        "CREATE TEMPORARY TABLE %s (id BIGINT) WITH ('connector' = 'datagen', "
                                + "'fields.id.kind' = 'sequence', 'fields.id.start' = '%d', "
                                + "'fields.id.end' = '%d', 'number-of-rows' = '%d', "
                                + "'rows-per-second' = '%d')",
                        source,
                        from,
                        to,
                        to - from + 1,
                        // datagen's default is 10,000 rows/s: lift it where the rate is not the
                        // point
                        rowsPerSecond > 0 ? rowsPerSecond : UNTHROTTLED));
    }

    /**
     * Registers the temporary table {@code source} that never ends and never yields a row through
     * {@link #neverMatches}: a streaming job that unions it keeps running after its data ended, so
     * that no end-of-input commit makes its tail committed.
     */
    static void registerKeepAlive(TableEnvironment tEnv, String source) {
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE "
                        + source
                        + " (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1', "
                        + "'fields.id.min' = '0', 'fields.id.max' = '1000')");
    }

    /** The filter that the keep-alive source's rows never pass, unknown to the planner. */
    static String neverMatches() {
        return "id < 0";
    }

    /** The SELECT of the table's rows from the sequence {@code source}. */
    static String select(String source, boolean partitioned, int partitions) {
        return "SELECT id, "
                + VALUES
                + (partitioned ? ", CAST(id % " + partitions + " AS INT)" : "")
                + " FROM "
                + source;
    }

    /**
     * The INSERT of the sequence {@code source}'s rows into {@code table} of one side, partitioned
     * by {@code id % partitions} when {@code partitions > 0}.
     */
    static String insert(boolean lakeStream, String table, String source, int partitions) {
        return insert(lakeStream, table, "", source, partitions);
    }

    /** As {@link #insert(boolean, String, String, int)}, with {@code hint} after the table name. */
    static String insert(
            boolean lakeStream, String table, String hint, String source, int partitions) {
        return "INSERT INTO "
                + name(lakeStream, table)
                + hint
                + " "
                + select(source, partitions > 0, partitions);
    }

    /** A blackhole table with the columns of the (unpartitioned) benchmark tables. */
    static void registerBlackhole(TableEnvironment tEnv, String name) {
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE "
                        + name
                        + " ("
                        + COLUMNS
                        + ") WITH ('connector' = 'blackhole')");
    }
}
