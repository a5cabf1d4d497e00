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

import javax.annotation.Nullable;

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
    private Map<PartitionBucket, WrittenEnd> written = new HashMap<>();

    /** The entry in {@link #written} of the previous record's partition-bucket. */
    @Nullable private WrittenEnd lastWritten;

    /** The logs of the previous record's partition, see {@link #logOf}. */
    @Nullable private MemoryLog[] lastLogs;

    private BinaryRow lastPartition;
    private long lastPartitionsVersion;

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
        // the serializer's reused row (or the caller's own binary row): the log copies its bytes
        BinaryRow serialized = serializer.toBinaryRow(row);
        try {
            budget.acquire(
                    serialized.getSizeInBytes() + MemoryRecord.OVERHEAD_BYTES,
                    maxBytes,
                    writeTimeout,
                    tableName);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamStoreException("Interrupted while writing to " + table.name, e);
        }
        long end;
        synchronized (table) {
            checkNotDropped();
            end =
                    logOf(partitionBucket)
                                    .append(
                                            rowKind,
                                            serialized,
                                            spec.rowType(),
                                            System.currentTimeMillis())
                            + 1;
            table.changed();
        }
        writtenUpTo(partitionBucket, end);
    }

    /**
     * The log of {@code partitionBucket}, created when new. The logs of the previous record's
     * partition are kept, as long as the table's partitions did not change: rows of one partition
     * often follow each other, and a lookup hashes the partition row. Called holding the table's
     * monitor.
     */
    private MemoryLog logOf(PartitionBucket partitionBucket) {
        BinaryRow partition = partitionBucket.partition();
        long partitionsVersion = table.partitionsVersion();
        // compares content: the caller may overwrite the same partition row in place
        if (lastLogs == null
                || lastPartitionsVersion != partitionsVersion
                || !PartitionBucket.samePartition(lastPartition, partition)) {
            lastLogs = table.logsOf(partition, true);
            lastPartition = partition.copy();
            lastPartitionsVersion = partitionsVersion;
        }
        return lastLogs[partitionBucket.bucket()];
    }

    /** Records where {@code partitionBucket}'s log ends after a write. */
    private void writtenUpTo(PartitionBucket partitionBucket, long end) {
        WrittenEnd last = lastWritten;
        if (last == null || !last.partitionBucket.equals(partitionBucket)) {
            last = written.get(partitionBucket);
            if (last == null) {
                // a copy as the key: the caller may reuse the partition row
                last =
                        new WrittenEnd(
                                new PartitionBucket(
                                        partitionBucket.partition().copy(),
                                        partitionBucket.bucket()));
                written.put(last.partitionBucket, last);
            }
            lastWritten = last;
        }
        last.end = end;
    }

    /** A partition-bucket written since the last flush and where its log ended after the write. */
    private static final class WrittenEnd {
        final PartitionBucket partitionBucket;
        long end;

        WrittenEnd(PartitionBucket partitionBucket) {
            this.partitionBucket = partitionBucket;
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
        Map<PartitionBucket, Long> ends = new HashMap<>();
        synchronized (table) {
            checkNotDropped();
            for (WrittenEnd entry : written.values()) {
                MemoryLog log = table.log(entry.partitionBucket, false);
                ends.put(
                        entry.partitionBucket,
                        log == null ? entry.end : Math.max(entry.end, log.end()));
            }
        }
        written = new HashMap<>();
        lastWritten = null;
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
