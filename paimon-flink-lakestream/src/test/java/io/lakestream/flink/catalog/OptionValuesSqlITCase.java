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

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.testutils.SharedMiniCluster;
import io.lakestream.flink.testutils.SharedStreamStore;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A lake-stream option whose value cannot be read is refused by the statement that gives it, as
 * Flink's {@link ValidationException} naming the table, the option and the value, and nothing is
 * changed: the table is not created, its options stay, it is not enabled, the query does not run.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class OptionValuesSqlITCase {

    private static final String TIMEOUT = LakeStreamOptions.SINK_BUFFER_TIMEOUT.key();

    @TempDir static Path warehouse;

    @Test
    void everyStatementThatGivesAnUnreadableValueIsRefusedAndChangesNothing() throws Exception {
        TableEnvironment batch = new LakeSqlEnvironments(warehouse).batch();
        batch.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");

        assertThatThrownBy(
                        () ->
                                batch.executeSql(
                                        LakeSqlEnvironments.oneBucketTableDdl(
                                                "unreadable_created",
                                                ", 'lake-stream.enabled' = 'true', '"
                                                        + TIMEOUT
                                                        + "' = '-5 ms'")))
                .satisfies(e -> refused(e, "db.unreadable_created", TIMEOUT, "-5 ms"));
        assertThat(batch.executeSql("SHOW TABLES IN lake.db").collect()).toIterable().isEmpty();

        batch.executeSql(
                LakeSqlEnvironments.oneBucketTableDdl(
                        "unreadable_altered", ", 'lake-stream.enabled' = 'true'"));
        assertThatThrownBy(
                        () ->
                                batch.executeSql(
                                        "ALTER TABLE lake.db.unreadable_altered SET ('"
                                                + TIMEOUT
                                                + "' = 'soon')"))
                .satisfies(e -> refused(e, "db.unreadable_altered", TIMEOUT, "soon"));
        assertThat(LakeSqlEnvironments.paimonTable(batch, "db.unreadable_altered").options())
                .doesNotContainKey(TIMEOUT);

        batch.executeSql(LakeSqlEnvironments.oneBucketTableDdl("unreadable_by_procedure", ""));
        assertThatThrownBy(
                        () ->
                                batch.executeSql(
                                                "CALL lake.sys.enable_lake_stream(`table` => "
                                                        + "'db.unreadable_by_procedure', options => "
                                                        + "'lake-stream.read.isolation="
                                                        + "serializable')")
                                        .await())
                .satisfies(
                        e ->
                                refused(
                                        e,
                                        "db.unreadable_by_procedure",
                                        "lake-stream.read.isolation",
                                        "serializable"));
        assertThat(LakeSqlEnvironments.paimonTable(batch, "db.unreadable_by_procedure").options())
                .doesNotContainKey(LakeStreamOptions.ENABLED.key());

        assertThatThrownBy(
                        () ->
                                batch.executeSql(
                                                "SELECT * FROM lake.db.unreadable_altered /*+ OPTIONS("
                                                        + "'lake-stream.read.max-records-per-"
                                                        + "trigger' = 'many') */")
                                        .await())
                .satisfies(
                        e ->
                                refused(
                                        e,
                                        "lake.db.unreadable_altered",
                                        "lake-stream.read.max-records-per-trigger",
                                        "many"));
    }

    private static void refused(Throwable e, String table, String option, String value) {
        // Flink wraps a catalog's error in its own; the SQL client shows the root cause
        assertThat(ExceptionUtils.findThrowable(e, ValidationException.class)).isPresent();
        assertThat(e)
                .hasStackTraceContaining("Table " + table)
                .hasStackTraceContaining("'" + option + "' cannot be '" + value + "'");
    }
}
