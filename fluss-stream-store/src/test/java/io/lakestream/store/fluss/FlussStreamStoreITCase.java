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

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.WriterLeaseEntry;
import io.lakestream.store.WriterLeaseLog;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.writer.AppendWriter;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.metadata.DataLakeFormat;
import org.apache.fluss.metadata.LogFormat;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.metadata.TablePath;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Provisioning, validation and the clear errors of the Fluss stream store. */
@ExtendWith(SharedFlussCluster.class)
class FlussStreamStoreITCase {

    private static StreamStore store;

    @BeforeAll
    static void open() {
        store = SharedFlussCluster.newStore();
    }

    @AfterAll
    static void close() {
        store.close();
    }

    private static StreamTableSpec spec(String table, int buckets) {
        return new StreamTableSpec(
                Identifier.create("store_it", table),
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
                buckets);
    }

    /** Creates a Fluss table in a database created when missing, as an older project did. */
    private static void createFlussTable(Admin admin, TablePath path, TableDescriptor descriptor)
            throws Exception {
        admin.createDatabase(
                        path.getDatabaseName(),
                        org.apache.fluss.metadata.DatabaseDescriptor.EMPTY,
                        true)
                .get();
        admin.createTable(path, descriptor, false).get();
    }

    /** The Fluss columns of {@link #spec}'s first two fields, matched to them by name. */
    private static Schema.Builder idAndName() {
        return Schema.newBuilder()
                .column("id", org.apache.fluss.types.DataTypes.INT().copy(false))
                .column("name", org.apache.fluss.types.DataTypes.STRING());
    }

    @Test
    void provisioningTwiceIsANoOpThatKeepsTheTable() {
        StreamTable first = store.provision(spec("twice", 4));
        StreamTable second = store.provision(spec("twice", 4));
        assertThat(second.storeTableId()).isEqualTo(first.storeTableId());
        assertThat(store.get(spec("twice", 4))).isEqualTo(first);
        assertThat(first.storeTableName()).isEqualTo("store_it.twice");
    }

    @Test
    void provisioningOverAMismatchingTableSaysWhatDiffers() {
        store.provision(spec("mismatch", 3));
        assertThatThrownBy(() -> store.provision(spec("mismatch", 4)))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("store_it.mismatch")
                .hasMessageContaining("bucket count is 3 but should be 4");
    }

    @Test
    void aTableCreatedWithoutPaimonBucketingIsRefused() throws Exception {
        try (Connection connection =
                        ConnectionFactory.createConnection(
                                SharedFlussCluster.cluster().getClientConfig());
                Admin admin = connection.getAdmin()) {
            createFlussTable(
                    admin,
                    TablePath.of("store_it", "no_lake_format"),
                    TableDescriptor.builder()
                            .schema(
                                    idAndName()
                                            .column("dt", org.apache.fluss.types.DataTypes.STRING())
                                            .build())
                            .partitionedBy("dt")
                            .distributedBy(2, "id")
                            .build());
        }
        assertThatThrownBy(() -> store.get(spec("no_lake_format", 2)))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("'table.datalake.format' is not set but should be paimon")
                .hasMessageContaining("'table.log.format' is ARROW but should be INDEXED");
    }

    @Test
    void aNullPartitionValueIsRefusedBeforeFlussFilesTheRow() {
        StreamTable table = store.provision(spec("null_partition", 1));
        BinaryRow nullPartition = new BinaryRow(1);
        BinaryRowWriter partitionWriter = new BinaryRowWriter(nullPartition);
        partitionWriter.setNullAt(0);
        partitionWriter.complete();
        try (StreamWriter writer = store.createWriter(table)) {
            assertThatThrownBy(
                            () ->
                                    writer.write(
                                            new PartitionBucket(nullPartition, 0),
                                            GenericRow.of(1, BinaryString.fromString("x"), null)))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("Partition column 'dt'")
                    .hasMessageContaining("store_it.null_partition")
                    .hasMessageContaining("null");
            assertThat(writer.flush()).isEmpty();
        }
        assertThat(store.listPartitions(table)).isEmpty();
    }

    @Test
    void anUnsupportedColumnTypeIsRefusedNamingTheColumn() {
        StreamTableSpec spec =
                new StreamTableSpec(
                        Identifier.create("store_it", "nested"),
                        RowType.of(
                                new org.apache.paimon.types.DataType[] {
                                    DataTypes.INT().notNull(), DataTypes.MULTISET(DataTypes.INT())
                                },
                                new String[] {"id", "tags"}),
                        Collections.emptyList(),
                        Collections.singletonList("id"),
                        Collections.emptyList(),
                        1);
        assertThatThrownBy(() -> store.provision(spec))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("Column 'tags'")
                .hasMessageContaining("store_it.nested")
                .hasMessageContaining("MULTISET<INT>");
    }

    @Test
    void aPartitionedTableNamedPartitionsIsRefusedBeforeItsWritesWouldHang() {
        assertThatThrownBy(() -> store.provision(spec("partitions", 2)))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("store_it.partitions")
                .hasMessageContaining("Rename the table");
        StreamTableSpec partitioned = spec("t", 2);
        StreamTableSpec inDatabasePartitions =
                new StreamTableSpec(
                        Identifier.create("partitions", "t"),
                        partitioned.rowType(),
                        partitioned.partitionKeys(),
                        partitioned.bucketKeys(),
                        partitioned.primaryKeys(),
                        2);
        assertThatThrownBy(() -> store.provision(inDatabasePartitions))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(LakeStreamOptions.STORE_DATABASE_PREFIX.key());
    }

    @Test
    void aMissingStreamTableIsNamed() {
        assertThatThrownBy(() -> store.get(spec("never_provisioned", 2)))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("store_it.never_provisioned does not exist")
                .hasMessageContaining(SharedFlussCluster.bootstrapServers());
    }

    @Test
    void aDroppedAndRecreatedTableInvalidatesOldHandles() {
        StreamTable old = store.provision(spec("recreated", 2));
        try (FenceLog fences = store.openFenceLog(old)) {
            // this client learns the first incarnation of the fence log
            assertThat(fences.readNew()).isEmpty();
        }
        assertThat(store.drop(old.spec().identifier(), null)).isTrue();
        StreamTable recreated = store.provision(spec("recreated", 2));
        assertThat(recreated.storeTableId()).isNotEqualTo(old.storeTableId());
        assertThatThrownBy(() -> store.createReader(old))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("was dropped and created again")
                .hasMessageContaining(
                        "table id " + old.storeTableId() + " is now " + recreated.storeTableId());
        // the checks that travel with other calls refuse the old handle as well
        PartitionBucket bucket = new PartitionBucket(FlussStreamRoundTripITCase.partition("a"), 0);
        List<PartitionBucket> buckets = Collections.singletonList(bucket);
        assertThatThrownBy(() -> store.listOffsets(old, buckets, OffsetPosition.LATEST))
                .hasMessageContaining("was dropped and created again");
        assertThatThrownBy(() -> store.openFenceLog(old))
                .hasMessageContaining("was dropped and created again");
        assertThatThrownBy(() -> store.openWriterLeaseLog(old))
                .hasMessageContaining("was dropped and created again");
        assertThat(store.listOffsets(recreated, buckets, OffsetPosition.LATEST))
                .containsEntry(bucket, 0L);
        // the new incarnation's logs work though the client knew the old ones under their names
        AbortedRange range = new AbortedRange(bucket, 3, 5);
        try (FenceLog fences = store.openFenceLog(recreated)) {
            fences.recordAll(Collections.singletonList(range));
        }
        try (FenceLog fences = store.openFenceLog(recreated)) {
            assertThat(fences.readNew()).containsExactly(range);
        }
        assertThat(store.drop(Identifier.create("store_it", "not_there"), null)).isFalse();
    }

    /** A listing of a dropped stream table fails at once and names it, not at the timeout. */
    @Test
    void listingADroppedStreamTableNamesIt() {
        StreamTable dropped = store.provision(spec("dropped_listing", 2));
        assertThat(store.drop(dropped.spec().identifier(), null)).isTrue();
        long started = System.nanoTime();
        assertThatThrownBy(
                        () ->
                                store.listOffsets(
                                        dropped,
                                        Collections.singletonList(
                                                new PartitionBucket(
                                                        FlussStreamRoundTripITCase.partition("a"),
                                                        1)),
                                        OffsetPosition.LATEST))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("store_it.dropped_listing does not exist");
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("failed before the request timeout")
                .isLessThan(LakeStreamOptions.STORE_REQUEST_TIMEOUT.defaultValue());
    }

    /**
     * A reading job's client has never seen the table its writer made: its first listing learns the
     * table and then its partitions (Fluss's client files a partition under a table its metadata
     * already knows).
     */
    @Test
    void aClientThatNeverSawTheTableListsTheEndsOfItsPartitions() {
        StreamTable table = store.provision(spec("fresh_client_ends", 2));
        PartitionBucket a0 = new PartitionBucket(FlussStreamRoundTripITCase.partition("a"), 0);
        PartitionBucket b1 = new PartitionBucket(FlussStreamRoundTripITCase.partition("b"), 1);
        PartitionBucket never =
                new PartitionBucket(FlussStreamRoundTripITCase.partition("never"), 0);
        try (StreamWriter writer = store.createWriter(table)) {
            for (int i = 0; i < 3; i++) {
                writer.write(
                        i < 2 ? a0 : b1,
                        GenericRow.of(
                                i,
                                BinaryString.fromString("n"),
                                BinaryString.fromString(i < 2 ? "a" : "b")));
            }
            assertThat(writer.flush()).isEqualTo(Map.of(a0, 2L, b1, 1L));
        }
        Map<String, String> ownConnection = new HashMap<>(SharedFlussCluster.lakeStreamOptions());
        ownConnection.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "client.id", "fresh-client-ends");
        try (StreamStore fresh = SharedFlussCluster.newStore(ownConnection)) {
            assertThat(
                            fresh.listOffsets(
                                    fresh.get(spec("fresh_client_ends", 2)),
                                    List.of(never, a0, b1),
                                    OffsetPosition.LATEST))
                    .isEqualTo(Map.of(a0, 2L, b1, 1L, never, 0L));
        }
    }

    @Test
    void anOffsetOutOfRangeIsRefused() {
        StreamTable table = store.provision(spec("out_of_range", 1));
        PartitionBucket pb = new PartitionBucket(FlussStreamRoundTripITCase.partition("a"), 0);
        try (StreamWriter writer = store.createWriter(table)) {
            for (int i = 0; i < 3; i++) {
                writer.write(
                        pb,
                        GenericRow.of(
                                i, BinaryString.fromString("n"), BinaryString.fromString("a")));
            }
            assertThat(writer.flush()).containsEntry(pb, 3L);
        }
        try (StreamReader reader = store.createReader(table)) {
            assertThatThrownBy(() -> reader.subscribe(pb, 7, StreamReader.NO_STOP_OFFSET))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("Offset 7")
                    .hasMessageContaining("store_it.out_of_range")
                    .hasMessageContaining("[0, 3)");
            // a partition the store does not have, read from past its beginning, was dropped
            // since: there is nothing left to read, and its log ends at once
            PartitionBucket missing =
                    new PartitionBucket(FlussStreamRoundTripITCase.partition("zz"), 0);
            reader.subscribe(missing, 1, StreamReader.NO_STOP_OFFSET);
            assertThat(reader.finished()).containsExactly(missing);
        }
    }

    @Test
    void anUnreachableClusterFailsPromptlyNamingTheAddress() {
        Map<String, String> options = new HashMap<>();
        options.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "bootstrap.servers", "127.0.0.1:1");
        options.put(LakeStreamOptions.STORE_REQUEST_TIMEOUT.key(), "3 s");
        long start = System.nanoTime();
        assertThatThrownBy(() -> StreamStoreLoader.create(options, getClass().getClassLoader()))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("127.0.0.1:1");
        System.out.printf(
                "Unreachable Fluss cluster reported after %d ms%n",
                Duration.ofNanos(System.nanoTime() - start).toMillis());
    }

    @Test
    void missingBootstrapServersAreNamed() {
        assertThatThrownBy(
                        () ->
                                StreamStoreLoader.create(
                                        Collections.emptyMap(), getClass().getClassLoader()))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("'lake-stream.fluss.bootstrap.servers' is required");
    }

    /**
     * A stream table created before stream records kept their writer's schema id (and before
     * columns recorded field ids) gains the schema-id column and its field ids when a job looks it
     * up; its older records, without a schema id, are read as written, beside the newer ones.
     */
    @Test
    void aStreamTableCreatedBeforeSchemaIdsGainsTheColumnAndKeepsItsRecords() throws Exception {
        TablePath path = TablePath.of("store_it", "before_schema_ids");
        try (Connection connection =
                        ConnectionFactory.createConnection(
                                SharedFlussCluster.cluster().getClientConfig());
                Admin admin = connection.getAdmin()) {
            createFlussTable(
                    admin,
                    path,
                    TableDescriptor.builder()
                            .schema(idAndName().build())
                            .distributedBy(1, "id")
                            .property(ConfigOptions.TABLE_DATALAKE_FORMAT, DataLakeFormat.PAIMON)
                            .property(ConfigOptions.TABLE_LOG_FORMAT, LogFormat.INDEXED)
                            .build());
            try (org.apache.fluss.client.table.Table fluss = connection.getTable(path)) {
                fluss.newAppend()
                        .createWriter()
                        .append(
                                org.apache.fluss.row.GenericRow.of(
                                        1, org.apache.fluss.row.BinaryString.fromString("older")))
                        .get();
            }
            // an unpartitioned spec of the same two columns, taken from Paimon schema 3
            StreamTableSpec partitioned = spec("before_schema_ids", 1);
            StreamTableSpec spec =
                    new StreamTableSpec(
                            partitioned.identifier(),
                            partitioned.rowType().project("id", "name"),
                            Collections.emptyList(),
                            partitioned.bucketKeys(),
                            partitioned.primaryKeys(),
                            1,
                            null,
                            3,
                            null);
            StreamTable table = store.get(spec);
            TableInfo info = admin.getTableInfo(path).get();
            assertThat(info.getSchema().getColumnNames())
                    .containsExactly("id", "name", FlussStreamTableLayout.SCHEMA_ID_COLUMN);
            assertThat(info.getCustomProperties().toMap())
                    .containsEntry(FlussColumnIds.PROPERTY_PREFIX + "id", "0")
                    .containsEntry(FlussColumnIds.PROPERTY_PREFIX + "name", "1");

            PartitionBucket bucket = new PartitionBucket(BinaryRow.EMPTY_ROW, 0);
            try (StreamWriter writer = store.createWriter(table)) {
                writer.write(bucket, GenericRow.of(2, BinaryString.fromString("newer")));
                writer.flush();
            }
            List<String> read = new ArrayList<>();
            for (StreamRecord record :
                    FlussStreamRoundTripITCase.readAll(store, table, Map.of(bucket, 2L))) {
                read.add(record.row().getInt(0) + " " + record.row().getString(1));
            }
            assertThat(read).containsExactly("1 older", "2 newer");
        }
    }

    @Test
    void listsPartitionsAsPaimonRows() {
        StreamTable table = store.provision(spec("listed_partitions", 2));
        try (StreamWriter writer = store.createWriter(table)) {
            for (String dt : List.of("2024-01-01", "2024-01-02")) {
                writer.write(
                        new PartitionBucket(FlussStreamRoundTripITCase.partition(dt), 0),
                        GenericRow.of(
                                1, BinaryString.fromString("x"), BinaryString.fromString(dt)));
            }
            writer.flush();
        }
        assertThat(store.listPartitions(table))
                .containsExactlyInAnyOrder(
                        FlussStreamRoundTripITCase.partition("2024-01-01"),
                        FlussStreamRoundTripITCase.partition("2024-01-02"));
    }

    /**
     * A lease log resumed at a position inside one of Fluss's batches starts at that record: the
     * scanner is handed whole batches and drops the records below the offset it was subscribed at.
     */
    @Test
    void aWriterLeaseLogResumedInsideABatchStartsAtItsPosition() throws Exception {
        StreamTable table = store.provision(spec("resumed_in_batch", 1));
        TablePath leases =
                FlussWriterLeaseLog.writerTablePath(TablePath.of("store_it", "resumed_in_batch"));
        try (Connection connection =
                        ConnectionFactory.createConnection(
                                SharedFlussCluster.cluster().getClientConfig());
                Table leaseTable = connection.getTable(leases)) {
            AppendWriter writer = leaseTable.newAppend().createWriter();
            List<CompletableFuture<?>> appended = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                appended.add(
                        writer.append(
                                org.apache.fluss.row.GenericRow.of(
                                        org.apache.fluss.row.BinaryString.fromString("job-" + i),
                                        org.apache.fluss.row.BinaryString.fromString("job " + i),
                                        false)));
            }
            CompletableFuture.allOf(appended.toArray(new CompletableFuture<?>[0])).get();
        }
        try (WriterLeaseLog whole = store.openWriterLeaseLog(table);
                WriterLeaseLog resumed = store.openWriterLeaseLog(table)) {
            List<WriterLeaseEntry> all = whole.readNew();
            assertThat(all).hasSize(10);
            resumed.seek(whole.position() - 6);
            assertThat(resumed.readNew()).isEqualTo(all.subList(4, 10));
            assertThat(resumed.position()).isEqualTo(whole.position());
        }
    }
}
