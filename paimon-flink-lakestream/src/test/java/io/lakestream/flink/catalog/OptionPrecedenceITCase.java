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
import io.lakestream.testutils.Await;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A statement's hints win over the session's {@code SET}s, which win over the catalog's {@code
 * lake-stream.*} options, which win over the table's, as in Flink and Paimon; a hint or a {@code
 * SET} that would choose the store is refused.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class OptionPrecedenceITCase {

    @TempDir static java.nio.file.Path warehouse;

    @Test
    void aHintWinsOverTheCatalogAndCannotChooseTheStore() throws Exception {
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment batch = environments.batch();
        JobClient writer = environments.committedRowAndTail(batch, "lake.db.precedence");
        try {
            Await.until(
                    () -> LakeSqlEnvironments.count(batch, "lake.db.precedence") == 2,
                    "the tail in the union read");
            // a catalog that reads Paimon's snapshot alone, and a hint that says otherwise
            batch.executeSql(
                    environments.catalogDdl(
                            "lake_only", ", 'lake-stream.read.lake-only' = 'true'"));
            assertThat(LakeSqlEnvironments.count(batch, "lake_only.db.precedence")).isEqualTo(1);
            assertThat(
                            LakeSqlEnvironments.count(
                                    batch,
                                    "lake_only.db.precedence "
                                            + "/*+ OPTIONS('lake-stream.read.lake-only' = 'false') */"))
                    .isEqualTo(2);

            assertThatThrownBy(
                            () ->
                                    LakeSqlEnvironments.count(
                                            batch,
                                            "lake.db.precedence /*+ OPTIONS("
                                                    + "'lake-stream.store.database-prefix' = 'x') */"))
                    .hasStackTraceContaining("Table lake.db.precedence: ")
                    .hasStackTraceContaining(
                            "'lake-stream.store.database-prefix' cannot be set by a statement");
        } finally {
            writer.cancel().get();
        }
    }

    @Test
    void aSetOfTheSessionWinsOverTheCatalogAndAHintOverIt() throws Exception {
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment batch = environments.batch();
        String table = "lake.db.precedence_set";
        JobClient writer = environments.committedRowAndTail(batch, table);
        try {
            Await.until(
                    () -> LakeSqlEnvironments.count(batch, table) == 2,
                    "the tail in the union read");
            // what the SQL client's SET does; Flink's form, for every table of the session
            TableEnvironment session = environments.batch();
            session.getConfig().set("lake-stream.read.lake-only", "true");
            assertThat(LakeSqlEnvironments.count(session, table)).isEqualTo(1);
            assertThat(
                            LakeSqlEnvironments.count(
                                    session,
                                    table
                                            + " /*+ OPTIONS('lake-stream.read.lake-only' = 'false') */"))
                    .as("a hint beats a SET")
                    .isEqualTo(2);
            // Paimon's form: a named table beats a wildcard, which beats Flink's form
            session.getConfig().set("paimon.*.*.*.lake-stream.read.lake-only", "false");
            assertThat(LakeSqlEnvironments.count(session, table)).isEqualTo(2);
            session.getConfig()
                    .set("paimon.lake.db.precedence_set.lake-stream.read.lake-only", "true");
            assertThat(LakeSqlEnvironments.count(session, table)).isEqualTo(1);

            TableEnvironment storeChoosing = environments.batch();
            storeChoosing.getConfig().set("lake-stream.store.database-prefix", "x");
            assertThatThrownBy(() -> LakeSqlEnvironments.count(storeChoosing, table))
                    .hasStackTraceContaining("Table " + table + ": ")
                    .hasStackTraceContaining(
                            "'lake-stream.store.database-prefix' cannot be set by a statement (a "
                                    + "hint, a SET of the session");

            // a credential is refused from the session as from a hint, its value never shown
            String password = "lake-stream.fluss.client.security.sasl.password";
            TableEnvironment credential = environments.batch();
            credential.getConfig().set(password, "never-shown");
            assertThatThrownBy(() -> LakeSqlEnvironments.count(credential, table))
                    .hasStackTraceContaining("'" + password + "' is a credential")
                    .hasStackTraceContaining("cannot be given with SET")
                    .satisfies(
                            e ->
                                    assertThat(ExceptionUtils.stringifyException(e))
                                            .doesNotContain("never-shown"));

            // a write with the mode off by the session's SET is refused, as with a hint
            TableEnvironment disabling = environments.batch();
            disabling.getConfig().set("lake-stream.enabled", "false");
            assertThatThrownBy(
                            () ->
                                    disabling
                                            .executeSql("INSERT INTO " + table + " VALUES (3, 'x')")
                                            .await())
                    .hasStackTraceContaining("Cannot write table " + table)
                    .hasStackTraceContaining("in a hint or a SET");
        } finally {
            writer.cancel().get();
        }
    }
}
