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

import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sink's changelog mode for every merge engine and every changelog producer Paimon accepts
 * together: an updating query (a {@code GROUP BY}, which sends {@code -U} and {@code +U}) and an
 * insert-only query, each written once through Paimon's own sink and once through the lake-stream
 * sink; where Paimon's sink refuses the input, the lake-stream sink refuses it with Paimon's error.
 * Paimon's batch read of the two tables is equal, so is Paimon's streaming changelog of them (the
 * changelog files, or the delta files where the producer writes none: what Paimon's streaming
 * readers in every engine read), and the lake-stream union read equals Paimon's read.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class SinkChangelogModeITCase {

    private static final String UPDATING =
            " SELECT k, COUNT(*) FROM (VALUES (1), (2), (1), (3), (1), (2), (4), (4)) AS t(k)"
                    + " GROUP BY k";

    /**
     * Keys 1 and 2 come twice: the later row must win. The cast is outside the {@code VALUES} on
     * purpose: Flink plans a {@code VALUES} whose rows need casts of their own as a {@code UNION
     * ALL} of one projection per row, whose order SQL does not define, and which two sinks of one
     * job may then receive in different orders.
     */
    private static final String INSERT_ONLY =
            " SELECT k, CAST(c AS BIGINT) FROM (VALUES (1, 5), (2, 6), (1, 7), (3, 8), (2, 9))"
                    + " AS t(k, c)";

    @TempDir static java.nio.file.Path warehouse;

    private static LakeSqlEnvironments environments;
    private static TableEnvironment batch;

    @BeforeAll
    static void open() {
        environments = new LakeSqlEnvironments(warehouse);
        batch = environments.batch();
        batch.executeSql(paimonCatalogDdl());
    }

    /** Every pair of merge engine and changelog producer that Paimon's schema validation takes. */
    static Stream<Arguments> enginesAndProducers() {
        List<Arguments> pairs = new ArrayList<>();
        for (String engine :
                new String[] {"deduplicate", "partial-update", "aggregation", "first-row"}) {
            for (String producer : new String[] {"none", "input", "lookup", "full-compaction"}) {
                boolean firstRowRefuses =
                        engine.equals("first-row")
                                && (producer.equals("input") || producer.equals("full-compaction"));
                if (!firstRowRefuses) {
                    pairs.add(Arguments.of(engine, producer));
                }
            }
        }
        return pairs.stream();
    }

    @ParameterizedTest(name = "{0}, changelog producer {1}")
    @MethodSource("enginesAndProducers")
    void bothQueriesWriteWhatPaimonsSinkWrites(String engine, String producer) throws Exception {
        String name = engine.replace('-', '_') + "_" + producer.replace('-', '_');
        String ddl =
                " (k INT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' = '2', "
                        + "'merge-engine' = '"
                        + engine
                        + "', 'changelog-producer' = '"
                        + producer
                        + "'%s)";
        writeBothWays(name, ddl, engine.equals("partial-update") && producer.equals("input"));
        for (String query : new String[] {"updating", "insert_only"}) {
            String table = name + "_" + query;
            List<String> paimonSink = rows("SELECT * FROM paimon.db." + table + "_paimon");
            assertThat(rows("SELECT * FROM paimon.db." + table + "_lake"))
                    .as("Paimon's read of the table the lake-stream sink wrote (%s)", table)
                    .containsExactlyInAnyOrderElementsOf(paimonSink);
            assertThat(rows("SELECT * FROM lake.db." + table + "_lake"))
                    .as("the union read of %s", table)
                    .containsExactlyInAnyOrderElementsOf(paimonSink);
            List<String> paimonChangelog = changelog(table + "_paimon");
            assertThat(changelog(table + "_lake"))
                    .as("Paimon's streaming changelog of %s", table)
                    .containsExactlyInAnyOrderElementsOf(paimonChangelog);
            // (partial-update refuses the -U, in both sinks, and holds nothing)
            if (query.equals("updating")
                    && producer.equals("input")
                    && !engine.equals("partial-update")) {
                assertThat(paimonChangelog)
                        .as("Paimon's sink keeps -U with the input changelog producer")
                        .anyMatch(row -> row.startsWith("+I[-U,"));
            }
        }
    }

    @ParameterizedTest(name = "append table")
    @MethodSource("appendOnly")
    void anAppendTableTakesWhatPaimonsSinkTakes(String name) throws Exception {
        String ddl = " (k INT, c BIGINT) WITH ('bucket' = '2', 'bucket-key' = 'k'%s)";
        TableEnvironment tEnv = streaming();
        createBothWays(tEnv, name, ddl);
        tEnv.executeSql("INSERT INTO lake.db." + name + "_lake" + INSERT_ONLY).await();
        tEnv.executeSql("INSERT INTO paimon.db." + name + "_paimon" + INSERT_ONLY).await();
        List<String> paimonSink = rows("SELECT * FROM paimon.db." + name + "_paimon");
        assertThat(paimonSink).hasSize(5);
        assertThat(rows("SELECT * FROM paimon.db." + name + "_lake"))
                .containsExactlyInAnyOrderElementsOf(paimonSink);
        assertThat(rows("SELECT * FROM lake.db." + name + "_lake"))
                .containsExactlyInAnyOrderElementsOf(paimonSink);
        assertThat(changelog(name + "_lake"))
                .containsExactlyInAnyOrderElementsOf(changelog(name + "_paimon"));
    }

    static Stream<String> appendOnly() {
        return Stream.of("append_insert_only");
    }

    /**
     * Writes both queries into a lake-stream table and a Paimon table each, all in one job so that
     * both sides see the same input at the same commits. Where Paimon's sink refuses the input (a
     * partial-update table takes no {@code -U} with the {@code input} producer), each sink runs
     * alone and the lake-stream sink must refuse it with Paimon's own error, both tables left
     * empty.
     */
    private static void writeBothWays(String name, String ddl, boolean paimonRefusesRetractions)
            throws Exception {
        TableEnvironment tEnv = streaming();
        StatementSet together = tEnv.createStatementSet();
        for (String query : new String[] {"updating", "insert_only"}) {
            String table = name + "_" + query;
            createBothWays(tEnv, table, ddl);
            String select = query.equals("updating") ? UPDATING : INSERT_ONLY;
            String intoPaimon = "INSERT INTO paimon.db." + table + "_paimon" + select;
            String intoLake = "INSERT INTO lake.db." + table + "_lake" + select;
            if (query.equals("updating") && paimonRefusesRetractions) {
                Optional<String> paimonRefusal = refusal(tEnv, intoPaimon);
                assertThat(paimonRefusal).as("Paimon's sink refuses %s", table).isPresent();
                assertThat(refusal(tEnv, intoLake))
                        .as("the lake-stream sink refuses what Paimon's sink refuses (%s)", table)
                        .isEqualTo(paimonRefusal);
                // the failed job's records may be in the store (a store that takes every record
                // at once holds all of them): no job's tail once its writer lease has expired,
                // and a read planned then stops at the latest snapshot, as Paimon's does
                LakeSqlEnvironments.awaitWriterLeaseExpired(
                        tEnv, "db." + table + "_lake", LakeSqlEnvironments.WRITER_LEASE_TIMEOUT);
            } else {
                together.addInsertSql(intoPaimon);
                together.addInsertSql(intoLake);
            }
        }
        together.execute().await();
    }

    /** Runs {@code insert}; the message of the root cause of its failure, if it fails. */
    private static Optional<String> refusal(TableEnvironment tEnv, String insert) {
        try {
            tEnv.executeSql(insert).await();
            return Optional.empty();
        } catch (Exception e) {
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            return Optional.of(cause.getMessage());
        }
    }

    private static void createBothWays(TableEnvironment tEnv, String table, String ddl) {
        tEnv.executeSql(
                "CREATE TABLE lake.db."
                        + table
                        + "_lake"
                        + String.format(ddl, ", 'lake-stream.enabled' = 'true'"));
        tEnv.executeSql("CREATE TABLE paimon.db." + table + "_paimon" + String.format(ddl, ""));
    }

    private static TableEnvironment streaming() {
        // the input ends within milliseconds, long before the first checkpoint: the only commit is
        // the one of the final checkpoint
        TableEnvironment tEnv = environments.streaming(Duration.ofSeconds(1));
        // a refused input fails its job once, not for ever
        tEnv.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        tEnv.executeSql(paimonCatalogDdl());
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS paimon.db");
        return tEnv;
    }

    private static String paimonCatalogDdl() {
        return "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                + warehouse.toUri()
                + "')";
    }

    /**
     * What Paimon's streaming read of every snapshot returns, with its row kind: the changelog
     * files where the table's changelog producer writes them, the delta files otherwise.
     */
    private static List<String> changelog(String table) throws Exception {
        Long latest = paimonTable(batch, "db." + table).snapshotManager().latestSnapshotId();
        if (latest == null) {
            return new ArrayList<>(); // a refused input commits nothing
        }
        return rows(
                "SELECT * FROM paimon.db.`"
                        + table
                        + "$audit_log` /*+ OPTIONS('incremental-between' = '0,"
                        + latest
                        + "', 'incremental-between-scan-mode' = 'auto') */");
    }

    private static List<String> rows(String query) {
        List<String> rows = new ArrayList<>();
        for (Row row : CollectionUtil.iteratorToList(batch.executeSql(query).collect())) {
            rows.add(row.toString());
        }
        return rows;
    }
}
