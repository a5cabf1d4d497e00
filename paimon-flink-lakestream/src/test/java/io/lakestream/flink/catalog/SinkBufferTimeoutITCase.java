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

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.table.api.bridge.internal.AbstractStreamTableEnvironmentImpl;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lake-stream sink sends its rows to its writers with a buffer timeout of its own ({@code
 * 'lake-stream.sink.buffer-timeout'}, 10 ms unless set), so that a slow stream's rows do not wait
 * Flink's default 100 ms before the store has them; a job that sets a lower one keeps it.
 */
@ExtendWith({SharedStreamStore.class, SharedMiniCluster.class})
class SinkBufferTimeoutITCase {

    @TempDir static Path warehouse;

    @BeforeAll
    static void createTable() {
        new LakeSqlEnvironments(warehouse)
                .streaming(null)
                .executeSql(
                        "CREATE TABLE lake.db.timed (id INT, name STRING) WITH ('bucket' = '2', "
                                + "'bucket-key' = 'id', 'lake-stream.enabled' = 'true')");
    }

    @Test
    void theSinksExchangeWaitsTenMillisecondsUnlessTheJobOrTheOptionSaysOtherwise() {
        assertThat(sinkExchangeTimeouts(null, "")).containsExactly(10L);
        // a job's own lower timeout is kept, a higher one is not taken
        assertThat(sinkExchangeTimeouts("2 ms", "")).containsExactly(2L);
        assertThat(sinkExchangeTimeouts("200 ms", "")).containsExactly(10L);
        assertThat(
                        sinkExchangeTimeouts(
                                null,
                                "/*+ OPTIONS('lake-stream.sink.buffer-timeout' = '50 ms') */"))
                .containsExactly(50L);
        assertThat(
                        sinkExchangeTimeouts(
                                null, "/*+ OPTIONS('lake-stream.sink.buffer-timeout' = '0 ms') */"))
                .as("every row sent at once")
                .containsExactly(0L);
    }

    @Test
    void aBatchInsertKeepsItsBlockingExchanges() {
        // Flink refuses a buffer timeout on a blocking exchange when it builds the job
        StreamTableEnvironment batch =
                (StreamTableEnvironment) new LakeSqlEnvironments(warehouse).batch();
        assertThat(timeoutsOf(batch, "")).containsExactly(-1L);
    }

    /**
     * The buffer timeouts of the operators that send rows into the sink's writers, in the job of a
     * streaming INSERT with the job's {@code execution.buffer-timeout} (Flink's default when null)
     * and a table hint.
     */
    private static List<Long> sinkExchangeTimeouts(String jobTimeout, String hint) {
        StreamTableEnvironment tEnv = new LakeSqlEnvironments(warehouse).streaming(null);
        if (jobTimeout != null) {
            tEnv.getConfig().set("execution.buffer-timeout", jobTimeout);
        }
        return timeoutsOf(tEnv, hint);
    }

    /** The same in the job {@code tEnv} would run. */
    private static List<Long> timeoutsOf(StreamTableEnvironment tEnv, String hint) {
        tEnv.createStatementSet()
                .addInsertSql(
                        "INSERT INTO lake.db.timed "
                                + hint
                                + " SELECT * FROM (VALUES (1, 'one'), (2, 'two'))")
                .attachAsDataStream();
        StreamExecutionEnvironment env = ((AbstractStreamTableEnvironmentImpl) tEnv).execEnv();
        List<Long> timeouts = new ArrayList<>();
        for (StreamNode node : env.getStreamGraph().getStreamNodes()) {
            if (node.getOperatorName().startsWith("Lake-stream rows : timed")) {
                timeouts.add(node.getBufferTimeout());
            }
        }
        return timeouts;
    }
}
