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
package io.lakestream.store.testutils;

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.WriterLeaseEntry;
import io.lakestream.store.WriterLeaseLog;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every stream store keeps, tested through the store SPI alone: provisioning and
 * ownership, writes with row kinds, flush and end offsets, reads from an offset with and without a
 * stop, partitions listed and dropped, fences, writer leases, added fields, and the errors that
 * name what is wrong. A store's module runs it by extending this class and handing it an open
 * store, as Flink's connector test suites are run by extending their bases; the suite is shipped in
 * this module's test jar.
 */
public abstract class StreamStoreTestSuiteBase {

    /** How long one poll of a reader waits for records. */
    private static final Duration POLL = Duration.ofMillis(100);

    private static final StreamTableOwner OWNER =
            new StreamTableOwner("file:/warehouse/suite.db/owned", "creation 1");

    private static final StreamTableOwner OTHER_OWNER =
            new StreamTableOwner("file:/other-warehouse/suite.db/owned", "creation 2");

    /** The store under test, open for the whole class; the suite does not close it. */
    protected abstract StreamStore store();

    /**
     * The Paimon database of the suite's tables: one that no other test of the same store uses, so
     * that the suite can share a cluster with them.
     */
    protected abstract String database();

    // ---------------------------------------------------------------------------------------
    // provisioning and ownership
    // ---------------------------------------------------------------------------------------

    @Test
    void provisioningTwiceKeepsTheTableAndGetServesIt() throws Exception {
        StreamTable first = store().provision(appendSpec("twice", OWNER));
        StreamTable second = store().provision(appendSpec("twice", OWNER));
        assertThat(second).isEqualTo(first);
        assertThat(store().get(appendSpec("twice", OWNER))).isEqualTo(first);
    }

    @Test
    void aMissingStreamTableIsNamed() throws Exception {
        assertThatThrownBy(() -> store().get(appendSpec("never_provisioned", OWNER)))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(database() + ".never_provisioned");
    }

    @Test
    void anotherOwnersStreamTableIsNeitherServedNorDropped() throws Exception {
        StreamTable table = store().provision(appendSpec("owned", OWNER));
        assertThatThrownBy(() -> store().provision(appendSpec("owned", OTHER_OWNER)))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(OWNER.location());
        assertThatThrownBy(() -> store().get(appendSpec("owned", OTHER_OWNER)))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(OWNER.location());
        Identifier identifier = table.spec().identifier();
        assertThatThrownBy(() -> store().drop(identifier, OTHER_OWNER))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(OWNER.location())
                .hasMessageContaining(OTHER_OWNER.location());
        assertThat(store().get(appendSpec("owned", OWNER))).isEqualTo(table);

        assertThat(store().drop(identifier, OWNER)).isTrue();
        assertThatThrownBy(() -> store().get(appendSpec("owned", OWNER)))
                .isInstanceOf(StreamStoreException.class);
        assertThat(store().drop(identifier, OWNER)).isFalse();
    }

    @Test
    void aTableDroppedAndProvisionedAgainRefusesOldHandles() throws Exception {
        StreamTable old = store().provision(appendSpec("recreated", OWNER));
        assertThat(store().drop(old.spec().identifier(), OWNER)).isTrue();
        StreamTable recreated = store().provision(appendSpec("recreated", OWNER));
        assertThat(recreated.storeTableId()).isNotEqualTo(old.storeTableId());
        assertThatThrownBy(() -> store().createReader(old))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(database() + ".recreated");
        try (StreamReader reader = store().createReader(recreated)) {
            assertThat(reader.poll(Duration.ZERO)).isEmpty();
        }
    }

    // ---------------------------------------------------------------------------------------
    // writes, flush and reads
    // ---------------------------------------------------------------------------------------

    @Test
    void rowKindsOfAPrimaryKeyTableComeBackInOrderAtContiguousOffsets() throws Exception {
        StreamTable table = store().provision(primaryKeySpec("kinds", 1));
        PartitionBucket pb = new PartitionBucket(BinaryRow.EMPTY_ROW, 0);
        List<RowKind> kinds =
                Arrays.asList(
                        RowKind.INSERT,
                        RowKind.UPDATE_BEFORE,
                        RowKind.UPDATE_AFTER,
                        RowKind.DELETE,
                        RowKind.INSERT);
        try (StreamWriter writer = store().createWriter(table)) {
            GenericRow row = new GenericRow(2);
            for (int i = 0; i < kinds.size(); i++) {
                // one row object, changed after each write: the writer encodes before it returns
                row.setField(0, i);
                row.setField(1, BinaryString.fromString("v" + i));
                writer.write(pb, kinds.get(i), row);
            }
            assertThat(writer.flush()).containsExactly(Map.entry(pb, 5L));
        }
        List<StreamRecord> records = readAll(table, Map.of(pb, 0L), Map.of(pb, 5L));
        assertThat(records).extracting(StreamRecord::offset).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(records).extracting(StreamRecord::rowKind).isEqualTo(kinds);
        assertThat(records)
                .extracting(r -> r.row().getInt(0) + "=" + r.row().getString(1))
                .containsExactly("0=v0", "1=v1", "2=v2", "3=v3", "4=v4");
        assertThat(records).allSatisfy(r -> assertThat(r.partitionBucket()).isEqualTo(pb));
    }

    @Test
    void anAppendTableTakesInsertsAndUpdatesOnlyAndNamesTheTable() throws Exception {
        StreamTable table = store().provision(appendSpec("inserts_only", OWNER));
        PartitionBucket pb = new PartitionBucket(partition("a"), 0);
        try (StreamWriter writer = store().createWriter(table)) {
            assertThatThrownBy(() -> writer.write(pb, RowKind.DELETE, appendRow(1, "a")))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining(database() + ".inserts_only");
            writer.write(pb, RowKind.UPDATE_AFTER, appendRow(1, "a"));
            assertThat(writer.flush()).containsEntry(pb, 1L);
        }
    }

    @Test
    void flushReportsTheEndOffsetOfEveryPartitionBucketWrittenSince() throws Exception {
        StreamTable table = store().provision(appendSpec("flushes", OWNER));
        PartitionBucket a0 = new PartitionBucket(partition("a"), 0);
        PartitionBucket a1 = new PartitionBucket(partition("a"), 1);
        PartitionBucket b0 = new PartitionBucket(partition("b"), 0);
        try (StreamWriter writer = store().createWriter(table)) {
            write(writer, a0, "a", 3);
            write(writer, a1, "a", 1);
            write(writer, b0, "b", 2);
            assertThat(writer.flush()).isEqualTo(Map.of(a0, 3L, a1, 1L, b0, 2L));
            write(writer, a0, "a", 2);
            assertThat(writer.flush()).isEqualTo(Map.of(a0, 5L));
            assertThat(writer.flush()).isEmpty();
        }
        assertListsFromZeroTo(table, Map.of(a0, 5L, a1, 1L, b0, 2L), Arrays.asList(a0, a1, b0));
    }

    /** The store lists {@code pbs} at their {@code ends}, every one of them from offset 0. */
    private void assertListsFromZeroTo(
            StreamTable table, Map<PartitionBucket, Long> ends, List<PartitionBucket> pbs) {
        assertThat(store().listOffsets(table, pbs, OffsetPosition.LATEST)).isEqualTo(ends);
        Map<PartitionBucket, Long> zeros = new HashMap<>();
        pbs.forEach(pb -> zeros.put(pb, 0L));
        assertThat(store().listOffsets(table, pbs, OffsetPosition.EARLIEST)).isEqualTo(zeros);
    }

    @Test
    void partitionsTheStoreNeverHadListAtOffsetZeroBesideOnesItHas() throws Exception {
        StreamTable table = store().provision(appendSpec("never_written", OWNER));
        PartitionBucket a0 = new PartitionBucket(partition("a"), 0);
        PartitionBucket b1 = new PartitionBucket(partition("b"), 1);
        PartitionBucket never0 = new PartitionBucket(partition("never"), 0);
        PartitionBucket never1 = new PartitionBucket(partition("never"), 1);
        try (StreamWriter writer = store().createWriter(table)) {
            write(writer, a0, "a", 3);
            write(writer, b1, "b", 2);
            assertThat(writer.flush()).isEqualTo(Map.of(a0, 3L, b1, 2L));
        }
        // one listing that mixes them: a store that learns partitions in one request for all
        // must not lose the ones it has to the one it lacks
        assertListsFromZeroTo(
                table,
                Map.of(a0, 3L, b1, 2L, never0, 0L, never1, 0L),
                Arrays.asList(never0, a0, never1, b1));
    }

    @Test
    void aReadFromAnOffsetStopsBeforeItsStopOffsetAndSaysSo() throws Exception {
        StreamTable table = store().provision(appendSpec("ranges", OWNER));
        PartitionBucket pb = new PartitionBucket(partition("a"), 1);
        try (StreamWriter writer = store().createWriter(table)) {
            write(writer, pb, "a", 10);
            writer.flush();
        }
        List<StreamRecord> records = readAll(table, Map.of(pb, 3L), Map.of(pb, 7L));
        assertThat(records).extracting(StreamRecord::offset).containsExactly(3L, 4L, 5L, 6L);
        assertThat(records).extracting(r -> r.row().getInt(0)).containsExactly(3, 4, 5, 6);
    }

    @Test
    void anUnboundedReadSeesRecordsWrittenAfterItStarted() throws Exception {
        StreamTable table = store().provision(appendSpec("unbounded", OWNER));
        PartitionBucket pb = new PartitionBucket(partition("a"), 0);
        try (StreamReader reader = store().createReader(table);
                StreamWriter writer = store().createWriter(table)) {
            write(writer, pb, "a", 2);
            writer.flush();
            reader.subscribe(pb, 1, StreamReader.NO_STOP_OFFSET);
            write(writer, pb, "a", 3);
            writer.flush();
            List<Long> offsets = new ArrayList<>();
            Await.until(
                    () -> {
                        reader.poll(POLL).forEach(r -> offsets.add(r.offset()));
                        return offsets.size() >= 4;
                    },
                    "the unbounded read returns offsets 1 to 4");
            assertThat(offsets).containsExactly(1L, 2L, 3L, 4L);
            assertThat(reader.finished()).isEmpty();
        }
    }

    @Test
    void aStartOffsetPastTheEndIsRefusedNamingTheTable() throws Exception {
        StreamTable table = store().provision(appendSpec("out_of_range", OWNER));
        PartitionBucket pb = new PartitionBucket(partition("a"), 0);
        try (StreamWriter writer = store().createWriter(table)) {
            write(writer, pb, "a", 3);
            writer.flush();
        }
        try (StreamReader reader = store().createReader(table)) {
            assertThatThrownBy(() -> reader.subscribe(pb, 7, StreamReader.NO_STOP_OFFSET))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("7")
                    .hasMessageContaining(database() + ".out_of_range");
        }
    }

    // ---------------------------------------------------------------------------------------
    // partitions
    // ---------------------------------------------------------------------------------------

    @Test
    void partitionsAreListedAndADroppedOneStartsAgainAtOffsetZero() throws Exception {
        StreamTable table = store().provision(appendSpec("listed_partitions", OWNER));
        PartitionBucket a = new PartitionBucket(partition("a"), 0);
        PartitionBucket b = new PartitionBucket(partition("b"), 0);
        try (StreamWriter writer = store().createWriter(table)) {
            write(writer, a, "a", 2);
            write(writer, b, "b", 1);
            writer.flush();
        }
        assertThat(store().listPartitions(table))
                .containsExactlyInAnyOrder(partition("a"), partition("b"));
        assertThat(store().listPartitionBuckets(table)).hasSize(2 * table.spec().numBuckets());

        store().dropPartition(table, partition("a"));
        store().dropPartition(table, partition("never_written"));
        assertThat(store().listPartitions(table)).containsExactly(partition("b"));
        try (StreamReader reader = store().createReader(table)) {
            // a partition the store no longer has, read from past its beginning, ends at once
            reader.subscribe(a, 1, StreamReader.NO_STOP_OFFSET);
            assertThat(pollFinished(reader)).containsExactly(a);
        }
        try (StreamWriter writer = store().createWriter(table)) {
            write(writer, a, "a", 1);
            assertThat(writer.flush()).isEqualTo(Map.of(a, 1L));
        }
        assertThat(readAll(table, Map.of(a, 0L), Map.of(a, 1L))).hasSize(1);
    }

    // ---------------------------------------------------------------------------------------
    // fences and leases
    // ---------------------------------------------------------------------------------------

    @Test
    void fencesRecordedByOneLogAreReadByAnotherAndSkippedByAFencedReader() throws Exception {
        StreamTable table = store().provision(appendSpec("fenced", OWNER));
        PartitionBucket pb = new PartitionBucket(partition("a"), 0);
        try (StreamWriter writer = store().createWriter(table)) {
            write(writer, pb, "a", 6);
            writer.flush();
        }
        AbortedRange aborted = new AbortedRange(pb, 2, 4);
        try (FenceLog writing = store().openFenceLog(table);
                FenceLog reading = store().openFenceLog(table)) {
            writing.recordAll(Collections.singletonList(aborted));
            assertThat(reading.readNew()).containsExactly(aborted);
            assertThat(reading.readNew()).isEmpty();
            writing.record(new AbortedRange(pb, 5, 6));
            assertThat(reading.readNew()).containsExactly(new AbortedRange(pb, 5, 6));
        }
        try (FencedStreamReader reader =
                new FencedStreamReader(store().createReader(table), store().openFenceLog(table))) {
            reader.subscribe(pb, 0, 6);
            List<Long> offsets = new ArrayList<>();
            Await.until(
                    () -> {
                        reader.poll(POLL).forEach(r -> offsets.add(r.offset()));
                        return !reader.finished().isEmpty();
                    },
                    "the fenced read reaches its stop offset");
            assertThat(offsets).containsExactly(0L, 1L, 4L);
            assertThat(reader.skippedRecords()).isEqualTo(3);
        }
    }

    @Test
    void writerLeasesAreReadInTheOrderTheyWereAppended() throws Exception {
        StreamTable table = store().provision(appendSpec("leased", OWNER));
        try (WriterLeaseLog writing = store().openWriterLeaseLog(table);
                WriterLeaseLog reading = store().openWriterLeaseLog(table)) {
            writing.append("job-1", "job one, attempt 1");
            writing.append("job-2", "job two");
            writing.release("job-1", "job one, finished");
            List<WriterLeaseEntry> entries = reading.readNew();
            assertThat(entries)
                    .extracting(e -> e.owner() + (e.isRelease() ? " released" : " took"))
                    .containsExactly("job-1 took", "job-2 took", "job-1 released");
            assertThat(entries).extracting(WriterLeaseEntry::description).contains("job two");
            assertThat(reading.readNew()).isEmpty();
        }
    }

    @Test
    void aWriterLeaseLogResumesAtAPositionOfItsOwn() throws Exception {
        StreamTable table = store().provision(appendSpec("resumed_leases", OWNER));
        StreamTable other = store().provision(appendSpec("other_leases", OWNER));
        List<WriterLeaseEntry> all;
        long end;
        String id;
        try (WriterLeaseLog writing = store().openWriterLeaseLog(table)) {
            for (int i = 0; i < 5; i++) {
                writing.append("job-" + i, "job " + i);
            }
            writing.release("job-4", "job four, finished");
            all = writing.readNew();
            end = writing.position();
            id = writing.resumableId();
        }
        assertThat(all).hasSize(6);
        try (WriterLeaseLog resumed = store().openWriterLeaseLog(table);
                WriterLeaseLog another = store().openWriterLeaseLog(other)) {
            assertThat(resumed.resumableId())
                    .as("the same log opened again is resumable under the same name")
                    .isNotNull()
                    .isEqualTo(id);
            assertThat(another.resumableId()).isNotEqualTo(id);
            resumed.seek(end - 3);
            assertThat(resumed.position()).isEqualTo(end - 3);
            assertThat(resumed.readNew()).isEqualTo(all.subList(3, 6));
            assertThat(resumed.position()).isEqualTo(end);
            resumed.append("job-5", "job five");
            assertThat(resumed.readNew())
                    .extracting(WriterLeaseEntry::owner)
                    .containsExactly("job-5");
            assertThat(resumed.position()).isEqualTo(end + 1);
        }
    }

    // ---------------------------------------------------------------------------------------
    // schema evolution
    // ---------------------------------------------------------------------------------------

    @Test
    void anAddedFieldIsNullInOlderRecordsAndLeftOutByOlderReaders() throws Exception {
        StreamTableSpec before = primaryKeySpec("evolved", 2);
        List<DataField> fields = new ArrayList<>(before.rowType().getFields());
        fields.add(new DataField(2, "added", DataTypes.BIGINT()));
        StreamTableSpec after = withRowType(before, new RowType(fields));
        store().checkEvolution(before, after);

        StreamTable old = store().provision(before);
        PartitionBucket pb = new PartitionBucket(BinaryRow.EMPTY_ROW, 0);
        try (StreamWriter writer = store().createWriter(old)) {
            writer.write(pb, RowKind.INSERT, GenericRow.of(1, BinaryString.fromString("old")));
            writer.flush();
        }
        StreamTable evolved = store().provision(after);
        try (StreamWriter writer = store().createWriter(evolved)) {
            writer.write(pb, RowKind.INSERT, GenericRow.of(2, BinaryString.fromString("new"), 20L));
            assertThat(writer.flush()).isEqualTo(Map.of(pb, 2L));
        }
        assertThat(readAll(evolved, Map.of(pb, 0L), Map.of(pb, 2L)))
                .extracting(r -> render(r.row(), 3))
                .containsExactly("1|old|null", "2|new|20");
        assertThat(readAll(store().get(before), Map.of(pb, 0L), Map.of(pb, 2L)))
                .extracting(r -> render(r.row(), 2))
                .containsExactly("1|old", "2|new");
    }

    @Test
    void aChangeOfKeysOrBucketsIsRefusedNamingTheTable() throws Exception {
        StreamTableSpec spec = primaryKeySpec("keys", 2);
        StreamTableSpec moreBuckets =
                new StreamTableSpec(
                        spec.identifier(),
                        spec.rowType(),
                        spec.partitionKeys(),
                        spec.bucketKeys(),
                        spec.primaryKeys(),
                        4,
                        spec.owner().orElse(null));
        assertThatThrownBy(() -> store().checkEvolution(spec, moreBuckets))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(database() + ".keys");
    }

    // ---------------------------------------------------------------------------------------
    // helpers
    // ---------------------------------------------------------------------------------------

    /** An append table partitioned by {@code dt}: id INT NOT NULL, name STRING, dt STRING. */
    protected StreamTableSpec appendSpec(String table, StreamTableOwner owner) {
        return new StreamTableSpec(
                Identifier.create(database(), table),
                RowType.of(
                        new org.apache.paimon.types.DataType[] {
                            DataTypes.INT().notNull(),
                            DataTypes.STRING(),
                            DataTypes.STRING().notNull()
                        },
                        new String[] {"id", "name", "dt"}),
                Collections.singletonList("dt"),
                Collections.singletonList("id"),
                Collections.emptyList(),
                2,
                owner);
    }

    /** An unpartitioned primary-key table: id INT NOT NULL (the key), v STRING. */
    protected StreamTableSpec primaryKeySpec(String table, int buckets) {
        return new StreamTableSpec(
                Identifier.create(database(), table),
                RowType.of(
                        new org.apache.paimon.types.DataType[] {
                            DataTypes.INT().notNull(), DataTypes.STRING()
                        },
                        new String[] {"id", "v"}),
                Collections.emptyList(),
                Collections.singletonList("id"),
                Collections.singletonList("id"),
                buckets,
                OWNER);
    }

    private static StreamTableSpec withRowType(StreamTableSpec spec, RowType rowType) {
        return new StreamTableSpec(
                spec.identifier(),
                rowType,
                spec.partitionKeys(),
                spec.bucketKeys(),
                spec.primaryKeys(),
                spec.numBuckets(),
                spec.owner().orElse(null));
    }

    /** The Paimon partition row of an append table's {@code dt} value. */
    protected static BinaryRow partition(String dt) {
        BinaryRow row = new BinaryRow(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeString(0, BinaryString.fromString(dt));
        writer.complete();
        return row;
    }

    private static GenericRow appendRow(int id, String dt) {
        return GenericRow.of(id, BinaryString.fromString("n" + id), BinaryString.fromString(dt));
    }

    private static void write(StreamWriter writer, PartitionBucket pb, String dt, int count) {
        for (int i = 0; i < count; i++) {
            writer.write(pb, RowKind.INSERT, appendRow(i, dt));
        }
    }

    /** Reads each partition-bucket from its start to its stop offset, failing after a minute. */
    private List<StreamRecord> readAll(
            StreamTable table, Map<PartitionBucket, Long> starts, Map<PartitionBucket, Long> stops)
            throws Exception {
        List<StreamRecord> records = new ArrayList<>();
        try (StreamReader reader = store().createReader(table)) {
            starts.forEach((pb, start) -> reader.subscribe(pb, start, stops.get(pb)));
            Set<PartitionBucket> finished = new HashSet<>();
            Await.until(
                    () -> {
                        records.addAll(reader.poll(POLL));
                        finished.addAll(reader.finished());
                        return finished.size() == starts.size();
                    },
                    "every partition-bucket of " + starts.keySet() + " is read to its stop");
        }
        return records;
    }

    /** Polls {@code reader}, which must return no record, until a partition-bucket finishes. */
    private static List<PartitionBucket> pollFinished(StreamReader reader) throws Exception {
        List<PartitionBucket> finished = new ArrayList<>(reader.finished());
        Await.until(
                () -> {
                    assertThat(reader.poll(POLL)).isEmpty();
                    finished.addAll(reader.finished());
                    return !finished.isEmpty();
                },
                "a partition-bucket finishes");
        return finished;
    }

    private static String render(InternalRow row, int arity) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < arity; i++) {
            if (i > 0) {
                text.append('|');
            }
            text.append(
                    row.isNullAt(i)
                            ? "null"
                            : i == 0 ? row.getInt(i) : i == 1 ? row.getString(i) : row.getLong(i));
        }
        return text.toString();
    }
}
