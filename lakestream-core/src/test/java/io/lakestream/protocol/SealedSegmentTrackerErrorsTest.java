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

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link SealedSegmentTracker} says when a partition-bucket's end offset is not this writer's
 * progress: a foreign writer (another job, or a task of this job's earlier attempt still running on
 * a TaskManager cut off from the JobManager) or a store that lost records.
 */
class SealedSegmentTrackerErrorsTest {

    private static final StreamTable TABLE =
            new StreamTable(
                    new StreamTableSpec(
                            Identifier.create("db", "t"),
                            RowType.of(
                                    new org.apache.paimon.types.DataType[] {DataTypes.INT()},
                                    new String[] {"id"}),
                            Collections.emptyList(),
                            List.of("id"),
                            Collections.emptyList(),
                            2),
                    "db.t",
                    1L);

    private static final PartitionBucket BUCKET_1 = new PartitionBucket(BinaryRow.EMPTY_ROW, 1);

    private static SealedSegmentTracker wroteFive() {
        SealedSegmentTracker tracker =
                new SealedSegmentTracker(TABLE, Map.of(BUCKET_1, 100L), Map.of(BUCKET_1, 100L));
        for (int i = 0; i < 5; i++) {
            tracker.recordWritten(BinaryRow.EMPTY_ROW, 1);
        }
        return tracker;
    }

    @Test
    void recordsOfAnotherWriterNameTheRangeAndBothPossibleWriters() {
        assertThatThrownBy(() -> wroteFive().checkSealed(Map.of(BUCKET_1, 107L)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("bucket 1 of table db.t")
                .hasMessageContaining("expected 105 (sealed at 100")
                .hasMessageContaining("2 of the records in [100, 107)")
                .hasMessageContaining("Another job")
                .hasMessageContaining("earlier attempt of this job")
                .hasMessageContaining("'heartbeat.timeout'")
                .hasMessageContaining("lake_stream_status");
    }

    @Test
    void fewerRecordsThanWrittenSayTheStoreLostRecords() {
        assertThatThrownBy(() -> wroteFive().checkSealed(Map.of(BUCKET_1, 103L)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("expected 105")
                .hasMessageContaining("2 records fewer than this writer wrote")
                .hasMessageNotContaining("Another job");
    }
}
