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

package io.lakestream.store.memory;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.RowKind;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Appends records to the logs of a {@link MemoryStreamTable}: readable by the readers of the
 * process as soon as {@link #write} returns, which is also when they are as durable as they get.
 */
final class MemoryStreamWriter implements StreamWriter {

    private final StreamTableSpec spec;
    private final MemoryStreamTable table;
    private final MemoryBudget budget;
    private final long maxBytes;
    private final Duration writeTimeout;
    private final InternalRowSerializer serializer;

    /** The table's name for the budget's error, taken once rather than for every record. */
    private final String tableName;

    /** The end offset of each partition-bucket written since the last flush. */
    private Map<PartitionBucket, Long> written = new HashMap<>();

    MemoryStreamWriter(
            StreamTableSpec spec,
            MemoryStreamTable table,
            MemoryBudget budget,
            long maxBytes,
            Duration writeTimeout) {
        this.spec = spec;
        this.table = table;
        this.budget = budget;
        this.maxBytes = maxBytes;
        this.writeTimeout = writeTimeout;
        this.serializer = new InternalRowSerializer(spec.rowType());
        this.tableName = spec.identifier().getFullName();
    }

    @Override
    public void write(PartitionBucket partitionBucket, RowKind rowKind, InternalRow row) {
        if (!spec.hasPrimaryKey() && !rowKind.isAdd()) {
            throw new StreamStoreException(
                    String.format(
                            "Table %s has no primary key, so its stream table takes inserts and "
                                    + "updates only, not a %s record (%s).",
                            spec.identifier().getFullName(), rowKind, table.name));
        }
        checkBucket(partitionBucket);
        BinaryRow copy = serializer.toBinaryRow(row).copy();
        MemoryRecord record =
                new MemoryRecord(rowKind, copy, spec.rowType(), System.currentTimeMillis());
        try {
            budget.acquire(record.bytes(), maxBytes, writeTimeout, tableName);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamStoreException("Interrupted while writing to " + table.name, e);
        }
        long end;
        synchronized (table) {
            checkNotDropped();
            end = table.log(partitionBucket, true).append(record) + 1;
            table.changed();
        }
        if (written.containsKey(partitionBucket)) {
            // keeps the key copied below: the caller may reuse the partition row
            written.put(partitionBucket, end);
        } else {
            written.put(
                    new PartitionBucket(
                            partitionBucket.partition().copy(), partitionBucket.bucket()),
                    end);
        }
    }

    private void checkBucket(PartitionBucket partitionBucket) {
        if (partitionBucket.bucket() < 0 || partitionBucket.bucket() >= spec.numBuckets()) {
            throw new StreamStoreException(
                    String.format(
                            "Stream table %s has %d buckets; there is no %s.",
                            table.name, spec.numBuckets(), partitionBucket));
        }
    }

    private void checkNotDropped() {
        if (table.isDropped()) {
            throw new StreamStoreException(
                    String.format(
                            "The memory stream table %s of Paimon table %s was dropped while it "
                                    + "was written.",
                            table.name, spec.identifier().getFullName()));
        }
    }

    /**
     * The end of each log written since the previous flush, as the log has it now: records that
     * another writer appended to it (a zombie attempt of the job) count too, as they do in Fluss,
     * so that the sink's check of its own progress sees them.
     */
    @Override
    public Map<PartitionBucket, Long> flush() {
        Map<PartitionBucket, Long> ends = written;
        written = new HashMap<>();
        synchronized (table) {
            checkNotDropped();
            for (Map.Entry<PartitionBucket, Long> entry : ends.entrySet()) {
                MemoryLog log = table.log(entry.getKey(), false);
                if (log != null) {
                    entry.setValue(Math.max(entry.getValue(), log.end()));
                }
            }
        }
        return ends;
    }

    /**
     * Starts the log of {@code partitionBucket} at {@code offset} when this process has not written
     * it yet: the process started after the table's snapshots committed the records below.
     */
    @Override
    public void continueAt(PartitionBucket partitionBucket, long offset) {
        checkBucket(partitionBucket);
        synchronized (table) {
            checkNotDropped();
            table.log(partitionBucket, true).continueAt(offset);
            table.changed();
        }
    }

    @Override
    public void close() {}
}
