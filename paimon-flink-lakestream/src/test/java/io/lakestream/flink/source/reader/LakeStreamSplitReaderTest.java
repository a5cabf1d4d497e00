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

package io.lakestream.flink.source.reader;

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.flink.source.split.LakeStreamSplitState;
import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamSubscription;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LakeStreamSplitReader} on its own, on a real Paimon table, for splits whose log range is
 * empty (the lake part of a bounded read at the snapshot's offsets): what it emits, where a
 * restored split resumes, and how a bounded primary-key read returns merged rows; and with a store
 * of one process ({@link InMemoryLogStore}): how lake parts and logs interleave, how logs are
 * subscribed, the merge buffer's limit and the store deadline.
 */
class LakeStreamSplitReaderTest {

    @TempDir java.nio.file.Path warehouse;

    private FileStoreTable createTable(boolean primaryKey, int rows, int commits) throws Exception {
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("v", DataTypes.STRING())
                        .option("bucket", "1");
        if (primaryKey) {
            schema.primaryKey("id");
        } else {
            schema.option("bucket-key", "id");
        }
        FileStoreTable table =
                LocalPaimonTables.create(warehouse, primaryKey ? "pk" : "append", schema.build());
        for (int c = 0; c < commits; c++) {
            List<GenericRow> written = new ArrayList<>();
            for (int id = 0; id < rows; id++) {
                written.add(GenericRow.of(id, BinaryString.fromString("v" + c + "-" + id)));
            }
            LocalPaimonTables.commitWithoutOffsets(table, written);
        }
        return table;
    }

    private static LakeStreamSplit lakeOnlySplit(FileStoreTable table, long lakeRecordsEmitted) {
        List<DataSplit> lake = new ArrayList<>();
        for (Split split : table.newReadBuilder().newScan().plan().splits()) {
            lake.add((DataSplit) split);
        }
        return new LakeStreamSplit(
                PartitionBucket.ofUnpartitioned(0), lake, lakeRecordsEmitted, false, 42, 42);
    }

    private static LakeStreamSplitReader reader(FileStoreTable table) {
        return reader(table, Long.MAX_VALUE);
    }

    /** A reader that ends its splits after {@code limit} rows. */
    private static LakeStreamSplitReader reader(FileStoreTable table, long limit) {
        return new LakeStreamSplitReader(
                table,
                LocalPaimonTables.streamTable(table),
                Collections.emptyMap(),
                null,
                null,
                null,
                UnregisteredMetricsGroup.createSourceReaderMetricGroup(),
                limit);
    }

    /** Reads until the split finishes; returns its records in emission order. */
    private static List<LakeStreamRecord> readToEnd(
            LakeStreamSplitReader reader, LakeStreamSplit split) throws Exception {
        reader.handleSplitsChanges(new SplitsAddition<>(Collections.singletonList(split)));
        List<LakeStreamRecord> records = new ArrayList<>();
        Set<String> finished = new HashSet<>();
        for (int fetches = 0; !finished.contains(split.splitId()); fetches++) {
            assertThat(fetches).as("fetches before the split finished").isLessThan(1_000);
            records.addAll(consume(reader.fetch(), finished));
        }
        return records;
    }

    private static final InternalRowSerializer ROWS =
            new InternalRowSerializer(DataTypes.INT(), DataTypes.STRING());

    /**
     * The records of one fetch, taken as Flink's reader base takes them: each record before the
     * next is asked for, then the fetch recycled. Rows are copied as they pass, since a lake batch
     * hands over Paimon's reused rows; the splits the fetch finished go to {@code finished}.
     */
    private static List<LakeStreamRecord> consume(
            RecordsWithSplitIds<LakeStreamRecord> batch, Set<String> finished) {
        List<LakeStreamRecord> records = new ArrayList<>();
        for (String id = batch.nextSplit(); id != null; id = batch.nextSplit()) {
            for (LakeStreamRecord r = batch.nextRecordFromSplit();
                    r != null;
                    r = batch.nextRecordFromSplit()) {
                records.add(
                        r.isLakeFinished()
                                ? r
                                : r.fromLake
                                        ? LakeStreamRecord.lake(ROWS.copy(r.row), r.position)
                                        : LakeStreamRecord.log(
                                                ROWS.copy(r.row), r.position, r.timestamp));
            }
        }
        finished.addAll(batch.finishedSplits());
        batch.recycle();
        return records;
    }

    private static List<String> render(List<LakeStreamRecord> records) {
        List<String> rows = new ArrayList<>();
        for (LakeStreamRecord r : records) {
            rows.add(r.row.getRowKind().shortString() + r.row.getInt(0) + "|" + r.row.getString(1));
        }
        return rows;
    }

    @Test
    void appendSplitEmitsEveryLakeRowInOrderAndFinishes() throws Exception {
        FileStoreTable table = createTable(false, 2_500, 2);
        try (LakeStreamSplitReader reader = reader(table)) {
            List<LakeStreamRecord> records = readToEnd(reader, lakeOnlySplit(table, 0));
            assertThat(records).hasSize(5_000);
            for (int i = 0; i < records.size(); i++) {
                assertThat(records.get(i).fromLake).isTrue();
                // the position is what a checkpoint of the split keeps: lake records emitted
                assertThat(records.get(i).position).isEqualTo(i + 1);
            }
        }
    }

    /** A split restored from a checkpoint resumes after the lake records it had emitted. */
    @Test
    void restoredSplitResumesAfterTheLakeRecordsItEmitted() throws Exception {
        FileStoreTable table = createTable(false, 1_500, 2);
        List<String> all;
        try (LakeStreamSplitReader reader = reader(table)) {
            all = render(readToEnd(reader, lakeOnlySplit(table, 0)));
        }
        try (LakeStreamSplitReader reader = reader(table)) {
            List<String> resumed = render(readToEnd(reader, lakeOnlySplit(table, 1_234)));
            assertThat(resumed).isEqualTo(all.subList(1_234, all.size()));
        }
    }

    /**
     * When an unbounded split's lake part ends, the reader says so with a record of its own, before
     * it touches the store, so that the split's state can drop its lake part.
     */
    @Test
    void endOfTheLakePartIsReportedBeforeTheLogIsRead() throws Exception {
        FileStoreTable table = createTable(false, 1_500, 2);
        LakeStreamSplit split = unboundedSplit(table, lakeOnlySplit(table, 0).lakeSplits(), false);
        try (LakeStreamSplitReader reader = reader(table)) {
            reader.handleSplitsChanges(new SplitsAddition<>(Collections.singletonList(split)));
            List<LakeStreamRecord> records = new ArrayList<>();
            while (records.isEmpty() || !records.get(records.size() - 1).isLakeFinished()) {
                assertThat(records.size()).as("records before the end").isLessThan(3_001);
                records.addAll(fetchOnce(reader));
            }
            assertThat(records).hasSize(3_001);
            assertThat(records.get(3_000).position).isEqualTo(3_000);
        }
    }

    /**
     * Through {@link LakePartEnds}, as the source reader runs it, the end of the lake part moves
     * the split's state and is not handed over as a record: Flink's reader base counts each record
     * it is handed in {@code numRecordsIn}, which must count the rows alone (FLIP-33).
     */
    @Test
    void endOfTheLakePartReachesTheStateAndNoRecordCount() throws Exception {
        FileStoreTable table = createTable(false, 1_500, 2);
        LakeStreamSplit split = unboundedSplit(table, lakeOnlySplit(table, 0).lakeSplits(), false);
        LakePartEnds ends = new LakePartEnds();
        LakeStreamSplitState state = new LakeStreamSplitState(split);
        ends.register(split.splitId(), state);
        try (LakeStreamSplitReader lakeStreamReader = reader(table)) {
            SplitReader<LakeStreamRecord, LakeStreamSplit> reader =
                    ends.applyingTo(lakeStreamReader);
            reader.handleSplitsChanges(new SplitsAddition<>(Collections.singletonList(split)));
            List<LakeStreamRecord> records = new ArrayList<>();
            for (int fetches = 0; !state.toSplit().lakeFinished(); fetches++) {
                assertThat(fetches).as("fetches before the lake part ended").isLessThan(100);
                records.addAll(fetchOnce(reader));
            }
            assertThat(records).hasSize(3_000).noneMatch(LakeStreamRecord::isLakeFinished);
            assertThat(state.toSplit().lakeRecordsEmitted()).isEqualTo(3_000);
            assertThat(state.toSplit().lakeSplits()).isEmpty();
        }
    }

    /**
     * With a limit, the reader ends its split once that many rows are handed over, without reading
     * the rest of its files, and ends splits that come after it unread.
     */
    @Test
    void aLimitEndsTheSplitsOnceItsRowsAreHandedOver() throws Exception {
        FileStoreTable table = createTable(false, 1_500, 2);
        LakeStreamSplit first = lakeOnlySplit(table, 0);
        LakeStreamSplit second =
                new LakeStreamSplit(
                        PartitionBucket.ofUnpartitioned(1), first.lakeSplits(), 0, false, 42, 42);
        try (LakeStreamSplitReader reader = reader(table, 10)) {
            reader.handleSplitsChanges(new SplitsAddition<>(Collections.singletonList(first)));
            RecordsWithSplitIds<LakeStreamRecord> batch = reader.fetch();
            assertThat(batch.finishedSplits()).containsExactly(first.splitId());
            List<LakeStreamRecord> records = new ArrayList<>();
            for (String id = batch.nextSplit(); id != null; id = batch.nextSplit()) {
                for (LakeStreamRecord r = batch.nextRecordFromSplit();
                        r != null;
                        r = batch.nextRecordFromSplit()) {
                    records.add(r);
                }
            }
            assertThat(records).hasSize(10).allMatch(r -> r.fromLake);

            reader.handleSplitsChanges(new SplitsAddition<>(Collections.singletonList(second)));
            batch = reader.fetch();
            assertThat(batch.finishedSplits()).containsExactly(second.splitId());
            assertThat(batch.nextSplit()).as("no record of the later split").isNull();
        }
    }

    /** A split restored after its lake part ended reads no lake row again. */
    @Test
    void restoredSplitWithAFinishedLakePartReadsNoLakeRow() throws Exception {
        FileStoreTable table = createTable(false, 1_500, 2);
        LakeStreamSplit restored = unboundedSplit(table, Collections.emptyList(), true);
        try (LakeStreamSplitReader reader = reader(table)) {
            reader.handleSplitsChanges(new SplitsAddition<>(Collections.singletonList(restored)));
            List<LakeStreamRecord> records = fetchOnce(reader);
            assertThat(records).hasSize(1);
            assertThat(records.get(0).isLakeFinished()).isTrue();
        }
    }

    private static LakeStreamSplit unboundedSplit(
            FileStoreTable table, List<DataSplit> lake, boolean lakeFinished) {
        return new LakeStreamSplit(
                PartitionBucket.ofUnpartitioned(0),
                lake,
                lakeFinished ? 3_000 : 0,
                lakeFinished,
                42,
                StreamReader.NO_STOP_OFFSET);
    }

    private static List<LakeStreamRecord> fetchOnce(
            SplitReader<LakeStreamRecord, LakeStreamSplit> reader) throws Exception {
        return consume(reader.fetch(), new HashSet<>());
    }

    /** A bounded primary-key read merges by key and returns the table's rows as inserts. */
    @Test
    void boundedPrimaryKeySplitReturnsMergedRowsAsInserts() throws Exception {
        FileStoreTable table = createTable(true, 300, 3);
        try (LakeStreamSplitReader reader = reader(table)) {
            List<String> rows = render(readToEnd(reader, lakeOnlySplit(table, 0)));
            assertThat(rows).hasSize(300);
            List<String> expected = new ArrayList<>();
            for (int id = 0; id < 300; id++) {
                expected.add(RowKind.INSERT.shortString() + id + "|v2-" + id);
            }
            assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private final InMemoryLogStore store = new InMemoryLogStore();
    private final Map<String, Counter> counters = new HashMap<>();
    private final Map<String, Gauge<?>> gauges = new HashMap<>();

    private LakeStreamSplitReader readerWithStore(
            FileStoreTable table, Map<String, String> options) {
        return readerWithStore(table, options, null);
    }

    private LakeStreamSplitReader readerWithStore(
            FileStoreTable table,
            Map<String, String> options,
            @Nullable CommittedOffsets committed) {
        Map<String, String> all = new HashMap<>(options);
        all.put("lake-stream.fluss.bootstrap.servers", "fluss-host:9123");
        return new LakeStreamSplitReader(
                table,
                LocalPaimonTables.streamTable(table),
                all,
                null,
                null,
                committed,
                InternalSourceReaderMetricGroup.mock(
                        new UnregisteredMetricsGroup() {
                            @Override
                            public Counter counter(String name) {
                                return counters.computeIfAbsent(name, n -> new SimpleCounter());
                            }

                            @Override
                            public <C extends Counter> C counter(String name, C counter) {
                                counters.put(name, counter);
                                return counter;
                            }

                            @Override
                            public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
                                gauges.put(name, gauge);
                                return gauge;
                            }
                        }),
                Long.MAX_VALUE,
                () -> store);
    }

    /** Appends {@code count} inserts of ids from {@code firstId} on, all of value {@code v}. */
    private void appendInserts(PartitionBucket pb, int firstId, int count, String v) {
        for (int i = 0; i < count; i++) {
            store.append(pb, change(RowKind.INSERT, firstId + i, v));
        }
    }

    private static GenericRow change(RowKind kind, int id, String v) {
        return GenericRow.ofKind(kind, id, BinaryString.fromString(v));
    }

    /**
     * A bucket that switched to its log is served while another bucket still reads a long lake
     * part: its store records come before that lake part ends, not after the reader's whole lake
     * backlog.
     */
    @Test
    void switchedBucketIsServedWhileAnotherBucketReadsItsLakePart() throws Exception {
        FileStoreTable table = createTable(false, 5_000, 1);
        PartitionBucket fresh = PartitionBucket.ofUnpartitioned(1);
        appendInserts(fresh, 10_000, 3, "fresh");
        LakeStreamSplit switched =
                new LakeStreamSplit(
                        fresh, Collections.emptyList(), 0, true, 0, StreamReader.NO_STOP_OFFSET);
        LakeStreamSplit backlog =
                unboundedSplit(table, lakeOnlySplit(table, 0).lakeSplits(), false);
        try (LakeStreamSplitReader reader = readerWithStore(table, Collections.emptyMap())) {
            reader.handleSplitsChanges(new SplitsAddition<>(List.of(switched, backlog)));
            List<String> events = new ArrayList<>();
            while (!events.contains(backlog.splitId() + ":lake-finished")) {
                assertThat(events.size()).as("records read").isLessThan(10_000);
                RecordsWithSplitIds<LakeStreamRecord> batch = reader.fetch();
                for (String id = batch.nextSplit(); id != null; id = batch.nextSplit()) {
                    for (LakeStreamRecord r = batch.nextRecordFromSplit();
                            r != null;
                            r = batch.nextRecordFromSplit()) {
                        events.add(
                                id
                                        + ":"
                                        + (r.isLakeFinished()
                                                ? "lake-finished"
                                                : r.fromLake ? "lake" : "log"));
                    }
                }
                batch.recycle();
            }
            int firstLog = events.indexOf(switched.splitId() + ":log");
            assertThat(firstLog).as("the switched bucket's first log record").isNotNegative();
            assertThat(firstLog)
                    .as("served before the other bucket's lake part ended")
                    .isLessThan(events.indexOf(backlog.splitId() + ":lake-finished"));
            // per split, the lake part's end comes before its log
            assertThat(events.indexOf(switched.splitId() + ":lake-finished")).isLessThan(firstLog);
        }
    }

    /**
     * The reader's pending records count from the last record read of each log: records of two
     * buckets come in runs of one bucket each, and the reader notes where each run ended.
     */
    @Test
    void pendingRecordsCountFromTheLastRecordReadOfEachLog() throws Exception {
        FileStoreTable table = createTable(false, 100, 1);
        PartitionBucket first = PartitionBucket.ofUnpartitioned(0);
        PartitionBucket second = PartitionBucket.ofUnpartitioned(1);
        appendInserts(first, 1_000, 3, "first");
        appendInserts(second, 2_000, 5, "second");
        // logs planned up to offset 10: the store holds 3 and 5 of their records so far
        List<LakeStreamSplit> splits =
                List.of(
                        new LakeStreamSplit(first, Collections.emptyList(), 0, true, 0, 10),
                        new LakeStreamSplit(second, Collections.emptyList(), 0, true, 0, 10));
        try (LakeStreamSplitReader reader = readerWithStore(table, Collections.emptyMap())) {
            reader.handleSplitsChanges(new SplitsAddition<>(splits));
            Map<String, Integer> logRecords = new HashMap<>();
            for (int fetch = 0;
                    logRecords.values().stream().mapToInt(Integer::intValue).sum() < 8;
                    fetch++) {
                assertThat(fetch).as("fetches").isLessThan(100);
                RecordsWithSplitIds<LakeStreamRecord> batch = reader.fetch();
                for (String id = batch.nextSplit(); id != null; id = batch.nextSplit()) {
                    for (LakeStreamRecord r = batch.nextRecordFromSplit();
                            r != null;
                            r = batch.nextRecordFromSplit()) {
                        if (!r.isLakeFinished()) {
                            logRecords.merge(id, 1, Integer::sum);
                        }
                    }
                }
                batch.recycle();
            }
            assertThat(logRecords)
                    .isEqualTo(Map.of(splits.get(0).splitId(), 3, splits.get(1).splitId(), 5));
            // 7 of the first log's planned records and 5 of the second's are still to come
            assertThat(gauges.get("pendingRecords").getValue()).isEqualTo(12L);
        }
    }

    /**
     * A restore of many splits whose lake parts are done subscribes all their logs with one call,
     * and reads no lake row.
     */
    @Test
    void restoredSplitsAreSubscribedWithOneCallAndReadNoLakeRow() throws Exception {
        FileStoreTable table = createTable(false, 100, 1);
        List<LakeStreamSplit> restored = new ArrayList<>();
        for (int bucket = 0; bucket < 200; bucket++) {
            restored.add(
                    new LakeStreamSplit(
                            PartitionBucket.ofUnpartitioned(bucket),
                            Collections.emptyList(),
                            100,
                            true,
                            0,
                            StreamReader.NO_STOP_OFFSET));
        }
        try (LakeStreamSplitReader reader = readerWithStore(table, Collections.emptyMap())) {
            reader.handleSplitsChanges(new SplitsAddition<>(restored));
            reader.fetch();
            reader.fetch();
            assertThat(store.subscribeCalls).hasSize(1);
            assertThat(store.subscribeCalls.get(0))
                    .extracting(StreamSubscription::partitionBucket)
                    .hasSize(200);
            assertThat(counters.get(ReaderLagMetrics.LAKE_RECORDS_READ).getCount()).isZero();
        }
    }

    /**
     * A lake part read as Paimon stores it is handed over one Paimon batch at a time, as Flink's
     * reader base takes it: the fetcher reads the next batch only once the main thread recycled the
     * one before (Paimon reuses its rows), a wake-up ends that wait with no lake row, and the rows
     * still come in order with their positions.
     */
    @Test
    void theNextLakeBatchIsReadOnlyOnceTheMainThreadRecycledTheLastOne() throws Exception {
        FileStoreTable table = createTable(false, 5_000, 1);
        LakeStreamSplit split = lakeOnlySplit(table, 0);
        List<String> expected;
        try (LakeStreamSplitReader reader = reader(table)) {
            expected = render(readToEnd(reader, split));
        }
        try (LakeStreamSplitReader reader = reader(table)) {
            reader.handleSplitsChanges(new SplitsAddition<>(Collections.singletonList(split)));
            RecordsWithSplitIds<LakeStreamRecord> first = reader.fetch();
            CompletableFuture<List<LakeStreamRecord>> blocked =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return consume(reader.fetch(), new HashSet<>());
                                } catch (Exception e) {
                                    throw new RuntimeException(e);
                                }
                            });
            reader.wakeUp();
            assertThat(blocked.get(1, TimeUnit.MINUTES))
                    .as("a fetch woken up while the last batch is out")
                    .isEmpty();
            List<LakeStreamRecord> records = new ArrayList<>(consume(first, new HashSet<>()));
            assertThat(records).isNotEmpty().hasSizeLessThan(5_000);
            Set<String> finished = new HashSet<>();
            for (int fetches = 0; !finished.contains(split.splitId()); fetches++) {
                assertThat(fetches).as("fetches before the split finished").isLessThan(1_000);
                records.addAll(consume(reader.fetch(), finished));
            }
            assertThat(render(records)).isEqualTo(expected);
            for (int i = 0; i < records.size(); i++) {
                assertThat(records.get(i).position).isEqualTo(i + 1);
            }
        }
    }

    /** The counter of lake rows read counts every row read from Paimon's files. */
    @Test
    void lakeRowsReadAreCounted() throws Exception {
        FileStoreTable table = createTable(false, 700, 2);
        try (LakeStreamSplitReader reader = readerWithStore(table, Collections.emptyMap())) {
            readToEnd(reader, lakeOnlySplit(table, 0));
            assertThat(counters.get(ReaderLagMetrics.LAKE_RECORDS_READ).getCount())
                    .isEqualTo(1_400);
        }
    }

    private static LakeStreamSplit boundedSplit(FileStoreTable table, long stopOffset) {
        return new LakeStreamSplit(
                PartitionBucket.ofUnpartitioned(0),
                lakeOnlySplit(table, 0).lakeSplits(),
                0,
                false,
                0,
                stopOffset);
    }

    /**
     * Deduplicate without a sequence field keeps one change per key in memory, so many changes of
     * few keys pass the limit; as many distinct keys as the limit fail, naming table, option and
     * value.
     */
    @Test
    void mergeBufferHoldsOneChangePerKeyAndFailsPastItsLimit() throws Exception {
        FileStoreTable table = createTable(true, 20, 1);
        PartitionBucket pb = PartitionBucket.ofUnpartitioned(0);
        for (int i = 0; i < 500; i++) {
            store.append(pb, change(RowKind.UPDATE_AFTER, i % 5, "u" + i));
        }
        Map<String, String> options =
                Map.of(LakeStreamOptions.READ_MERGE_BUFFER_MAX_RECORDS.key(), "10");
        try (LakeStreamSplitReader reader = readerWithStore(table, options)) {
            List<String> rows = render(readToEnd(reader, boundedSplit(table, 500)));
            assertThat(rows).hasSize(20).contains("+I4|u499", "+I5|v0-5");
        }
        appendInserts(pb, 100, 20, "new");
        try (LakeStreamSplitReader reader = readerWithStore(table, options)) {
            assertThatThrownBy(() -> readToEnd(reader, boundedSplit(table, 520)))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining(table.fullName())
                    .hasMessageContaining("'lake-stream.read.merge-buffer.max-records'")
                    .hasMessageContaining("more than 10 ");
        }
    }

    /**
     * A bounded read whose store stops delivering the records it holds fails after the store
     * timeout, naming the table and the store's address, instead of waiting without end.
     */
    @Test
    void boundedReadOfAStoreThatDeliversNothingFailsAfterTheTimeout() throws Exception {
        FileStoreTable table = createTable(true, 20, 1);
        PartitionBucket pb = PartitionBucket.ofUnpartitioned(0);
        appendInserts(pb, 100, 5, "new");
        store.delivering = false;
        Map<String, String> options = Map.of(LakeStreamOptions.READ_STORE_TIMEOUT.key(), "300 ms");
        try (LakeStreamSplitReader reader = readerWithStore(table, options)) {
            long start = System.currentTimeMillis();
            assertThatThrownBy(() -> readToEnd(reader, boundedSplit(table, 5)))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("Timed out after 300 ms")
                    .hasMessageContaining(table.fullName())
                    .hasMessageContaining("fluss-host:9123")
                    .hasMessageContaining("'lake-stream.read.store-timeout'");
            assertThat(System.currentTimeMillis() - start).isLessThan(10_000);
        }
    }

    /**
     * An unbounded read fails after the store timeout when the store holds records of a log it
     * reads but delivers none; an idle log does not fail.
     */
    @Test
    void unboundedReadFailsWhenTheStoreHoldsRecordsItDoesNotDeliver() throws Exception {
        FileStoreTable table = createTable(false, 10, 1);
        PartitionBucket pb = PartitionBucket.ofUnpartitioned(0);
        Map<String, String> options = Map.of(LakeStreamOptions.READ_STORE_TIMEOUT.key(), "200 ms");
        try (LakeStreamSplitReader reader = readerWithStore(table, options)) {
            reader.handleSplitsChanges(
                    new SplitsAddition<>(
                            Collections.singletonList(
                                    new LakeStreamSplit(
                                            pb,
                                            Collections.emptyList(),
                                            0,
                                            true,
                                            0,
                                            StreamReader.NO_STOP_OFFSET))));
            long idleUntil = System.currentTimeMillis() + 1_000;
            while (System.currentTimeMillis() < idleUntil) {
                reader.fetch(); // idle: nothing in the store, no failure
            }
            store.delivering = false;
            store.append(pb, change(RowKind.INSERT, 1, "late"));
            assertThatThrownBy(
                            () -> {
                                for (int i = 0; i < 1_000; i++) {
                                    reader.fetch();
                                }
                            })
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining(table.fullName())
                    .hasMessageContaining("fluss-host:9123");
        }
    }

    /**
     * A read-committed reader with a hold of 10 records: a cancelled job's tail of 50 records in
     * one bucket fills it; that bucket is paused and the other bucket's committed rows still come;
     * once the next writer has fenced the tail and committed new records there, the bucket resumes
     * past the fence and returns only those.
     */
    @Test
    void aFullHoldPausesTheBucketHoldingMostAndFollowsTheOthers() throws Exception {
        FileStoreTable table = createTable(false, 1, 1);
        PartitionBucket tail = PartitionBucket.ofUnpartitioned(0);
        PartitionBucket other = PartitionBucket.ofUnpartitioned(1);
        appendInserts(tail, 0, 50, "cancelled");
        CommittedOffsets committed = new CommittedOffsets();
        List<LakeStreamSplit> splits = new ArrayList<>();
        for (PartitionBucket pb : List.of(tail, other)) {
            splits.add(
                    new LakeStreamSplit(
                            pb, Collections.emptyList(), 0, true, 0, StreamReader.NO_STOP_OFFSET));
        }
        Map<String, String> options =
                Map.of(LakeStreamOptions.READ_COMMITTED_MAX_HELD_RECORDS.key(), "10");
        try (LakeStreamSplitReader reader = readerWithStore(table, options, committed)) {
            reader.handleSplitsChanges(new SplitsAddition<>(splits));
            List<String> rows = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                rows.addAll(logRows(reader));
            }
            assertThat(rows).as("nothing is committed yet").isEmpty();
            assertThat(store.subscribeCalls.get(store.subscribeCalls.size() - 1))
                    .as("the last subscription")
                    .extracting(StreamSubscription::partitionBucket)
                    .containsExactlyInAnyOrder(tail, other);

            // another job commits three rows of the other bucket
            appendInserts(other, 100, 3, "other");
            committed.advance(StreamOffsets.of(Map.of(other, 3L)));
            awaitRows(reader, rows, 3);
            assertThat(rows).containsExactly("+I100|other", "+I101|other", "+I102|other");

            // the next writer of the tail's bucket fences the tail, writes and commits
            store.fences.add(new AbortedRange(tail, 0, 50));
            store.append(tail, change(RowKind.INSERT, 200, "later"));
            store.append(tail, change(RowKind.INSERT, 201, "later"));
            committed.advance(StreamOffsets.of(Map.of(tail, 52L, other, 3L)));
            awaitRows(reader, rows, 5);
            assertThat(rows.subList(3, 5)).containsExactly("+I200|later", "+I201|later");
            assertThat(store.subscribeCalls.get(store.subscribeCalls.size() - 1))
                    .as("the paused bucket resumes past the fence")
                    .containsExactly(new StreamSubscription(tail, 50, StreamReader.NO_STOP_OFFSET));
            for (int i = 0; i < 5; i++) {
                rows.addAll(logRows(reader));
            }
            assertThat(rows).hasSize(5);
        }
    }

    /** Fetches until {@code rows} has {@code count} log rows. */
    private static void awaitRows(LakeStreamSplitReader reader, List<String> rows, int count)
            throws Exception {
        for (int fetches = 0; rows.size() < count; fetches++) {
            assertThat(fetches).as("fetches before %d rows", count).isLessThan(100);
            rows.addAll(logRows(reader));
        }
    }

    /** The log rows of one fetch, rendered. */
    private static List<String> logRows(LakeStreamSplitReader reader) throws Exception {
        List<LakeStreamRecord> log = new ArrayList<>();
        for (LakeStreamRecord r : fetchOnce(reader)) {
            if (!r.fromLake && !r.isLakeFinished()) {
                log.add(r);
            }
        }
        return render(log);
    }
}
