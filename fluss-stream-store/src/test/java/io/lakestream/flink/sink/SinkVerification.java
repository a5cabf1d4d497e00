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

import io.lakestream.flink.offsets.AbortedRanges;
import io.lakestream.flink.offsets.PartitionBucket;
import io.lakestream.flink.offsets.SnapshotOffsets;
import io.lakestream.flink.offsets.StreamOffsets;
import io.lakestream.flink.store.FenceLog;
import io.lakestream.flink.store.OffsetPosition;
import io.lakestream.flink.store.StreamReader;
import io.lakestream.flink.store.StreamRecord;
import io.lakestream.flink.store.StreamStore;
import io.lakestream.flink.store.StreamTable;
import io.lakestream.flink.store.StreamTableSpec;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the sink tests check after a job: Paimon's rows of a snapshot, the store's unfenced records
 * below a snapshot's offsets, and that every input row is in Paimon exactly once with every other
 * stored record fenced. Rows are rendered as {@code id|payload|dt}.
 */
final class SinkVerification {

    private final Catalog catalog;
    private final StreamStore store;

    SinkVerification(Catalog catalog, StreamStore store) {
        this.catalog = catalog;
        this.store = store;
    }

    /** Paimon's rows of one snapshot, rendered. */
    static List<String> readPaimon(FileStoreTable table, long snapshotId) throws Exception {
        FileStoreTable at =
                table.copy(Collections.singletonMap("scan.snapshot-id", "" + snapshotId));
        ReadBuilder read = at.newReadBuilder();
        List<String> rows = new ArrayList<>();
        try (RecordReader<InternalRow> reader =
                read.newRead().createReader(read.newScan().plan())) {
            reader.forEachRemaining(r -> rows.add(render(r)));
        }
        return rows;
    }

    static String render(InternalRow row) {
        return row.getInt(0) + "|" + row.getString(1) + "|" + row.getString(2);
    }

    AbortedRanges fences(StreamTable streamTable) {
        AbortedRanges fences = new AbortedRanges();
        try (FenceLog log = store.openFenceLog(streamTable)) {
            fences.addAll(log.readNew());
        }
        return fences;
    }

    /** The store's records below {@code offsets}, without fenced ones, rendered. */
    List<String> readStore(StreamTable table, StreamOffsets offsets) {
        List<String> rows = new ArrayList<>();
        for (StreamRecord record : readStoreRecords(table, offsets)) {
            rows.add(render(record.row()));
        }
        return rows;
    }

    /** The store's records below {@code offsets}, without fenced ones. */
    List<StreamRecord> readStoreRecords(StreamTable table, StreamOffsets offsets) {
        AbortedRanges fences = fences(table);
        List<StreamRecord> records = new ArrayList<>();
        try (StreamReader reader = store.createReader(table)) {
            int expected = 0;
            for (Map.Entry<PartitionBucket, Long> e : offsets.asMap().entrySet()) {
                if (e.getValue() > 0) {
                    reader.subscribe(e.getKey(), 0, e.getValue());
                    expected++;
                }
            }
            int finished = 0;
            long deadline = System.currentTimeMillis() + 60_000;
            while (finished < expected && System.currentTimeMillis() < deadline) {
                for (StreamRecord record : reader.poll(Duration.ofMillis(200))) {
                    if (!fences.isAborted(record.partitionBucket(), record.offset())) {
                        records.add(record);
                    }
                }
                finished += reader.finished().size();
            }
            assertThat(finished).as("partition-buckets read to their end").isEqualTo(expected);
        }
        return records;
    }

    /**
     * Asserts that the table's latest snapshot holds every one of {@code rows} input rows exactly
     * once, that the store's unfenced records below its offsets are exactly those rows, and that
     * every other record the store holds is fenced; returns the number of fenced records.
     */
    long assertExactlyOnce(Identifier identifier, int rows) throws Exception {
        FileStoreTable table = (FileStoreTable) catalog.getTable(identifier);
        long latest = table.snapshotManager().latestSnapshotId();
        List<String> lake = readPaimon(table, latest);
        Map<String, Integer> counts = new HashMap<>();
        lake.forEach(r -> counts.merge(r, 1, Integer::sum));
        assertThat(counts).hasSize(rows);
        assertThat(counts.values()).containsOnly(1);

        StreamTable streamTable = store.get(StreamTableSpec.of(identifier, table));
        StreamOffsets offsets = SnapshotOffsets.ofSnapshot(table, latest).orElseThrow();
        assertThat(readStore(streamTable, offsets)).containsExactlyInAnyOrderElementsOf(lake);
        // the job ended with a final commit: the snapshot covers everything the store holds
        Map<PartitionBucket, Long> ends =
                store.listOffsets(streamTable, offsets.asMap().keySet(), OffsetPosition.LATEST);
        assertThat(ends).isEqualTo(offsets.asMap());
        // what failed or abandoned attempts left in the store is exactly what is fenced
        AbortedRanges fences = fences(streamTable);
        long stored = ends.values().stream().mapToLong(Long::longValue).sum();
        long fenced = 0;
        for (Map.Entry<PartitionBucket, Long> e : ends.entrySet()) {
            fenced += fences.countAborted(e.getKey(), 0, e.getValue());
        }
        assertThat(stored).isEqualTo(rows + fenced);
        return fenced;
    }
}
