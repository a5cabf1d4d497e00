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

import io.lakestream.flink.offsets.AbortedRange;
import io.lakestream.flink.offsets.PartitionBucket;
import io.lakestream.flink.store.FenceLog;
import io.lakestream.flink.store.StreamStoreException;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.utils.SerializationUtils;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.writer.AppendWriter;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.types.DataTypes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The fences of a stream table, kept in a one-bucket Fluss log table next to it ({@code
 * <table>__lake_stream_fences}). A fence is appended with the writer's acknowledgement from all
 * in-sync replicas, so it is durable and readable by every process once {@link #record} returns;
 * {@link #readNew} reads the fence table up to its latest offset, so it returns every fence
 * recorded before it was called.
 */
final class FlussFenceLog implements FenceLog {

    static final String FENCE_TABLE_SUFFIX = "__lake_stream_fences";

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private final Admin admin;
    private final FlussAdminCalls calls;
    private final TablePath fenceTable;
    private final FlussPartitionNames partitionNames;
    private final Table table;
    private AppendWriter writer;
    private final LogScanner scanner;
    private long nextOffset;

    FlussFenceLog(
            Connection connection,
            Admin admin,
            FlussAdminCalls calls,
            TablePath fenceTable,
            FlussPartitionNames partitionNames) {
        this.admin = admin;
        this.calls = calls;
        this.fenceTable = fenceTable;
        this.partitionNames = partitionNames;
        this.table = connection.getTable(fenceTable);
        this.scanner = table.newScan().createLogScanner();
        scanner.subscribeFromBeginning(0);
    }

    static TablePath fenceTablePath(TablePath streamTable) {
        return TablePath.of(
                streamTable.getDatabaseName(), streamTable.getTableName() + FENCE_TABLE_SUFFIX);
    }

    static void provision(Admin admin, FlussAdminCalls calls, TablePath fenceTable) {
        TableDescriptor descriptor =
                TableDescriptor.builder()
                        .schema(
                                Schema.newBuilder()
                                        .column("partition", DataTypes.BYTES().copy(false))
                                        .column("partition_name", DataTypes.STRING())
                                        .column("bucket", DataTypes.INT().copy(false))
                                        .column("start_offset", DataTypes.BIGINT().copy(false))
                                        .column("end_offset", DataTypes.BIGINT().copy(false))
                                        .build())
                        .distributedBy(1)
                        .comment("Aborted offset ranges of lake-stream table")
                        .build();
        calls.await(admin.createTable(fenceTable, descriptor, true), "create table " + fenceTable);
    }

    @Override
    public void record(AbortedRange range) {
        if (writer == null) {
            writer = table.newAppend().createWriter();
        }
        PartitionBucket pb = range.partitionBucket();
        BinaryRow partition = pb.partition();
        GenericRow row =
                GenericRow.of(
                        SerializationUtils.serializeBinaryRow(partition),
                        BinaryString.fromString(
                                partition.getFieldCount() == 0
                                        ? ""
                                        : partitionNames.nameOf(partition)),
                        pb.bucket(),
                        range.startOffset(),
                        range.endOffset());
        calls.await(writer.append(row), "record " + range + " in " + fenceTable);
    }

    @Override
    public List<AbortedRange> readNew() {
        long end =
                calls.await(
                        admin.listOffsets(
                                        fenceTable,
                                        Collections.singletonList(0),
                                        new OffsetSpec.LatestSpec())
                                .bucketResult(0),
                        "list offsets of " + fenceTable);
        List<AbortedRange> ranges = new ArrayList<>();
        long deadline = System.currentTimeMillis() + calls.timeout().toMillis();
        while (nextOffset < end) {
            if (System.currentTimeMillis() > deadline) {
                throw new StreamStoreException(
                        String.format(
                                "Timed out reading the fences of %s up to offset %d at %s.",
                                fenceTable, end, calls.bootstrapServers()));
            }
            for (ScanRecord record : scanner.poll(POLL_TIMEOUT)) {
                ranges.add(toRange(record.getRow()));
                nextOffset = record.logOffset() + 1;
            }
        }
        return ranges;
    }

    private static AbortedRange toRange(InternalRow row) {
        BinaryRow partition = SerializationUtils.deserializeBinaryRow(row.getBytes(0));
        return new AbortedRange(
                new PartitionBucket(partition, row.getInt(2)), row.getLong(3), row.getLong(4));
    }

    @Override
    public void close() {
        try {
            scanner.close();
            table.close();
        } catch (Exception e) {
            throw new StreamStoreException("Cannot close the fence log " + fenceTable, e);
        }
    }
}
