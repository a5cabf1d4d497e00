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

package io.lakestream.flink.source;

import io.lakestream.flink.testutils.SharedStreamStore;

import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.external.ExternalContextFactory;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SourceTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.table.data.RowData;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * Flink's connector test suite for sources, every case of it, run against {@link LakeStreamSource}
 * as Kafka's and Fluss's connectors run it against theirs: bounded reads of one and of several
 * splits, an idle reader, restarts from a savepoint at the same, a higher and a lower parallelism,
 * a TaskManager failure, and the {@code numRecordsIn} metric. Each split of the suite is a
 * partition-bucket of an append table, written with committed rows and an uncommitted tail ({@link
 * LakeStreamSourceExternalContext}). The source is exactly-once.
 */
@ExtendWith(SharedStreamStore.class)
class LakeStreamSourceTestSuiteITCase extends SourceTestSuiteBase<RowData> {

    @TempDir static Path warehouse;

    @TestEnv MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

    @TestContext
    ExternalContextFactory<LakeStreamSourceExternalContext> contexts =
            testName -> {
                try {
                    return new LakeStreamSourceExternalContext(warehouse);
                } catch (Exception e) {
                    throw new IllegalStateException("Cannot create a table for " + testName, e);
                }
            };

    @TestSemantics
    CheckpointingMode[] semantics = new CheckpointingMode[] {CheckpointingMode.EXACTLY_ONCE};
}
