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

package io.lakestream.store.fluss;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static io.lakestream.store.fluss.FlussStreamRoundTripITCase.partition;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dropping a partition of a stream table: the store no longer lists it, a log read of it ends (one
 * running when it went, and one started from an offset of it afterwards), and a partition created
 * again under the same name starts its logs at offset 0.
 */
@ExtendWith(SharedFlussCluster.class)
class DroppedStreamPartitionITCase {

    private static final RowType ROW_TYPE =
            RowType.of(
                    new org.apache.paimon.types.DataType[] {
                        DataTypes.INT().notNull(), DataTypes.STRING().notNull()
                    },
                    new String[] {"id", "dt"});

    private static StreamStore store;

    @BeforeAll
    static void open() {
        store = SharedFlussCluster.newStore();
    }

    @AfterAll
    static void close() {
        store.close();
    }

    @Test
    void aDroppedPartitionEndsItsReadsAndStartsOverWhenCreatedAgain() throws Exception {
        StreamTable table =
                store.provision(
                        new StreamTableSpec(
                                Identifier.create("dropped_partitions", "t"),
                                ROW_TYPE,
                                Collections.singletonList("dt"),
                                Collections.singletonList("id"),
                                Collections.emptyList(),
                                1));
        BinaryRow hour1 = partition("2026010101");
        BinaryRow hour2 = partition("2026010102");
        PartitionBucket old = new PartitionBucket(hour1, 0);
        PartitionBucket live = new PartitionBucket(hour2, 0);
        assertThat(write(table, old, 3)).containsEntry(old, 3L);
        write(table, live, 2);

        try (StreamReader running = store.createReader(table)) {
            running.subscribe(old, 0, StreamReader.NO_STOP_OFFSET);
            List<StreamRecord> read = new ArrayList<>();
            Await.until(
                    () -> {
                        read.addAll(running.poll(Duration.ofMillis(100)));
                        return read.size() == 3;
                    },
                    "the three records of the partition are read");

            store.dropPartition(table, hour1);
            assertThat(store.listPartitions(table)).containsExactly(hour2);
            // a second drop of it is no error: a retried commit drops it again
            store.dropPartition(table, hour1);

            List<PartitionBucket> finished = new ArrayList<>();
            Await.until(
                    () -> {
                        running.poll(Duration.ofMillis(100));
                        finished.addAll(running.finished());
                        return finished.contains(old);
                    },
                    "the running read of the dropped partition ends");
        }

        try (StreamReader restored = store.createReader(table)) {
            // a split restored at an offset of the dropped partition ends at once
            restored.subscribe(old, 3, StreamReader.NO_STOP_OFFSET);
            assertThat(restored.finished()).containsExactly(old);
        }

        assertThat(write(table, old, 1)).containsEntry(old, 1L);
        Map<PartitionBucket, Long> ends =
                store.listOffsets(table, Collections.singletonList(old), OffsetPosition.LATEST);
        assertThat(ends).containsEntry(old, 1L);
    }

    private static Map<PartitionBucket, Long> write(StreamTable table, PartitionBucket pb, int n) {
        try (StreamWriter writer = store.createWriter(table)) {
            for (int i = 0; i < n; i++) {
                writer.write(
                        pb,
                        RowKind.INSERT,
                        GenericRow.of(
                                i,
                                BinaryString.fromString(pb.partition().getString(0).toString())));
            }
            return writer.flush();
        }
    }
}
