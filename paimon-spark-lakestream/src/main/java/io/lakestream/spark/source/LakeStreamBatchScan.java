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

package io.lakestream.spark.source;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.read.plan.BucketRead;
import io.lakestream.read.plan.LimitedRead;
import io.lakestream.read.plan.LogStop;
import io.lakestream.read.plan.UnionReadPlanner;
import io.lakestream.spark.reader.LakeStreamReaderFactory;
import io.lakestream.spark.types.SparkRowConverter;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.table.LakeStreamEnablement;
import io.lakestream.table.MainBranchOnly;
import io.lakestream.table.StreamTableLookup;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;

import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructType;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The batch scan of a query: plans once (Spark asks for the partitions and the batch more than
 * once, and each plan would see another store end), one input partition per partition-bucket. A
 * table in lake-stream mode is planned with the core's {@link UnionReadPlanner}, as the Flink
 * source and the embedded scan plan it: the snapshot's files and, per partition-bucket, the store's
 * records past them up to the store's end now (read-uncommitted, while a writer holds the table's
 * lease) or up to the snapshot's own offsets (read-committed). Another table is read as Paimon's
 * batch scan plans it.
 */
public class LakeStreamBatchScan implements Scan, Batch {

    private final Identifier identifier;
    private final FileStoreTable table;
    private final Map<String, String> options;
    private final StructType readSchema;
    private final boolean auditLog;

    /** What Paimon's scan and the store's partitions may be pruned by; null for nothing. */
    @Nullable private final Predicate pruning;

    /** The query's {@code LIMIT}, when Spark pushed it; null for none. */
    @Nullable private final Integer limit;

    @Nullable private InputPartition[] partitions;
    @Nullable private StreamTable streamTable;
    private Map<String, String> storeOptions;

    LakeStreamBatchScan(
            Identifier identifier,
            FileStoreTable table,
            Map<String, String> options,
            StructType readSchema,
            boolean auditLog,
            @Nullable Predicate pruning,
            @Nullable Integer limit) {
        this.identifier = identifier;
        this.limit = limit;
        this.table = table;
        this.options = options;
        this.readSchema = readSchema;
        this.auditLog = auditLog;
        this.pruning = pruning;
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    @Override
    public String description() {
        return String.format(
                "LakeStreamScan(%s, %s, pruned by %s)",
                identifier.getFullName(),
                readsUnion() ? "union with the store" : "Paimon only",
                pruning == null ? "nothing" : pruning);
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        if (partitions == null) {
            List<BucketRead> reads = readsUnion() ? planUnion() : planLake();
            if (limit != null) {
                reads = LimitedRead.enoughFor(table, reads, limit);
            }
            partitions = new InputPartition[reads.size()];
            for (int i = 0; i < partitions.length; i++) {
                partitions[i] = new LakeStreamInputPartition(reads.get(i), false);
            }
        }
        return partitions;
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        planInputPartitions();
        return new LakeStreamReaderFactory(
                table,
                streamTable,
                storeOptions,
                converter(),
                Options.fromMap(options).get(LakeStreamOptions.READ_MERGE_BUFFER_MAX_RECORDS),
                limit == null ? Long.MAX_VALUE : limit);
    }

    /**
     * The stream of a Structured Streaming query: the snapshot, then the store's log and the
     * commits of other writers ({@link LakeStreamMicroBatchStream}).
     */
    @Override
    public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
        return new LakeStreamMicroBatchStream(
                identifier, table, options, pruning, auditLog, converter());
    }

    /** The converter of the rows Paimon and the store return into rows of the read schema. */
    private SparkRowConverter converter() {
        int[] projection = new int[readSchema.fields().length];
        List<String> names = table.rowType().getFieldNames();
        for (int i = 0; i < projection.length; i++) {
            String name = readSchema.fields()[i].name();
            projection[i] =
                    auditLog && name.equals(LakeStreamSparkTable.ROW_KIND_COLUMN)
                            ? SparkRowConverter.ROW_KIND
                            : names.indexOf(name);
        }
        return new SparkRowConverter(table.rowType(), projection);
    }

    /** Whether the query reads the store too: the table is in lake-stream mode, read so. */
    private boolean readsUnion() {
        return LakeStreamEnablement.isEnabled(table.options())
                && !MainBranchOnly.isBranch(table)
                && !Options.fromMap(options).get(LakeStreamOptions.READ_LAKE_ONLY);
    }

    private List<BucketRead> planUnion() {
        storeOptions = LakeStreamOptions.forTable(table.options(), options);
        try (StreamTableLookup.Connected connected =
                StreamTableLookup.open(
                        StreamTableSpec.of(identifier, table),
                        storeOptions,
                        LakeStreamBatchScan.class.getClassLoader())) {
            streamTable = connected.table();
            LogStop logStop =
                    LogStop.forBoundedRead(
                            table, Options.fromMap(storeOptions), connected.store(), streamTable);
            return new UnionReadPlanner(table, streamTable, pruning)
                    .plan(connected.store(), logStop)
                    .buckets();
        }
    }

    /** Paimon's batch scan of the table, grouped per partition-bucket, without a store part. */
    private List<BucketRead> planLake() {
        storeOptions = new LinkedHashMap<>();
        Map<PartitionBucket, List<DataSplit>> splits = new LinkedHashMap<>();
        ReadBuilder readBuilder = table.newReadBuilder();
        if (pruning != null) {
            readBuilder.withFilter(pruning);
        }
        for (Split split : readBuilder.newScan().plan().splits()) {
            DataSplit data = (DataSplit) split;
            splits.computeIfAbsent(
                            new PartitionBucket(data.partition(), data.bucket()),
                            pb -> new ArrayList<>())
                    .add(data);
        }
        List<BucketRead> reads = new ArrayList<>();
        splits.forEach((pb, data) -> reads.add(new BucketRead(pb, data, 0L, 0L)));
        return reads;
    }
}
