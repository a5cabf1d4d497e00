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

import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.store.fluss.testutils.SharedMiniCluster;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Commits of other writers to an enabled table, checked against Paimon's own read of the same
 * warehouse (a {@code paimon} catalog): a streaming lake-stream read returns the rows that Paimon's
 * own catalog commits, at their commit, once, for both isolation levels, beside the rows of the
 * lake-stream sink; and a write through the {@code paimon-lakestream} catalog whose hint turns
 * lake-stream mode off is refused.
 */
@ExtendWith({SharedFlussCluster.class, SharedMiniCluster.class})
class ForeignCommitsITCase {

    @TempDir static Path warehouse;

    private static LakeSqlEnvironments environments;

    @BeforeAll
    static void open() {
        environments = new LakeSqlEnvironments(warehouse);
        environments.streaming(null);
    }

    /**
     * {@code INSERT} with a hint that sets {@code 'lake-stream.enabled' = 'false'} fails at
     * planning, with the table, the option and the ways out as what the SQL client shows, and
     * commits nothing.
     */
    @Test
    void aHintThatTurnsTheModeOffIsRefused() throws Exception {
        TableEnvironment tEnv = environments.batch();
        tEnv.executeSql(
                "CREATE TABLE lake.db.hinted (id INT, v STRING) WITH ('bucket' = '1', "
                        + "'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");
        Long before = paimonTable(tEnv, "db.hinted").snapshotManager().latestSnapshotId();

        Throwable error =
                catchThrowable(
                        () ->
                                tEnv.executeSql(
                                                "INSERT INTO lake.db.hinted /*+ OPTIONS("
                                                        + "'lake-stream.enabled' = 'false') */ "
                                                        + "VALUES (1, 'a')")
                                        .await());

        assertThat(error).as("the INSERT fails").isNotNull();
        Throwable shown = StatementErrorsITCase.shownBySqlClient(error);
        System.out.println("The SQL client shows: " + shown);
        assertThat(shown)
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("db.hinted")
                .hasMessageContaining("'lake-stream.enabled' = 'false'")
                .hasMessageContaining("disable lake-stream mode")
                .hasMessageContaining("Paimon's own catalog");
        assertThat(paimonTable(tEnv, "db.hinted").snapshotManager().latestSnapshotId())
                .as("nothing committed")
                .isEqualTo(before);

        // the same hint on a read, and 'true' on a write, stay allowed
        tEnv.executeSql(
                        "INSERT INTO lake.db.hinted /*+ OPTIONS('lake-stream.enabled' = 'true') */"
                                + " VALUES (2, 'b')")
                .await();
        assertThat(
                        LakeSqlEnvironments.count(
                                tEnv,
                                "lake.db.hinted /*+ OPTIONS('lake-stream.enabled' = 'false') */"))
                .isEqualTo(1);
    }
}
