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
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.lakestream.store.fluss.FlussStreamRoundTripITCase.paimonBucket;
import static io.lakestream.store.fluss.FlussStreamRoundTripITCase.partition;
import static io.lakestream.store.fluss.FlussStreamRoundTripITCase.readAll;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One writer that meets many partitions the store does not have yet, in one batch between two
 * flushes, as a job writing a day of hourly partitions or a backfill does: every partition is
 * created, every record lands in its own partition-bucket at the offsets the flush reports, and
 * each partition's records are contiguous from offset 0.
 */
@ExtendWith(SharedFlussCluster.class)
class ManyNewPartitionsWriteITCase {

    private static final Logger LOG = LoggerFactory.getLogger(ManyNewPartitionsWriteITCase.class);

    private static final RowType ROW_TYPE =
            RowType.of(
                    new org.apache.paimon.types.DataType[] {
                        DataTypes.INT().notNull(), DataTypes.STRING(), DataTypes.STRING().notNull()
                    },
                    new String[] {"id", "name", "dt"});

    private static final int BUCKETS = 2;
    private static final int ROWS_PER_PARTITION = 8;

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
    void aFewNewPartitions() {
        writeNewPartitions("few_partitions", 4);
    }

    @Test
    void twoHundredNewPartitionsInOneBatch() {
        writeNewPartitions("many_partitions", 200);
    }

    private void writeNewPartitions(String name, int partitions) {
        StreamTable table =
                store.provision(
                        new StreamTableSpec(
                                Identifier.create("new_partitions", name),
                                ROW_TYPE,
                                Collections.singletonList("dt"),
                                Collections.singletonList("id"),
                                Collections.emptyList(),
                                BUCKETS));
        assertThat(store.listPartitions(table)).isEmpty();

        Map<PartitionBucket, Long> expected = new HashMap<>();
        Map<Integer, PartitionBucket> bucketOfId = new HashMap<>();
        long started = System.nanoTime();
        Map<PartitionBucket, Long> flushed;
        try (StreamWriter writer = store.createWriter(table)) {
            // rows of all partitions interleaved, as a shuffled input arrives
            for (int r = 0; r < ROWS_PER_PARTITION; r++) {
                for (int p = 0; p < partitions; p++) {
                    int id = p * ROWS_PER_PARTITION + r;
                    String dt = String.format("2026-%04d", p);
                    PartitionBucket pb =
                            new PartitionBucket(partition(dt), paimonBucket(id, BUCKETS));
                    writer.write(
                            pb,
                            GenericRow.of(
                                    id,
                                    BinaryString.fromString("row-" + id),
                                    BinaryString.fromString(dt)));
                    expected.merge(pb, 1L, Long::sum);
                    bucketOfId.put(id, pb);
                }
            }
            flushed = writer.flush();
        }
        LOG.info(
                "Wrote {} rows into {} new partitions and flushed in {} ms",
                partitions * ROWS_PER_PARTITION,
                partitions,
                (System.nanoTime() - started) / 1_000_000);

        assertThat(flushed).isEqualTo(expected);
        assertThat(store.listPartitions(table)).hasSize(partitions);
        assertThat(store.listOffsets(table, expected.keySet(), OffsetPosition.LATEST))
                .isEqualTo(expected);
        List<StreamRecord> read = readAll(store, table, expected);
        assertThat(read).hasSize(partitions * ROWS_PER_PARTITION);
        Map<PartitionBucket, Long> nextOffset = new HashMap<>();
        for (StreamRecord record : read) {
            int id = record.row().getInt(0);
            assertThat(record.partitionBucket()).isEqualTo(bucketOfId.get(id));
            assertThat(record.row().getString(2).toString())
                    .isEqualTo(String.format("2026-%04d", id / ROWS_PER_PARTITION));
            // a partition-bucket's records are contiguous from 0, in the order written
            long offset = nextOffset.getOrDefault(record.partitionBucket(), 0L);
            assertThat(record.offset()).isEqualTo(offset);
            nextOffset.put(record.partitionBucket(), offset + 1);
        }
        assertThat(nextOffset).isEqualTo(expected);
    }
}
