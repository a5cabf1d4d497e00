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

import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.server.testutils.FlussClusterExtension;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.testutils.logging.LoggerAuditingExtension;
import org.apache.flink.util.CollectionUtil;
import org.apache.flink.util.ExceptionUtils;

import org.apache.logging.log4j.core.LogEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.event.Level;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A Fluss cluster whose client listener takes SASL/PLAIN only, as docs/deploy.md sets one up: the
 * credentials are options of the {@code paimon-lakestream} catalog, tables are created, written and
 * read through it, the union read equals Paimon's read, and the password is in no file of the
 * warehouse. A catalog with a wrong password fails, naming the cluster, and never shows the
 * password, and no log line of the project, Fluss's client or Flink, and no status row shows either
 * password. The cluster's security is a cluster option, so this class runs its own small cluster.
 */
@ExtendWith(SharedMiniCluster.class)
class SaslSecuredStoreITCase {

    private static final String PASSWORD = "lake-" + Long.toHexString(System.nanoTime());

    @RegisterExtension
    static final FlussClusterExtension SECURED_FLUSS =
            FlussClusterExtension.builder()
                    .setNumOfTabletServers(1)
                    .setCoordinatorServerListeners("FLUSS://localhost:0, CLIENT://localhost:0")
                    .setTabletServerListeners("FLUSS://localhost:0, CLIENT://localhost:0")
                    .setClusterConf(saslOnTheClientListener())
                    .build();

    @TempDir static Path warehouse;

    // log lines as a production deployment writes them (and the project's and Fluss client's
    // debug lines): none may carry a password
    @RegisterExtension
    final LoggerAuditingExtension ourLog =
            new LoggerAuditingExtension("io.lakestream.flink", Level.DEBUG);

    @RegisterExtension
    final LoggerAuditingExtension flussClientLog =
            new LoggerAuditingExtension("org.apache.fluss.client", Level.DEBUG);

    @RegisterExtension
    final LoggerAuditingExtension flinkLog =
            new LoggerAuditingExtension("org.apache.flink", Level.INFO);

    private static Configuration saslOnTheClientListener() {
        Configuration conf = new Configuration();
        conf.setString(ConfigOptions.SERVER_SECURITY_PROTOCOL_MAP.key(), "CLIENT:sasl");
        conf.setString("security.sasl.enabled.mechanisms", "plain");
        conf.setString(
                "security.sasl.plain.jaas.config",
                "org.apache.fluss.security.auth.sasl.plain.PlainLoginModule required "
                        + "user_lake=\""
                        + PASSWORD
                        + "\";");
        return conf;
    }

    @Test
    void tablesAreWrittenAndReadThroughASaslSecuredCluster() throws Exception {
        TableEnvironment tEnv = batch(PASSWORD);
        tEnv.executeSql(
                        "CREATE TABLE lake.db.secured (id INT, v STRING, PRIMARY KEY (id) NOT "
                                + "ENFORCED) WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')")
                .await();
        tEnv.executeSql("INSERT INTO lake.db.secured VALUES (1, 'a'), (2, 'b')").await();
        tEnv.executeSql("INSERT INTO lake.db.secured VALUES (2, 'c'), (3, 'd')").await();
        List<String> paimon = rows(tEnv, "paimon.db.secured");
        assertThat(paimon).containsExactlyInAnyOrder("+I[1, a]", "+I[2, c]", "+I[3, d]");
        assertThat(rows(tEnv, "lake.db.secured")).containsExactlyInAnyOrderElementsOf(paimon);
        assertThat(
                        rows(
                                tEnv,
                                "lake.db.secured /*+ OPTIONS('lake-stream.read.isolation' = "
                                        + "'read-committed') */"))
                .containsExactlyInAnyOrderElementsOf(paimon);

        String status =
                CollectionUtil.iteratorToList(
                                tEnv.executeSql(
                                                "CALL lake.sys.lake_stream_status(`table` => "
                                                        + "'db.secured')")
                                        .collect())
                        .toString();
        assertThat(status)
                .as("the status rows of both buckets")
                .contains("+I[, 1, ")
                .doesNotContain(PASSWORD);

        String wrong = "not-" + PASSWORD;
        TableEnvironment refused = batch(wrong);
        Throwable failure =
                catchThrowable(() -> refused.executeSql("SELECT * FROM lake.db.secured").await());
        assertThat(failure).as("a read with a wrong password").isNotNull();
        System.out.println("A wrong password: " + failure);
        assertThat(failure)
                .hasMessageContaining("db.secured")
                .hasMessageContaining("refused the credentials of this client")
                .hasMessageContaining("user 'lake'")
                .hasMessageContaining("Invalid username or password")
                .hasMessageContaining("'lake-stream.fluss.client.security.sasl.password'");
        assertThat(ExceptionUtils.stringifyException(failure))
                .doesNotContain(wrong)
                .doesNotContain(PASSWORD);

        List<String> logged = new ArrayList<>();
        for (LoggerAuditingExtension log : Arrays.asList(ourLog, flussClientLog, flinkLog)) {
            for (LogEvent event : log.getEvents()) {
                logged.add(event.getMessage().getFormattedMessage());
                if (event.getThrown() != null) {
                    logged.add(ExceptionUtils.stringifyException(event.getThrown()));
                }
            }
        }
        assertThat(logged).as("log lines of the project, Fluss's client and Flink").isNotEmpty();
        assertThat(String.join("\n", logged)).doesNotContain(PASSWORD).doesNotContain(wrong);

        try (Stream<Path> files = Files.walk(warehouse)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1))
                        .as("%s", file)
                        .doesNotContain(PASSWORD);
            }
        }
    }

    /** A batch environment whose lake-stream catalog logs in as {@code lake} with a password. */
    private static TableEnvironment batch(String password) {
        TableEnvironment tEnv = LakeSqlEnvironments.plainBatch();
        String servers =
                SECURED_FLUSS
                        .getClientConfig("CLIENT")
                        .get(ConfigOptions.BOOTSTRAP_SERVERS)
                        .stream()
                        .reduce((a, b) -> a + "," + b)
                        .orElseThrow();
        tEnv.executeSql(
                String.format(
                        "CREATE CATALOG lake WITH ('type' = 'paimon-lakestream', "
                                + "'warehouse' = '%s', "
                                + "'lake-stream.fluss.bootstrap.servers' = '%s', "
                                + "'lake-stream.fluss.client.security.protocol' = 'sasl', "
                                + "'lake-stream.fluss.client.security.sasl.mechanism' = 'plain', "
                                + "'lake-stream.fluss.client.security.sasl.username' = 'lake', "
                                + "'lake-stream.fluss.client.security.sasl.password' = '%s', "
                                + "'lake-stream.store.request-timeout' = '10 s', "
                                + "'lake-stream.sink.writer-lease-timeout' = '1 s')",
                        warehouse.toUri(), servers, password));
        tEnv.executeSql(
                String.format(
                        "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '%s')",
                        warehouse.toUri()));
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake.db");
        return tEnv;
    }
}
