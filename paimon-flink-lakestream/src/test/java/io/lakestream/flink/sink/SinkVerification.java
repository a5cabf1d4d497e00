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

import io.lakestream.flink.source.LakeStreamSource;
import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.offsets.AbortedRanges;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;

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

    /**
     * A bounded union read of {@code table} through the lake-stream source (Paimon's latest
     * snapshot, then the store from its offsets), rendered.
     */
    static List<String> readUnion(FileStoreTable table) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        LakeStreamSource source =
                LakeStreamSource.builder()
                        .setTable(table)
                        .setBounded(true)
                        .setOptions(SharedStreamStore.lakeStreamOptions())
                        .build();
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<RowData> it =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "union read")
                        .executeAndCollect()) {
            it.forEachRemaining(
                    r -> rows.add(r.getInt(0) + "|" + r.getString(1) + "|" + r.getString(2)));
        }
        return rows;
    }

    /** The number of fenced records of the stream table below the store's current ends. */
    long fencedRecords(StreamTable streamTable) {
        AbortedRanges fences = fences(streamTable);
        long fenced = 0;
        for (Map.Entry<PartitionBucket, Long> end :
                store.listOffsets(
                                streamTable,
                                store.listPartitionBuckets(streamTable),
                                OffsetPosition.LATEST)
                        .entrySet()) {
            fenced += fences.countAborted(end.getKey(), 0, end.getValue());
        }
        return fenced;
    }

    /**
     * Asserts the boundary at every retained snapshot of a table that only the sink wrote: its rows
     * are exactly the store's unfenced records below its offsets.
     */
    void assertEverySnapshotHoldsTheStoreBelowItsOffsets(FileStoreTable table) throws Exception {
        StreamTable streamTable =
                store.get(StreamTableSpec.of(Identifier.fromString(table.fullName()), table));
        long latest = table.snapshotManager().latestSnapshotId();
        for (long id = table.snapshotManager().earliestSnapshotId(); id <= latest; id++) {
            StreamOffsets offsets = SnapshotOffsets.ofSnapshot(table, id).orElseThrow();
            SameRows.assertSameRows(
                    "store records below the offsets of snapshot " + id,
                    readStore(streamTable, offsets),
                    readPaimon(table, id));
        }
    }

    /** The stream table of {@code table}. */
    StreamTable streamTable(FileStoreTable table) {
        return store.get(StreamTableSpec.of(Identifier.fromString(table.fullName()), table));
    }

    /** How many records the store holds in {@code partitionBuckets}: their end offsets' sum. */
    long storedRecords(StreamTable table, List<PartitionBucket> partitionBuckets) {
        return store.listOffsets(table, partitionBuckets, OffsetPosition.LATEST).values().stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    /**
     * Every snapshot of primary-key table {@code table} (keyed by its first and third column, as
     * {@link SinkTestTables} keys it) equals the store's changes below its offsets merged by key: a
     * key's changes are all in one partition-bucket, in offset order; a delete removes the key.
     */
    void assertEverySnapshotEqualsTheStoreMergedByKey(FileStoreTable table) throws Exception {
        StreamTable streamTable = streamTable(table);
        long latest = table.snapshotManager().latestSnapshotId();
        for (long id = table.snapshotManager().earliestSnapshotId(); id <= latest; id++) {
            StreamOffsets offsets = SnapshotOffsets.ofSnapshot(table, id).orElseThrow();
            Map<String, String> merged = new HashMap<>();
            List<StreamRecord> records = readStoreRecords(streamTable, offsets);
            records.sort(java.util.Comparator.comparingLong(StreamRecord::offset));
            for (StreamRecord record : records) {
                InternalRow row = record.row();
                String key = row.getInt(0) + "|" + row.getString(2);
                if (record.rowKind() == org.apache.paimon.types.RowKind.DELETE) {
                    merged.remove(key);
                } else {
                    merged.put(key, render(row));
                }
            }
            SameRows.assertSameRows(
                    "the store's changes below the offsets of snapshot " + id + " merged by key",
                    merged.values(),
                    readPaimon(table, id));
        }
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
        SameRows.assertSameRows(
                "store records below the offsets of snapshot " + latest,
                readStore(streamTable, offsets),
                lake);
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
