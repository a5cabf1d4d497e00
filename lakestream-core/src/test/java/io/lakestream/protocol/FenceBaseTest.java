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

package io.lakestream.protocol;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Where a starting writer fences from. */
class FenceBaseTest {

    @Test
    void aFreshStartFencesFromTheTieredOffset() {
        assertThat(FenceBase.of(null, 40L, 60L)).isEqualTo(40L);
    }

    @Test
    void aRestoreFencesFromItsRestoredOffset() {
        // the checkpoint's records up to 55 are pending in the restored committer
        assertThat(FenceBase.of(55L, 40L, 60L)).isEqualTo(55L);
    }

    @Test
    void aRestoreFromAnOlderSavepointNeverFencesBelowTheTieredOffset() {
        // later snapshots committed up to 40: fencing from 25 would hide committed records
        assertThat(FenceBase.of(25L, 40L, 60L)).isEqualTo(40L);
    }

    @Test
    void aRestoredOffsetAboveTheStoresEndBelongsToADroppedLog() {
        // the partition was dropped after the checkpoint and written again: its new log holds 7
        // records, none committed (the snapshot's map no longer names it)
        assertThat(FenceBase.of(55L, 0L, 7L)).isEqualTo(0L);
    }

    @Test
    void aStoreThatLostCommittedRecordsIsNotMistakenForANewLog() {
        // the map says 40 are committed, the store holds 30: the base stays above the end, and
        // the writer refuses to start, naming the loss
        assertThat(FenceBase.of(55L, 40L, 30L)).isEqualTo(55L);
    }
}
