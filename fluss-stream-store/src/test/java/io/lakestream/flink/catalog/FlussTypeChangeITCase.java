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

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import static io.lakestream.flink.catalog.FieldIdSchemaChangeITCase.all;
import static io.lakestream.flink.catalog.FieldIdSchemaChangeITCase.allOfPaimon;
import static io.lakestream.flink.catalog.FieldIdSchemaChangeITCase.assertUnboundedReadsPlannedNowEqualPaimons;
import static io.lakestream.flink.catalog.FieldIdSchemaChangeITCase.commitAndRelease;
import static io.lakestream.flink.catalog.FieldIdSchemaChangeITCase.createEnabled;
import static io.lakestream.flink.catalog.FieldIdSchemaChangeITCase.environments;
import static io.lakestream.flink.catalog.FieldIdSchemaChangeITCase.follow;
import static io.lakestream.flink.catalog.FieldIdSchemaChangeITCase.startGeneratedWriter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a Fluss stream table cannot follow of a schema change: a change of a column's type (the
 * memory store follows it; the other schema-change tests run on it in the connector's module).
 * Written with the steps of {@link FieldIdSchemaChangeITCase}.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class FlussTypeChangeITCase {

    @TempDir static java.nio.file.Path warehouse;
    @TempDir static java.nio.file.Path savepoints;

    @BeforeAll
    static void open() {
        FieldIdSchemaChangeITCase.openOn(warehouse, savepoints);
    }

    @AfterEach
    void cancelJobs() {
        SharedMiniCluster.cancelAllJobs();
    }

    /**
     * {@code INT} to {@code BIGINT} and {@code FLOAT} to {@code DOUBLE} through Paimon's catalog
     * (as a CDC action widens a column): the stream column keeps its type, since Fluss cannot
     * change one, so the records already in the store are read with Paimon's cast and equal
     * Paimon's read once committed, batch and unbounded, planned before the change and after it,
     * while a writer planned after the change stops with an error that names the table, the field,
     * both types and the way out. Through the lake-stream catalog the change is refused before
     * anything changes.
     */
    @ParameterizedTest(name = "{0} to {1}")
    @CsvSource({
        "INT, BIGINT, 5000000000, java.lang.Long",
        "FLOAT, DOUBLE, 1.0E300, java.lang.Double"
    })
    void aTypeChangeTheStoreCannotHoldKeepsReadsWorkingAndStopsWritersSayingWhy(
            String from, String to, String wideValue, Class<?> widened) throws Exception {
        String table = "db.widened_" + from.toLowerCase(Locale.ROOT);
        StreamTableEnvironment tEnv = createEnabled(table, "id INT, v STRING, n " + from);
        assertThatThrownBy(() -> tEnv.executeSql("ALTER TABLE lake." + table + " MODIFY n " + to))
                .hasStackTraceContaining(
                        String.format(
                                "turn column 'n' of table %s from %s into %s", table, from, to));

        JobClient oldWriter = startGeneratedWriter(tEnv, table, from, "id, v, n", 20);
        ChangelogFollower lakeBefore = follow("lake", table, 0);
        ChangelogFollower paimonBefore = follow("paimon", table, 0);
        tEnv.executeSql("ALTER TABLE paimon." + table + " MODIFY n " + to);
        for (Row row : all(table)) {
            assertThat(row.getField(2)).isInstanceOf(widened);
        }
        commitAndRelease(oldWriter, tEnv, table);
        List<Row> committed = allOfPaimon(table);
        lakeBefore.awaitEqual(paimonBefore, committed);
        lakeBefore.close();
        paimonBefore.close();
        assertUnboundedReadsPlannedNowEqualPaimons(table, 0, committed);
        StreamTableEnvironment fresh = environments.streaming(Duration.ofHours(1));
        fresh.getConfig().set("restart-strategy.type", "none");
        assertThatThrownBy(
                        () ->
                                fresh.executeSql(
                                                "INSERT INTO lake."
                                                        + table
                                                        + " VALUES (-1, 'x', "
                                                        + wideValue
                                                        + ")")
                                        .await())
                .hasStackTraceContaining(
                        String.format("Field 'n' of table %s has type %s", table, to))
                .hasStackTraceContaining("holds " + from)
                .hasStackTraceContaining("drop_stream_table => true");
        assertThat(all(table)).containsExactlyInAnyOrderElementsOf(allOfPaimon(table));
    }
}
