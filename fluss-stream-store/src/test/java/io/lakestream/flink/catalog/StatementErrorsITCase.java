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
import io.lakestream.flink.testutils.SqlClientErrors;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * What a SQL client user reads when a statement fails. Flink's SQL client prints only the deepest
 * exception of the chain that has a message ({@code CliStrings.messageError}); these tests run real
 * statements through a {@code paimon-lakestream} catalog and assert that this deepest exception is
 * the project's, naming the table and the option or address at fault, while the original failure
 * stays in the stack trace (which the SQL Gateway's REST API returns).
 */
@ExtendWith({SharedFlussCluster.class, SharedStreamStore.class, SharedMiniCluster.class})
class StatementErrorsITCase {

    @TempDir static Path warehouse;

    private static LakeSqlEnvironments environments;

    @BeforeAll
    static void createDatabase() {
        environments = new LakeSqlEnvironments(warehouse);
        environments.streaming(Duration.ofSeconds(1));
    }

    /**
     * An unreachable Fluss cluster (a closed port): creating a table in lake-stream mode, enabling
     * one by ALTER and by procedure, its status, a SELECT and an INSERT of an enabled table each
     * fail with the table and the address as what the SQL client shows.
     */
    @Test
    void anUnreachableStoreIsNamedWithTheTableInWhatTheSqlClientShows() throws Exception {
        TableEnvironment reachable = environments.batch();
        reachable.executeSql(
                "CREATE TABLE lake.db.enabled_far (id INT, v STRING, PRIMARY KEY (id) NOT"
                        + " ENFORCED) WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");

        String address = "127.0.0.1:" + closedPort();
        TableEnvironment tEnv = environments.batch();
        tEnv.executeSql(
                environments
                        .catalogDdl("far", ", 'lake-stream.store.request-timeout' = '2 s'")
                        .replace(SharedFlussCluster.bootstrapServers(), address));

        Throwable create =
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "CREATE TABLE far.db.created_far (id INT, PRIMARY KEY"
                                                + " (id) NOT ENFORCED) WITH ('bucket' = '1',"
                                                + " 'lake-stream.enabled' = 'true')"));
        assertShown(create, "db.created_far", address);
        assertThat(tEnv.getCatalog("far").orElseThrow().tableExists(path("db.created_far")))
                .as("a table whose enablement failed is not left behind")
                .isFalse();

        tEnv.executeSql(
                "CREATE TABLE far.db.plain_far (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH"
                        + " ('bucket' = '1')");
        assertShown(
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "ALTER TABLE far.db.plain_far SET"
                                                + " ('lake-stream.enabled' = 'true')")),
                "db.plain_far",
                address);
        assertShown(
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "CALL far.sys.enable_lake_stream(`table` =>"
                                                + " 'db.plain_far')")),
                "db.plain_far",
                address);
        assertShown(
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "CALL far.sys.lake_stream_status(`table` =>"
                                                + " 'db.enabled_far')")),
                "db.enabled_far",
                address);
        assertShown(
                catchThrowable(() -> tEnv.executeSql("SELECT * FROM far.db.enabled_far").collect()),
                "db.enabled_far",
                address);
        assertShown(
                catchThrowable(
                        () ->
                                tEnv.executeSql("INSERT INTO far.db.enabled_far VALUES (1, 'a')")
                                        .await()),
                "db.enabled_far",
                address);
    }

    /**
     * Enabling a table without a fixed number of buckets, by CREATE, ALTER and procedure, is a
     * {@link ValidationException} shown by the SQL client that names the table and the option
     * {@code bucket} and says what to do.
     */
    @Test
    void aTableWithoutFixedBucketsIsRefusedWithAValidationExceptionThatSaysWhatToDo() {
        TableEnvironment tEnv = environments.batch();

        // a primary-key table without a 'bucket' option has dynamic bucket mode
        Throwable created =
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "CREATE TABLE lake.db.dynamic_created (id INT, v STRING,"
                                                + " PRIMARY KEY (id) NOT ENFORCED) WITH"
                                                + " ('lake-stream.enabled' = 'true')"));
        assertRefusedForBuckets(created, "db.dynamic_created", "dynamic bucket mode");
        assertThat(tEnv.getCatalog("lake").orElseThrow().tableExists(path("db.dynamic_created")))
                .isFalse();

        tEnv.executeSql(
                "CREATE TABLE lake.db.dynamic_altered (id INT, v STRING, PRIMARY KEY (id) NOT"
                        + " ENFORCED) WITH ('bucket' = '-1')");
        assertRefusedForBuckets(
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "ALTER TABLE lake.db.dynamic_altered SET"
                                                + " ('lake-stream.enabled' = 'true')")),
                "db.dynamic_altered",
                "dynamic bucket mode");

        tEnv.executeSql(
                "CREATE TABLE lake.db.postponed (id INT, v STRING, PRIMARY KEY (id) NOT"
                        + " ENFORCED) WITH ('bucket' = '-2')");
        assertRefusedForBuckets(
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "CALL lake.sys.enable_lake_stream(`table` =>"
                                                + " 'db.postponed')")),
                "db.postponed",
                "postpone bucket mode");

        tEnv.executeSql("CREATE TABLE lake.db.unaware (id INT, v STRING)");
        assertRefusedForBuckets(
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "ALTER TABLE lake.db.unaware SET"
                                                + " ('lake-stream.enabled' = 'true')")),
                "db.unaware",
                "bucket-unaware mode");
    }

    /** Malformed procedure arguments and an unknown store name what is wrong at the root. */
    @Test
    void badProcedureInputIsNamedInWhatTheSqlClientShows() {
        TableEnvironment tEnv = environments.batch();
        tEnv.executeSql(
                "CREATE TABLE lake.db.input (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH"
                        + " ('bucket' = '1')");
        Throwable malformed =
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "CALL lake.sys.enable_lake_stream(`table` => 'db.input',"
                                                + " options => 'not-a-pair')"));
        assertThat(SqlClientErrors.rootCause(malformed))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'options'")
                .hasMessageContaining("not-a-pair");
        assertThat(SqlClientErrors.shownBySqlClient(malformed).getMessage())
                .contains(SqlClientErrors.rootCause(malformed).getMessage());

        Throwable unknownStore =
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "CALL lake.sys.enable_lake_stream(`table` => 'db.input',"
                                                + " options => 'lake-stream.store=nope')"));
        assertThat(SqlClientErrors.rootCause(unknownStore))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("db.input")
                .hasMessageContaining("'lake-stream.store'")
                .hasMessageContaining("nope");
        assertThat(SqlClientErrors.shownBySqlClient(unknownStore).getMessage())
                .contains(SqlClientErrors.rootCause(unknownStore).getMessage());
    }

    /**
     * Table options the catalog cannot use are a {@link ValidationException} at the root that names
     * the table, the option and the value; a refused option changes nothing.
     */
    @Test
    void badTableOptionsAreNamedInWhatTheSqlClientShows() throws Exception {
        TableEnvironment tEnv = environments.batch();
        tEnv.executeSql(
                "CREATE TABLE lake.db.options_on (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH"
                        + " ('bucket' = '1', 'lake-stream.enabled' = 'true')");
        Throwable notABoolean =
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "ALTER TABLE lake.db.options_on SET"
                                                + " ('lake-stream.enabled' = 'yes')"));
        assertThat(SqlClientErrors.rootCause(notABoolean))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("db.options_on")
                .hasMessageContaining("'lake-stream.enabled' = 'yes'");
        assertThat(SqlClientErrors.shownBySqlClient(notABoolean))
                .isSameAs(SqlClientErrors.rootCause(notABoolean));
        assertThat(LakeSqlEnvironments.paimonTable(tEnv, "db.options_on").options())
                .as("a typo does not disable lake-stream mode")
                .containsEntry("lake-stream.enabled", "true");

        tEnv.executeSql(
                "CREATE TABLE lake.db.options_off (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH"
                        + " ('bucket' = '1')");
        Throwable malformed =
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "ALTER TABLE lake.db.options_off SET"
                                                + " ('lake-stream.enabled' = 'true',"
                                                + " 'lake-stream.store.request-timeout' = 'soon')"));
        assertThat(SqlClientErrors.rootCause(malformed))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("db.options_off")
                .hasMessageContaining("'lake-stream.store.request-timeout'")
                .hasMessageContaining("soon");
        assertThat(SqlClientErrors.shownBySqlClient(malformed))
                .isSameAs(SqlClientErrors.rootCause(malformed));

        tEnv.executeSql(
                "CREATE TABLE lake.db.options_nested (id INT, tags ARRAY<STRING>) WITH"
                        + " ('bucket' = '1', 'bucket-key' = 'id')");
        Throwable unsupported =
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                        "ALTER TABLE lake.db.options_nested SET"
                                                + " ('lake-stream.enabled' = 'true')"));
        assertThat(SqlClientErrors.rootCause(unsupported))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("db.options_nested")
                .hasMessageContaining("tags");
        assertThat(SqlClientErrors.shownBySqlClient(unsupported))
                .isSameAs(SqlClientErrors.rootCause(unsupported));
    }

    /**
     * A store credential given as a table option (CREATE, ALTER, the enabling procedure) or in a
     * hint is refused, naming the option and never its value, and lands in no file of the
     * warehouse.
     */
    @Test
    void aCredentialIsRefusedAsATableOptionAndInAHint() throws Exception {
        String secret = "s3cr3t-" + System.nanoTime();
        String key = "lake-stream.fluss.client.security.sasl.password";
        TableEnvironment tEnv = environments.batch();
        tEnv.executeSql(
                "CREATE TABLE lake.db.guarded (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH "
                        + "('bucket' = '1', 'lake-stream.enabled' = 'true')");
        String option = "'" + key + "' = '" + secret + "'";
        List<Throwable> refusals = new ArrayList<>();
        for (String statement :
                List.of(
                        "CREATE TABLE lake.db.leaky (id INT) WITH ('bucket' = '1', "
                                + "'bucket-key' = 'id', "
                                + option
                                + ")",
                        "ALTER TABLE lake.db.guarded SET (" + option + ")",
                        "SELECT * FROM lake.db.guarded /*+ OPTIONS(" + option + ") */",
                        "INSERT INTO lake.db.guarded /*+ OPTIONS("
                                + option.replace("password", "jaas.config")
                                + ") */ VALUES (1)")) {
            refusals.add(
                    catchThrowable(
                            () -> {
                                TableResult result = tEnv.executeSql(statement);
                                result.await();
                                result.collect().close();
                            }));
        }
        for (Throwable refusal : refusals) {
            assertThat(refusal).as("the statement fails").isNotNull();
            Throwable shown = SqlClientErrors.shownBySqlClient(refusal);
            System.out.println("The SQL client shows: " + shown);
            assertThat(shown.getMessage())
                    .contains("db.")
                    .contains("lake-stream.fluss.client.security.sasl.")
                    .contains("options of the paimon-lakestream catalog")
                    .doesNotContain(secret);
            assertThat(ExceptionUtils.stringifyException(refusal)).doesNotContain(secret);
        }
        assertThat(tEnv.getCatalog("lake").orElseThrow().tableExists(path("db.leaky"))).isFalse();
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(warehouse)) {
            for (Path file :
                    (Iterable<Path>) files.filter(java.nio.file.Files::isRegularFile)::iterator) {
                assertThat(
                                new String(
                                        java.nio.file.Files.readAllBytes(file),
                                        java.nio.charset.StandardCharsets.ISO_8859_1))
                        .as("%s", file)
                        .doesNotContain(secret);
            }
        }
    }

    private static void assertShown(Throwable error, String table, String address) {
        assertThat(error).as("the statement fails").isNotNull();
        Throwable shown = SqlClientErrors.shownBySqlClient(error);
        System.out.println("The SQL client shows: " + shown);
        assertThat(shown.getMessage()).contains(table).contains(address);
        assertThat(SqlClientErrors.rootCause(error).getMessage()).contains(table).contains(address);
        assertThat(ExceptionUtils.stringifyException(error))
                .as("the whole chain is kept, for logs and the SQL Gateway's REST API")
                .contains(shown.getMessage());
    }

    private static void assertRefusedForBuckets(Throwable error, String table, String mode) {
        assertThat(error).as("the statement fails").isNotNull();
        Throwable shown = SqlClientErrors.shownBySqlClient(error);
        System.out.println("The SQL client shows: " + shown);
        assertThat(SqlClientErrors.rootCause(error))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining(table)
                .hasMessageContaining("'bucket'")
                .hasMessageContaining(mode)
                .hasMessageContaining("create a table with a fixed number of buckets");
        assertThat(shown.getMessage()).contains(SqlClientErrors.rootCause(error).getMessage());
    }

    private static ObjectPath path(String table) {
        return ObjectPath.fromString(table);
    }

    /** A port nothing listens on: bound once, then released. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
