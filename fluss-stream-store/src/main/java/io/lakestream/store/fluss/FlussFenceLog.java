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

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.utils.SerializationUtils;

import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.types.DataTypes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The fences of a stream table, one row per aborted range in a one-bucket Fluss log table next to
 * it ({@code <table>__lake_stream_fences}). The partition is kept as Paimon's binary row, which is
 * what readers compare, and by name, for people who look at the table.
 */
final class FlussFenceLog implements FenceLog {

    static final String FENCE_TABLE_SUFFIX = "__lake_stream_fences";

    private final FlussSingleBucketLog log;
    private final FlussPartitionNames partitionNames;

    FlussFenceLog(FlussSingleBucketLog log, FlussPartitionNames partitionNames) {
        this.log = log;
        this.partitionNames = partitionNames;
    }

    static TablePath fenceTablePath(TablePath streamTable) {
        return FlussSingleBucketLog.pathNextTo(streamTable, FENCE_TABLE_SUFFIX);
    }

    static void provision(
            Admin admin,
            FlussAdminCalls calls,
            TablePath fenceTable,
            Map<String, String> properties) {
        FlussSingleBucketLog.provision(
                admin,
                calls,
                fenceTable,
                Schema.newBuilder()
                        .column("partition", DataTypes.BYTES().copy(false))
                        .column("partition_name", DataTypes.STRING())
                        .column("bucket", DataTypes.INT().copy(false))
                        .column("start_offset", DataTypes.BIGINT().copy(false))
                        .column("end_offset", DataTypes.BIGINT().copy(false))
                        .build(),
                "Aborted offset ranges of lake-stream table",
                properties);
    }

    @Override
    public void recordAll(List<AbortedRange> ranges) {
        if (ranges.isEmpty()) {
            return;
        }
        List<InternalRow> rows = new ArrayList<>(ranges.size());
        for (AbortedRange range : ranges) {
            rows.add(toRow(range));
        }
        log.appendAll(
                rows,
                ranges.size() == 1
                        ? "record " + ranges.get(0)
                        : "record " + ranges.size() + " fences (first " + ranges.get(0) + ")");
    }

    private InternalRow toRow(AbortedRange range) {
        PartitionBucket pb = range.partitionBucket();
        BinaryRow partition = pb.partition();
        return GenericRow.of(
                SerializationUtils.serializeBinaryRow(partition),
                BinaryString.fromString(
                        partition.getFieldCount() == 0 ? "" : partitionNames.nameOf(partition)),
                pb.bucket(),
                range.startOffset(),
                range.endOffset());
    }

    @Override
    public List<AbortedRange> readNew() {
        return toRanges(log.readNew());
    }

    /** What the fence log's open subscription delivered: no request to the cluster. */
    @Override
    public List<AbortedRange> pollNew() {
        return toRanges(log.pollNew());
    }

    private static List<AbortedRange> toRanges(List<ScanRecord> records) {
        List<AbortedRange> ranges = new ArrayList<>();
        for (ScanRecord record : records) {
            InternalRow row = record.getRow();
            BinaryRow partition = SerializationUtils.deserializeBinaryRow(row.getBytes(0));
            ranges.add(
                    new AbortedRange(
                            new PartitionBucket(partition, row.getInt(2)),
                            row.getLong(3),
                            row.getLong(4)));
        }
        return ranges;
    }

    @Override
    public void close() {
        log.close();
    }
}
