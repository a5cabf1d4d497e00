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

import org.apache.flink.table.api.TableEnvironment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;

import static io.lakestream.flink.catalog.LakeSqlEnvironments.count;
import static io.lakestream.flink.catalog.LakeSqlEnvironments.paimonTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Paimon's scan options reach the lake-stream source from SQL hints, and its refusals reach the SQL
 * client with the option named.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class TimeTravelSqlITCase {

    @TempDir static java.nio.file.Path warehouse;

    @Test
    void hintsTravelInTimeAndUnsupportedOnesAreRefused() throws Exception {
        LakeSqlEnvironments environments = new LakeSqlEnvironments(warehouse);
        TableEnvironment tEnv = environments.streaming(Duration.ofSeconds(1));
        tEnv.executeSql(
                "CREATE TABLE lake.db.tt (id INT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)"
                        + " WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        tEnv.executeSql("INSERT INTO lake.db.tt VALUES (1, 10), (2, 20), (3, 30)").await();
        long three = paimonTable(tEnv, "db.tt").snapshotManager().latestSnapshotId();
        tEnv.executeSql("INSERT INTO lake.db.tt VALUES (4, 40), (5, 50)").await();

        TableEnvironment batch = environments.batch();
        assertThat(count(batch, "lake.db.tt")).isEqualTo(5);
        assertThat(count(batch, "lake.db.tt /*+ OPTIONS('scan.snapshot-id' = '" + three + "') */"))
                .as("the snapshot with three rows")
                .isEqualTo(3);
        assertThatThrownBy(
                        () ->
                                count(
                                        batch,
                                        "lake.db.tt /*+ OPTIONS('stream-scan-mode' ="
                                                + " 'file-monitor') */"))
                .hasStackTraceContaining(
                        "db.tt: 'stream-scan-mode' = 'file-monitor' is not supported");
    }
}
