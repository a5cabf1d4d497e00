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

package io.lakestream.flink.sink;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The records a write subtask sealed but Paimon has not committed yet. */
class CommitLagTrackerTest {

    @Test
    void aCompletedCheckpointCommitsItsOwnSealAndEveryEarlierOne() {
        CommitLagTracker lag = new CommitLagTracker();
        lag.sealed(1, 10);
        lag.sealed(2, 20);
        lag.sealed(3, 5);
        assertThat(lag.uncommittedRecords()).isEqualTo(35);

        // checkpoint 1 was aborted and never completes; 2 completes and commits 1's records too
        lag.committed(2);
        assertThat(lag.uncommittedRecords()).isEqualTo(5);
        assertThat(lag.lastLagMillis()).isGreaterThanOrEqualTo(0);

        lag.committed(3);
        assertThat(lag.uncommittedRecords()).isZero();
    }

    @Test
    void aCompletionOfAnUnknownCheckpointCommitsWhatCameBefore() {
        CommitLagTracker lag = new CommitLagTracker();
        lag.sealed(5, 7);
        lag.committed(4);
        assertThat(lag.uncommittedRecords()).isEqualTo(7);
        lag.committed(6);
        assertThat(lag.uncommittedRecords()).isZero();
    }
}
