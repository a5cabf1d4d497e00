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

package io.lakestream.spark;

import io.lakestream.embedded.LakeStreamTable;
import io.lakestream.embedded.LakeStreamWriter;
import io.lakestream.spark.catalog.LakeStreamSparkCatalog;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Spark reads lake-stream tables through {@link LakeStreamSparkCatalog} in {@code local[2]},
 * written with the embedded API (the Flink sink's protocol code) on the store a subclass names:
 * with an uncommitted tail the Spark read equals the embedded union read; once everything is
 * committed it equals Paimon's own read; a table not in lake-stream mode reads as Paimon reads it.
 * One Spark session per class, with the catalog {@code lake}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SparkReadTestBase {

    @TempDir static java.nio.file.Path warehouse;

    private SparkSession spark;
    private Catalog catalog;
    private final Map<String, String> lakeOptions = new HashMap<>();

    /** The store's options: {@code lake-stream.store} and its connection. */
    abstract Map<String, String> storeOptions();

    @BeforeAll
    void start() throws Exception {
        lakeOptions.putAll(storeOptions());
        // a unique prefix: stream tables of earlier classes and runs are another warehouse's
        lakeOptions.put("lake-stream.store.database-prefix", "spark" + UUID.randomUUID() + "_");
        catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(new Path(warehouse.toUri().toString())));
        catalog.createDatabase("db", true);
        spark = LocalSpark.start(2, warehouse.toUri().toString(), lakeOptions);
    }

    @AfterAll
    void stop() throws Exception {
        if (spark != null) {
            spark.stop();
        }
        catalog.close();
    }

    @Test
    void anAppendTableIsReadWithItsUncommittedTailAndAsPaimonReadsItAfterTheCommit()
            throws Exception {
        Identifier id = create("events", null, null, new HashMap<>());
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            writer.write(row(2, "b"));
            writer.commit();
            writer.write(row(3, "c"));
            writer.flush(); // readable by Spark's tasks at once, not after the batch timeout
            assertThat(sparkRead("SELECT id, name FROM lake.db.events"))
                    .containsExactlyInAnyOrder("1:a", "2:b", "3:c")
                    .containsExactlyInAnyOrderElementsOf(strings(table.newScan().read()));
            assertThat(paimonRead(id)).containsExactlyInAnyOrder("1:a", "2:b");

            writer.commit();
            assertThat(sparkRead("SELECT id, name FROM lake.db.events"))
                    .containsExactlyInAnyOrderElementsOf(paimonRead(id));
        }
    }

    @Test
    void aPrimaryKeyTableMergesTheTailsUpdatesAndDeletesAsPaimonDoes() throws Exception {
        Identifier id = create("orders", "id", null, new HashMap<>());
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            writer.write(row(2, "b"));
            writer.write(row(3, "c"));
            writer.commit();
            writer.write(kind(RowKind.UPDATE_BEFORE, row(1, "a")));
            writer.write(kind(RowKind.UPDATE_AFTER, row(1, "a2")));
            writer.write(kind(RowKind.DELETE, row(2, "b")));
            writer.write(row(4, "d"));

            writer.flush(); // readable by Spark's tasks at once, not after the batch timeout
            List<String> union = sparkRead("SELECT id, name FROM lake.db.orders");
            assertThat(union)
                    .containsExactlyInAnyOrder("1:a2", "3:c", "4:d")
                    .containsExactlyInAnyOrderElementsOf(strings(table.newScan().read()));
            // a projection and a filter, which Spark applies to the merged rows
            assertThat(sparkRead("SELECT id, name FROM lake.db.orders WHERE id > 2"))
                    .containsExactlyInAnyOrder("3:c", "4:d");
            assertThat(
                            spark.sql("SELECT name FROM lake.db.orders WHERE id = 1")
                                    .collectAsList()
                                    .get(0)
                                    .getString(0))
                    .isEqualTo("a2");
            // read-committed: the snapshot alone
            assertThat(
                            rows(
                                    spark.read()
                                            .option("lake-stream.read.isolation", "read-committed")
                                            .table("lake.db.orders")
                                            .collectAsList()))
                    .containsExactlyInAnyOrder("1:a", "2:b", "3:c");

            writer.commit();
            assertThat(paimonRead(id)).containsExactlyInAnyOrderElementsOf(union);
        }
    }

    @Test
    void aPartitionedPartialUpdateTableMergesColumnsAsPaimonDoes() throws Exception {
        Map<String, String> tableOptions = new HashMap<>();
        tableOptions.put("merge-engine", "partial-update");
        Identifier id = create("profiles", "id,dt", "dt", tableOptions);
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(GenericRow.of(1, BinaryString.fromString("a"), day("d1")));
            writer.commit();
            writer.write(GenericRow.of(1, null, day("d1")));
            writer.write(GenericRow.of(2, null, day("d2")));
            writer.write(GenericRow.of(2, BinaryString.fromString("b"), day("d2")));

            writer.flush(); // readable by Spark's tasks at once, not after the batch timeout
            List<String> union = sparkRead("SELECT id, name FROM lake.db.profiles");
            assertThat(union)
                    .containsExactlyInAnyOrder("1:a", "2:b")
                    .containsExactlyInAnyOrderElementsOf(strings(table.newScan().read()));
            // a filter on a value column holds only for the merged row: never tested before it
            assertThat(sparkRead("SELECT id, name FROM lake.db.profiles WHERE name = 'b'"))
                    .containsExactly("2:b");
            writer.commit();
            assertThat(paimonRead(id)).containsExactlyInAnyOrderElementsOf(union);
        }
    }

    @Test
    void aggregationAndFirstRowTablesMergeTheTailAsPaimonDoes() throws Exception {
        Map<String, String> aggregation = new HashMap<>();
        aggregation.put("merge-engine", "aggregation");
        aggregation.put("fields.name.aggregate-function", "max");
        Map<String, String> firstRow = new HashMap<>();
        firstRow.put("merge-engine", "first-row");
        for (Map.Entry<String, Map<String, String>> engine :
                Map.of("aggregated", aggregation, "first_row", firstRow).entrySet()) {
            Identifier id = create(engine.getKey(), "id", null, engine.getValue());
            try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions);
                    LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
                writer.write(row(1, "m"));
                writer.write(row(2, "m"));
                writer.commit();
                writer.write(row(1, "z"));
                writer.write(row(2, "a"));
                writer.write(row(3, "c"));
                writer.flush();

                String query = "SELECT id, name FROM lake.db." + engine.getKey();
                List<String> union = sparkRead(query);
                assertThat(union)
                        .as(engine.getKey())
                        .containsExactlyInAnyOrderElementsOf(strings(table.newScan().read()))
                        .containsExactlyInAnyOrder(
                                engine.getKey().equals("aggregated") ? "1:z" : "1:m", "2:m", "3:c");
                writer.commit();
                assertThat(paimonRead(id))
                        .as(engine.getKey())
                        .containsExactlyInAnyOrderElementsOf(union);
            }
        }
    }

    @Test
    void aSchemaChangeThroughPaimonsCatalogUnderAnUncommittedTailReadsWithTheNewSchema()
            throws Exception {
        Identifier id = create("evolving", "id", null, new HashMap<>());
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            writer.commit();
            writer.write(row(2, "b"));
            writer.write(kind(RowKind.DELETE, row(1, "a")));
            writer.flush();

            // another client evolves the table while the writer holds an uncommitted tail
            catalog.alterTable(
                    id,
                    java.util.Arrays.asList(
                            SchemaChange.addColumn("note", DataTypes.STRING()),
                            SchemaChange.renameColumn("name", "label")),
                    false);
            assertThat(
                            rows(
                                    spark.sql("SELECT id, label, note FROM lake.db.evolving")
                                            .collectAsList()))
                    .containsExactly("2:b");
            assertThat(spark.sql("SELECT note FROM lake.db.evolving").first().isNullAt(0)).isTrue();

            // the writer of the old schema writes on and commits, as Paimon's own writer would
            writer.write(row(3, "c"));
            writer.commit();
            assertThat(sparkRead("SELECT id, label FROM lake.db.evolving"))
                    .containsExactlyInAnyOrder("2:b", "3:c")
                    .containsExactlyInAnyOrderElementsOf(paimonRead(id));
        }
    }

    @Test
    void aLimitReadsOnlyThePartitionBucketsItNeeds() throws Exception {
        Identifier id = create("limited", null, null, new HashMap<>());
        Identifier keyed = create("limited_keyed", "id", null, new HashMap<>());
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID());
                LakeStreamTable keyedTable = LakeStreamTable.open(catalog, keyed, lakeOptions);
                LakeStreamWriter keyedWriter =
                        keyedTable.newWriter("writer-" + UUID.randomUUID())) {
            for (int i = 1; i <= 8; i++) {
                writer.write(row(i, "n" + i));
                keyedWriter.write(row(i, "n" + i));
            }
            writer.commit();
            keyedWriter.commit();
            writer.write(row(9, "n9"));
            keyedWriter.write(kind(RowKind.DELETE, row(1, "n1")));
            writer.flush();
            keyedWriter.flush();

            String limited = "SELECT id, name FROM lake.db.limited LIMIT 3";
            assertThat(sparkRead(limited))
                    .hasSize(3)
                    .isSubsetOf(sparkRead("SELECT id, name FROM lake.db.limited"));
            // two buckets with committed rows: the first one planned holds one row at least
            assertThat(scannedPartitions("SELECT id, name FROM lake.db.limited LIMIT 1"))
                    .isEqualTo(1);
            assertThat(scannedPartitions("SELECT id, name FROM lake.db.limited")).isEqualTo(2);

            // a primary-key table's rows are known after the merge: every bucket is read
            String keyedLimited = "SELECT id, name FROM lake.db.limited_keyed LIMIT 7";
            assertThat(sparkRead(keyedLimited))
                    .hasSize(7)
                    .doesNotContain("1:n1")
                    .isSubsetOf(sparkRead("SELECT id, name FROM lake.db.limited_keyed"));
            assertThat(scannedPartitions(keyedLimited)).isEqualTo(2);
        }
    }

    /** How many input partitions the scan of {@code query} has. */
    private int scannedPartitions(String query) {
        org.apache.spark.sql.execution.SparkPlan plan =
                spark.sql(query).queryExecution().executedPlan();
        scala.collection.Iterator<org.apache.spark.sql.execution.SparkPlan> leaves =
                plan.collectLeaves().iterator();
        while (leaves.hasNext()) {
            org.apache.spark.sql.execution.SparkPlan leaf = leaves.next();
            if (leaf instanceof org.apache.spark.sql.execution.datasources.v2.BatchScanExec) {
                return ((org.apache.spark.sql.execution.datasources.v2.BatchScanExec) leaf)
                        .inputPartitions()
                        .size();
            }
        }
        throw new AssertionError("No batch scan in the plan of " + query + ": " + plan);
    }

    @Test
    void aPartitionFilterPrunesThePartitionBucketsItExcludes() throws Exception {
        Identifier id = create("daily", null, "dt", new HashMap<>());
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            for (int i = 1; i <= 8; i++) {
                writer.write(GenericRow.of(i, BinaryString.fromString("n" + i), day("d1")));
                writer.write(GenericRow.of(i, BinaryString.fromString("m" + i), day("d2")));
            }
            writer.commit();
            writer.write(GenericRow.of(9, BinaryString.fromString("n9"), day("d1")));
            writer.write(GenericRow.of(9, BinaryString.fromString("m9"), day("d2")));
            writer.flush(); // readable by Spark's tasks at once, not after the batch timeout

            String all = "SELECT id, name FROM lake.db.daily";
            String d1 = all + " WHERE dt = 'd1'";
            assertThat(sparkRead(d1))
                    .hasSize(9)
                    .allSatisfy(row -> assertThat(row).contains(":n"))
                    .contains("9:n9");
            // two partitions of two buckets each; the filter leaves one partition's buckets
            assertThat(spark.sql(all).rdd().getNumPartitions()).isEqualTo(4);
            assertThat(spark.sql(d1).rdd().getNumPartitions()).isEqualTo(2);
        }
    }

    @Test
    void timeTravelReadsASnapshotOrATagExactlyWithoutTheStore() throws Exception {
        Identifier id = create("travelled", "id", null, new HashMap<>());
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            long first = writer.commit();
            long firstMillis =
                    ((FileStoreTable) catalog.getTable(id))
                            .snapshotManager()
                            .snapshot(first)
                            .timeMillis();
            // the next commit later than the first, so that a time picks the first alone
            Await.until(() -> System.currentTimeMillis() > firstMillis, "a millisecond passes");
            writer.write(kind(RowKind.UPDATE_AFTER, row(1, "a2")));
            writer.write(row(2, "b"));
            long second = writer.commit();
            catalog.getTable(id).createTag("before_b", first);
            writer.write(row(3, "c"));
            writer.flush(); // readable by Spark's tasks at once, not after the batch timeout

            assertThat(sparkRead("SELECT id, name FROM lake.db.travelled VERSION AS OF " + first))
                    .containsExactly("1:a");
            assertThat(sparkRead("SELECT id, name FROM lake.db.travelled VERSION AS OF " + second))
                    .containsExactlyInAnyOrder("1:a2", "2:b");
            assertThat(sparkRead("SELECT id, name FROM lake.db.travelled VERSION AS OF 'before_b'"))
                    .containsExactly("1:a");
            assertThat(
                            sparkRead(
                                    "SELECT id, name FROM lake.db.travelled TIMESTAMP AS OF "
                                            + "timestamp_millis("
                                            + firstMillis
                                            + ")"))
                    .containsExactly("1:a");
            assertThat(sparkRead("SELECT id, name FROM lake.db.travelled"))
                    .containsExactlyInAnyOrder("1:a2", "2:b", "3:c");
        }
    }

    @Test
    void aTableNotInLakeStreamModeReadsAsPaimonReadsIt() throws Exception {
        Identifier id = Identifier.create("db", "plain");
        catalog.createTable(
                id,
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("name", DataTypes.STRING())
                        .primaryKey("id")
                        .option("bucket", "2")
                        .build(),
                false);
        org.apache.paimon.table.sink.BatchWriteBuilder write =
                catalog.getTable(id).newBatchWriteBuilder();
        try (org.apache.paimon.table.sink.BatchTableWrite w = write.newWrite();
                org.apache.paimon.table.sink.BatchTableCommit c = write.newCommit()) {
            w.write(row(1, "x"));
            w.write(row(2, "y"));
            c.commit(w.prepareCommit());
        }
        assertThat(sparkRead("SELECT id, name FROM lake.db.plain"))
                .containsExactlyInAnyOrder("1:x", "2:y")
                .containsExactlyInAnyOrderElementsOf(paimonRead(id));
    }

    @Test
    void theCatalogListsTheWarehouseAndRefusesToChangeIt() throws Exception {
        create("listed", null, null, new HashMap<>());
        assertThat(rows(spark.sql("SHOW NAMESPACES IN lake").collectAsList())).contains("db");
        List<String> tables = new ArrayList<>();
        for (Row row : spark.sql("SHOW TABLES IN lake.db").collectAsList()) {
            tables.add(row.getString(1));
        }
        assertThat(tables).contains("listed");
        assertThat(rows(spark.sql("DESCRIBE TABLE lake.db.listed").collectAsList()))
                .anySatisfy(line -> assertThat(line).startsWith("id:int"));
        assertThatThrownBy(() -> spark.sql("CREATE TABLE lake.db.created (id INT)"))
                .hasMessageContaining("lake-stream Spark catalog 'lake' reads tables");
        // a read option may not point the read at another store
        assertThatThrownBy(
                        () ->
                                spark.read()
                                        .option("lake-stream.store.database-prefix", "elsewhere_")
                                        .table("lake.db.listed")
                                        .collectAsList())
                .hasMessageContaining("Table db.listed: 'lake-stream.store.database-prefix'")
                .hasMessageContaining("cannot be set by a statement");
        // nor a value its option cannot read
        assertThatThrownBy(
                        () ->
                                spark.read()
                                        .option("lake-stream.read.isolation", "serializable")
                                        .table("lake.db.listed")
                                        .collectAsList())
                .hasMessageContaining(
                        "Table db.listed: 'lake-stream.read.isolation' cannot be 'serializable'");
        assertThatThrownBy(() -> spark.sql("INSERT INTO lake.db.listed VALUES (1, 'a')"))
                .hasMessageContaining("Cannot write table db.listed from Spark")
                .hasMessageContaining("Write it with Flink");
    }

    @Test
    void aStreamingReadOfAPrimaryKeyTablesAuditLogAppliesToPaimonsRowsAcrossARestart()
            throws Exception {
        Identifier id = create("changing", "id,dt", "dt", new HashMap<>());
        String checkpoint = warehouse.resolve("checkpoint-changing").toUri().toString();
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(GenericRow.of(1, BinaryString.fromString("a"), day("d1")));
            writer.write(GenericRow.of(2, BinaryString.fromString("b"), day("d1")));
            writer.commit();
            writer.write(GenericRow.of(3, BinaryString.fromString("c"), day("d1")));
            writer.flush();

            // the batch read of the audit log: the union's rows, each with its kind
            assertThat(sparkRead("SELECT rowkind, id FROM lake.db.`changing$audit_log`"))
                    .containsExactlyInAnyOrder("+I:1", "+I:2", "+I:3");

            List<String> first = streamAvailableNow("lake.db.`changing$audit_log`", checkpoint);
            // the snapshot's rows, then the uncommitted one from the store
            assertThat(first).containsExactlyInAnyOrder("+I 1 a d1", "+I 2 b d1", "+I 3 c d1");

            writer.write(
                    kind(
                            RowKind.UPDATE_BEFORE,
                            GenericRow.of(1, BinaryString.fromString("a"), day("d1"))));
            writer.write(
                    kind(
                            RowKind.UPDATE_AFTER,
                            GenericRow.of(1, BinaryString.fromString("a2"), day("d1"))));
            writer.commit();
            writer.write(
                    kind(
                            RowKind.DELETE,
                            GenericRow.of(2, BinaryString.fromString("b"), day("d1"))));
            // a partition that appears after the query started
            writer.write(GenericRow.of(4, BinaryString.fromString("d"), day("d2")));
            writer.flush();

            // the restarted query returns what came after its last batch, each change once
            List<String> second = streamAvailableNow("lake.db.`changing$audit_log`", checkpoint);
            assertThat(second)
                    .containsExactlyInAnyOrder("-U 1 a d1", "+U 1 a2 d1", "-D 2 b d1", "+I 4 d d2");
            assertThat(streamAvailableNow("lake.db.`changing$audit_log`", checkpoint)).isEmpty();

            List<String> applied = applyChangelog(first, second);
            assertThat(applied)
                    .containsExactlyInAnyOrderElementsOf(
                            sparkRead("SELECT id, name FROM lake.db.changing"));
            writer.commit();
            assertThat(applied).containsExactlyInAnyOrderElementsOf(paimonRead(id));
        }
    }

    @Test
    void aStreamingReadFollowsTheStoreAndTheCommitsOfOtherWritersInBoundedBatches()
            throws Exception {
        Map<String, String> tableOptions = new HashMap<>();
        Identifier id = create("appended", null, null, tableOptions);
        String checkpoint = warehouse.resolve("checkpoint-appended").toUri().toString();
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions);
                LakeStreamWriter writer = table.newWriter("writer-" + UUID.randomUUID())) {
            writer.write(row(1, "a"));
            writer.commit();
            for (int i = 2; i <= 5; i++) {
                writer.write(row(i, "s" + i));
            }
            writer.flush();
            List<Long> batchSizes = new ArrayList<>();
            List<String> first = stream(appended(), checkpoint, batchSizes);
            assertThat(first).containsExactlyInAnyOrder("1 a", "2 s2", "3 s3", "4 s4", "5 s5");
            // four store records, about two per batch
            assertThat(batchSizes.size()).isGreaterThanOrEqualTo(2);

            // another writer, Paimon's own, commits rows the store never holds
            BatchWriteBuilder paimon = catalog.getTable(id).newBatchWriteBuilder();
            try (BatchTableWrite write = paimon.newWrite();
                    BatchTableCommit commit = paimon.newCommit()) {
                write.write(row(100, "paimon"));
                write.write(row(101, "paimon"));
                commit.commit(write.prepareCommit());
            }
            for (int i = 6; i <= 9; i++) {
                writer.write(row(i, "s" + i));
            }
            writer.flush();
            List<String> second = stream(appended(), checkpoint, new ArrayList<>());
            assertThat(second)
                    .containsExactlyInAnyOrder(
                            "100 paimon", "101 paimon", "6 s6", "7 s7", "8 s8", "9 s9");

            List<String> all = new ArrayList<>(first);
            all.addAll(second);
            assertThat(all.stream().map(r -> r.replace(" ", ":")))
                    .containsExactlyInAnyOrderElementsOf(
                            sparkRead("SELECT * FROM lake.db.appended"));
            writer.commit();
            assertThat(all.stream().map(r -> r.replace(" ", ":")))
                    .containsExactlyInAnyOrderElementsOf(paimonRead(id));
        }
    }

    private Dataset<Row> appended() {
        return spark.readStream().option("maxRecordsPerTrigger", "2").table("lake.db.appended");
    }

    @Test
    void aReadCommittedStreamReturnsRecordsAtTheirCommitAndNoneOfAFencedTail() throws Exception {
        Identifier id = create("isolated", null, null, new HashMap<>());
        String committed = warehouse.resolve("checkpoint-committed").toUri().toString();
        String uncommitted = warehouse.resolve("checkpoint-uncommitted").toUri().toString();
        try (LakeStreamTable table = LakeStreamTable.open(catalog, id, lakeOptions)) {
            try (LakeStreamWriter first = table.newWriter("writer-" + UUID.randomUUID())) {
                first.write(row(1, "a"));
                first.commit();
                first.write(row(2, "b"));
                first.commit();
                // a tail that no commit will hold: the next writer fences it
                first.write(row(3, "lost"));
                first.flush();
                assertThat(stream(readCommitted(), committed, new ArrayList<>()))
                        .containsExactlyInAnyOrder("1 a", "2 b");
            }
            try (LakeStreamWriter second = table.newWriter("writer-" + UUID.randomUUID())) {
                second.write(row(4, "d"));
                second.flush();
                // read-uncommitted, started after the fence: the new tail, never the fenced one
                assertThat(
                                stream(
                                        spark.readStream().table("lake.db.isolated"),
                                        uncommitted,
                                        new ArrayList<>()))
                        .containsExactlyInAnyOrder("1 a", "2 b", "4 d");
                // read-committed: nothing new until the commit
                assertThat(stream(readCommitted(), committed, new ArrayList<>())).isEmpty();
                second.commit();
                assertThat(stream(readCommitted(), committed, new ArrayList<>()))
                        .containsExactly("4 d");
                assertThat(paimonRead(id)).containsExactlyInAnyOrder("1:a", "2:b", "4:d");
            }
        }
    }

    private Dataset<Row> readCommitted() {
        return spark.readStream()
                .option("lake-stream.read.isolation", "read-committed")
                .table("lake.db.isolated");
    }

    @Test
    void aStreamingReadThatCannotReturnEveryChangeIsRefusedNamingTheTable() throws Exception {
        create("keyed", "id", null, new HashMap<>());
        String checkpoint = warehouse.resolve("checkpoint-refused").toUri().toString();
        assertThatThrownBy(
                        () ->
                                stream(
                                        spark.readStream().table("lake.db.keyed"),
                                        checkpoint,
                                        new ArrayList<>()))
                .hasStackTraceContaining("Table db.keyed has a primary key")
                .hasStackTraceContaining("db.keyed$audit_log");

        Identifier plain = Identifier.create("db", "never_enabled");
        catalog.createTable(
                plain,
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .option("bucket", "1")
                        .option("bucket-key", "id")
                        .build(),
                false);
        assertThatThrownBy(
                        () ->
                                stream(
                                        spark.readStream().table("lake.db.never_enabled"),
                                        checkpoint + "-plain",
                                        new ArrayList<>()))
                .hasStackTraceContaining("Table db.never_enabled is not in lake-stream mode");
    }

    /** Runs the stream of {@code table} with {@code Trigger.AvailableNow} and returns its rows. */
    private List<String> streamAvailableNow(String table, String checkpoint) throws Exception {
        return stream(spark.readStream().table(table), checkpoint, new ArrayList<>());
    }

    /**
     * Runs {@code source} with {@code Trigger.AvailableNow} from {@code checkpoint} to its end and
     * returns each row's columns joined by spaces, adding each micro-batch's size to {@code
     * batchSizes}.
     */
    private static List<String> stream(
            Dataset<Row> source, String checkpoint, List<Long> batchSizes) throws Exception {
        List<String> rows = Collections.synchronizedList(new ArrayList<>());
        StreamingQuery query =
                source.writeStream()
                        .option("checkpointLocation", checkpoint)
                        .trigger(Trigger.AvailableNow())
                        .foreachBatch(
                                (VoidFunction2<Dataset<Row>, Long>)
                                        (batch, batchId) -> {
                                            List<Row> collected = batch.collectAsList();
                                            if (!collected.isEmpty()) {
                                                batchSizes.add((long) collected.size());
                                            }
                                            for (Row row : collected) {
                                                List<String> values = new ArrayList<>();
                                                for (int i = 0; i < row.length(); i++) {
                                                    values.add(String.valueOf(row.get(i)));
                                                }
                                                rows.add(String.join(" ", values));
                                            }
                                        })
                        .start();
        query.awaitTermination();
        return new ArrayList<>(rows);
    }

    /**
     * {@code id:name} of the rows that applying the changes ({@code kind id name ...}) by key
     * leaves: {@code +I} and {@code +U} put the row, {@code -U} and {@code -D} remove it.
     */
    @SafeVarargs
    private static List<String> applyChangelog(List<String>... changes) {
        Map<String, String> rows = new java.util.LinkedHashMap<>();
        for (List<String> batch : changes) {
            for (String change : batch) {
                String[] fields = change.split(" ");
                String key = fields[1] + " " + fields[3];
                if (fields[0].equals("+I") || fields[0].equals("+U")) {
                    rows.put(key, fields[1] + ":" + fields[2]);
                } else {
                    rows.remove(key);
                }
            }
        }
        return new ArrayList<>(rows.values());
    }

    private Identifier create(
            String name, String primaryKey, String partitionKey, Map<String, String> options)
            throws Exception {
        Identifier id = Identifier.create("db", name);
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("name", DataTypes.STRING())
                        .option("bucket", "2")
                        .options(options);
        if (partitionKey != null) {
            schema.column(partitionKey, DataTypes.STRING().notNull());
            schema.partitionKeys(partitionKey);
        }
        if (primaryKey != null) {
            schema.primaryKey(primaryKey.split(","));
        } else {
            schema.option("bucket-key", "id");
        }
        catalog.createTable(id, schema.build(), false);
        LakeStreamTable.enable(catalog, id, lakeOptions);
        return id;
    }

    private List<String> sparkRead(String query) {
        return rows(spark.sql(query).collectAsList());
    }

    /** {@code id:name} of rows whose first two columns are an id and a name, else the first. */
    private static List<String> rows(List<Row> rows) {
        List<String> strings = new ArrayList<>();
        for (Row row : rows) {
            strings.add(
                    row.length() == 1
                            ? String.valueOf(row.get(0))
                            : row.get(0) + ":" + (row.isNullAt(1) ? "null" : row.get(1)));
        }
        return strings;
    }

    private List<String> paimonRead(Identifier id) throws Exception {
        Table table = catalog.getTable(id);
        ReadBuilder readBuilder = table.newReadBuilder();
        List<String> rows = new ArrayList<>();
        try (RecordReader<InternalRow> reader =
                readBuilder.newRead().createReader(readBuilder.newScan().plan())) {
            reader.forEachRemaining(row -> rows.add(string(row)));
        }
        return rows;
    }

    private static List<String> strings(List<InternalRow> rows) {
        List<String> strings = new ArrayList<>();
        rows.forEach(row -> strings.add(string(row)));
        return strings;
    }

    private static String string(InternalRow row) {
        return row.getInt(0) + ":" + (row.isNullAt(1) ? "null" : row.getString(1).toString());
    }

    private static GenericRow row(int id, String name) {
        return GenericRow.of(id, BinaryString.fromString(name));
    }

    private static BinaryString day(String day) {
        return BinaryString.fromString(day);
    }

    private static GenericRow kind(RowKind kind, GenericRow row) {
        row.setRowKind(kind);
        return row;
    }
}
