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

package io.lakestream.e2e;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The Paimon table of the end-to-end test, which the test and {@link FenceAwareReaderMain} both
 * open from the same warehouse, and the one-line form of its records that both print: what another
 * process read then compares line by line with what the test wrote.
 */
public final class OrdersTable {

    public static final Identifier IDENTIFIER = Identifier.create("e2e", "orders");

    public static final int BUCKETS = 4;

    private OrdersTable() {}

    /**
     * Creates the table: primary key (dt, order_id), partitioned by dt, {@link #BUCKETS} buckets.
     */
    public static FileStoreTable create(Path warehouse) throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            catalog.createDatabase(IDENTIFIER.getDatabaseName(), false);
            catalog.createTable(
                    IDENTIFIER,
                    Schema.newBuilder()
                            .column("order_id", DataTypes.INT())
                            .column("customer", DataTypes.STRING())
                            .column("dt", DataTypes.STRING())
                            .primaryKey("dt", "order_id")
                            .partitionKeys("dt")
                            .option("bucket", String.valueOf(BUCKETS))
                            .build(),
                    false);
            return (FileStoreTable) catalog.getTable(IDENTIFIER);
        }
    }

    public static FileStoreTable open(Path warehouse) throws Exception {
        try (Catalog catalog = catalog(warehouse)) {
            return (FileStoreTable) catalog.getTable(IDENTIFIER);
        }
    }

    private static Catalog catalog(Path warehouse) {
        return CatalogFactory.createCatalog(
                CatalogContext.create(new org.apache.paimon.fs.Path(warehouse.toUri().toString())));
    }

    public static StreamTableSpec spec(FileStoreTable table) {
        return StreamTableSpec.of(IDENTIFIER, table);
    }

    /** The table options that point lake-stream mode at the Fluss cluster. */
    public static Map<String, String> lakeStreamOptions(String bootstrapServers) {
        Map<String, String> options = new HashMap<>();
        options.put(LakeStreamOptions.STORE.key(), "fluss");
        options.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "bootstrap.servers",
                bootstrapServers);
        return options;
    }

    public static GenericRow order(RowKind kind, int orderId, String customer, String dt) {
        return GenericRow.ofKind(
                kind, orderId, BinaryString.fromString(customer), BinaryString.fromString(dt));
    }

    /** The partition-bucket Paimon's own writer puts {@code row} in. */
    public static PartitionBucket partitionBucketOf(
            KeyAndBucketExtractor<InternalRow> extractor, InternalRow row) {
        extractor.setRecord(row);
        // the extractor reuses its partition row for the next record
        return new PartitionBucket(extractor.partition().copy(), extractor.bucket());
    }

    /** A partition-bucket as {@code dt=<day> bucket=<n>}. */
    public static String describe(PartitionBucket partitionBucket) {
        return "dt="
                + partitionBucket.partition().getString(0)
                + " bucket="
                + partitionBucket.bucket();
    }

    /** A fence as {@code dt=<day> bucket=<n> [<start>, <end>)}. */
    public static String describe(AbortedRange fence) {
        return describe(fence.partitionBucket())
                + " ["
                + fence.startOffset()
                + ", "
                + fence.endOffset()
                + ")";
    }

    /** A record as {@code dt=<day> bucket=<n> offset=<n> <row kind> order_id=<id> customer=<c>}. */
    public static String describe(StreamRecord record) {
        InternalRow row = record.row();
        return describe(record.partitionBucket())
                + " offset="
                + record.offset()
                + " "
                + record.rowKind().shortString()
                + " order_id="
                + row.getInt(0)
                + " customer="
                + row.getString(1);
    }
}
