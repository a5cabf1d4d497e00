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

package io.lakestream.flink.source;

import io.lakestream.embedded.LakeStreamTable;
import io.lakestream.embedded.LakeStreamWriter;
import io.lakestream.flink.testutils.SharedStreamStore;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;
import org.apache.flink.connector.testframe.external.source.DataStreamSourceExternalContext;
import org.apache.flink.connector.testframe.external.source.TestingSourceSettings;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The external system of Flink's source test suite for {@link LakeStreamSource}: one append table
 * in lake-stream mode per test case, partitioned by {@code split} with one bucket, so that each of
 * the suite's splits is one partition-bucket of the source. Records are written as a user's writes
 * are, with the embedded writer: half of each batch committed to Paimon, the rest left in the store
 * uncommitted (the writer holds the table's lease, so a bounded read takes them too), so that every
 * read is a union of both. The source emits {@code (seq, payload)}, projected.
 */
final class LakeStreamSourceExternalContext implements DataStreamSourceExternalContext<RowData> {

    static final String DATABASE = "source_suite_it";

    private static final AtomicInteger TABLES = new AtomicInteger();

    /** The emitted columns: {@code seq}, {@code payload}. */
    private static final int[] PROJECTION = {1, 2};

    private static final RowType PRODUCED =
            RowType.of(
                    new org.apache.flink.table.types.logical.LogicalType[] {
                        new IntType(), new VarCharType(VarCharType.MAX_LENGTH)
                    },
                    new String[] {"seq", "payload"});

    private final Catalog catalog;
    private final Identifier identifier;
    private final Map<String, String> options;
    private final LakeStreamTable table;
    private final LakeStreamWriter writer;
    private final RowDataSerializer serializer = new RowDataSerializer(PRODUCED);
    private int splits;

    LakeStreamSourceExternalContext(Path warehouse) throws Exception {
        this.catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(
                                new org.apache.paimon.fs.Path(warehouse.toUri().toString())));
        catalog.createDatabase(DATABASE, true);
        this.identifier = Identifier.create(DATABASE, "suite_" + TABLES.incrementAndGet());
        catalog.createTable(
                identifier,
                Schema.newBuilder()
                        .column("split", DataTypes.INT().notNull())
                        .column("seq", DataTypes.INT())
                        .column("payload", DataTypes.STRING())
                        .partitionKeys("split")
                        .option("bucket", "1")
                        .option("bucket-key", "seq")
                        .build(),
                false);
        this.options = SharedStreamStore.lakeStreamOptions();
        LakeStreamTable.enable(catalog, identifier, options);
        this.table = LakeStreamTable.open(catalog, identifier, options);
        this.writer = table.newWriter("source-suite-" + identifier.getObjectName());
    }

    @Override
    public Source<RowData, ?, ?> createSource(TestingSourceSettings settings) {
        FileStoreTable paimon;
        try {
            paimon = (FileStoreTable) catalog.getTable(identifier);
        } catch (Catalog.TableNotExistException e) {
            throw new IllegalStateException(e);
        }
        return LakeStreamSource.builder()
                .setTable(paimon)
                .setOptions(options)
                .setBounded(settings.getBoundedness() == Boundedness.BOUNDED)
                .setProjection(PROJECTION)
                .build();
    }

    @Override
    public ExternalSystemSplitDataWriter<RowData> createSourceSplitDataWriter(
            TestingSourceSettings settings) {
        int split = splits++;
        return new ExternalSystemSplitDataWriter<RowData>() {
            @Override
            public void writeRecords(List<RowData> records) {
                write(split, records);
            }

            @Override
            public void close() {}
        };
    }

    /** Writes {@code records} into partition {@code split}: the first half committed. */
    private synchronized void write(int split, List<RowData> records) {
        try {
            int committed = records.size() / 2;
            for (int i = 0; i < records.size(); i++) {
                RowData record = records.get(i);
                writer.write(
                        GenericRow.of(
                                split,
                                record.getInt(0),
                                BinaryString.fromString(record.getString(1).toString())));
                if (i == committed - 1) {
                    writer.commit();
                }
            }
            writer.flush();
        } catch (Exception e) {
            throw new IllegalStateException("Cannot write to " + identifier, e);
        }
    }

    @Override
    public List<RowData> generateTestData(
            TestingSourceSettings settings, int splitIndex, long seed) {
        Random random = new Random(seed);
        int count = 100 + random.nextInt(200);
        List<RowData> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String payload = splitIndex + "-" + i + "-" + Long.toHexString(random.nextLong());
            // the collected rows come back in binary form: so do the expected ones
            records.add(
                    serializer
                            .toBinaryRow(GenericRowData.of(i, StringData.fromString(payload)))
                            .copy());
        }
        return records;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return InternalTypeInfo.of(PRODUCED);
    }

    @Override
    public List<URL> getConnectorJarPaths() {
        return Collections.emptyList();
    }

    @Override
    public void close() throws Exception {
        try (AutoCloseable closeCatalog = catalog;
                AutoCloseable closeTable = table;
                AutoCloseable closeWriter = writer) {
            // closed in reverse order: the writer first, releasing the table's lease
        }
    }
}
