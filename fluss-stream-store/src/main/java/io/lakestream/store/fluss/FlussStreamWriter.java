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

import io.lakestream.flink.LakeStreamOptions;
import io.lakestream.flink.offsets.PartitionBucket;
import io.lakestream.flink.store.OffsetPosition;
import io.lakestream.flink.store.StreamStoreException;
import io.lakestream.flink.store.StreamTable;
import io.lakestream.flink.store.StreamWriter;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;

import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.writer.AppendWriter;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * Appends Paimon rows to the Fluss log table of their Paimon table through Fluss's batching,
 * asynchronous append writer.
 *
 * <p>Why offsets come from a list-offsets call after the flush: Fluss 0.9's append result carries
 * no offset. After {@link AppendWriter#flush()} every record is acknowledged by all in-sync
 * replicas, so each written partition-bucket's latest offset (its high watermark) is at or past
 * this writer's last record; and since each partition-bucket has one writer (the sink shuffles by
 * bucket), no other writer can have moved it further.
 */
final class FlussStreamWriter implements StreamWriter {

    private final FlussStreamStore store;
    private final StreamTable table;
    private final FlussStreamTableLayout layout;
    private final Table flussTable;
    private final AppendWriter writer;
    private final PaimonRowAsFlussRow flussRow;
    private final FlussPartitionNames partitionNames;

    private final Set<PartitionBucket> writtenSinceFlush = new HashSet<>();

    private final AtomicReference<Throwable> asyncFailure = new AtomicReference<>();
    private final BiConsumer<Object, Throwable> recordFailure =
            (result, error) -> {
                if (error != null) {
                    asyncFailure.compareAndSet(null, error);
                }
            };
    private final ExecutorService flusher =
            Executors.newSingleThreadExecutor(
                    r -> {
                        Thread thread = new Thread(r, "lake-stream-fluss-flush");
                        thread.setDaemon(true);
                        return thread;
                    });

    FlussStreamWriter(FlussStreamStore store, StreamTable table, FlussStreamTableLayout layout) {
        this.store = store;
        this.table = table;
        this.layout = layout;
        this.flussTable = store.connection().getTable(layout.tablePath());
        this.writer = flussTable.newAppend().createWriter();
        // the columns of the table as this writer's client sees them: the rows it encodes
        this.flussRow =
                new PaimonRowAsFlussRow(
                        new FlussColumnMapping(
                                table.spec(), flussTable.getTableInfo().getRowType()));
        this.partitionNames =
                table.spec().isPartitioned() ? new FlussPartitionNames(table.spec()) : null;
    }

    @Override
    public void write(PartitionBucket partitionBucket, RowKind rowKind, InternalRow row) {
        throwOnAsyncFailure();
        if (!layout.hasRowKindColumn()
                && rowKind != RowKind.INSERT
                && rowKind != RowKind.UPDATE_AFTER) {
            throw new StreamStoreException(
                    String.format(
                            "Table %s has no primary key, so it takes only +I and +U rows, but got "
                                    + "a %s row.",
                            table.spec().identifier().getFullName(), rowKind));
        }
        if (!writtenSinceFlush.contains(partitionBucket)) {
            // checked once per partition-bucket and flush, not per row
            checkPartition(partitionBucket.partition());
            // a copy, because callers may reuse the partition row (Paimon's key extractor does)
            writtenSinceFlush.add(
                    new PartitionBucket(
                            partitionBucket.partition().copy(), partitionBucket.bucket()));
        }
        // one callback for all records: a lambda here would be one more object per record
        writer.append(flussRow.replace(row, rowKind)).whenComplete(recordFailure);
    }

    /**
     * Refuses a partition that Fluss cannot file under a name of its own (a null value, a timestamp
     * before year 1) before Fluss's writer files it: Fluss would fail with a bare null-pointer
     * exception, or put the record into another partition.
     */
    private void checkPartition(BinaryRow partition) {
        if (partitionNames != null) {
            partitionNames.nameOf(partition);
        }
    }

    @Override
    public Map<PartitionBucket, Long> flush() {
        awaitFlush();
        throwOnAsyncFailure();
        Map<PartitionBucket, Long> offsets =
                store.listOffsets(layout, writtenSinceFlush, OffsetPosition.LATEST);
        writtenSinceFlush.clear();
        return offsets;
    }

    /**
     * Runs Fluss's flush, which has no time limit and retries an unreachable bucket leader without
     * end, in a thread of its own and gives up after the write timeout: the caller fails (and its
     * job restarts from its last checkpoint) rather than blocking a checkpoint barrier forever.
     */
    private void awaitFlush() {
        CompletableFuture<Void> flushed = CompletableFuture.runAsync(writer::flush, flusher);
        try {
            flushed.get(store.writeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new StreamStoreException(
                    String.format(
                            "Records written to stream table %s of Paimon table %s were not "
                                    + "durable within %s (option '%s'): is the Fluss cluster at %s "
                                    + "reachable?",
                            table.storeTableName(),
                            table.spec().identifier().getFullName(),
                            FlussAdminCalls.format(store.writeTimeout()),
                            LakeStreamOptions.STORE_WRITE_TIMEOUT.key(),
                            store.calls().bootstrapServers()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamStoreException("Interrupted while flushing " + table, e);
        } catch (ExecutionException e) {
            throw new StreamStoreException(
                    String.format(
                            "Flushing stream table %s of Paimon table %s failed: %s",
                            table.storeTableName(),
                            table.spec().identifier().getFullName(),
                            e.getCause().getMessage()),
                    e.getCause());
        }
    }

    private void throwOnAsyncFailure() {
        Throwable failure = asyncFailure.get();
        if (failure != null) {
            throw new StreamStoreException(
                    String.format(
                            "Writing to stream table %s of Paimon table %s on the Fluss cluster "
                                    + "at %s failed: %s",
                            table.storeTableName(),
                            table.spec().identifier().getFullName(),
                            store.calls().bootstrapServers(),
                            failure.getMessage()),
                    failure);
        }
    }

    @Override
    public void close() {
        flusher.shutdownNow();
        if (asyncFailure.get() != null || !writtenSinceFlush.isEmpty()) {
            // records of this writer may still be pending in the shared connection
            store.discardConnection();
        }
        try {
            flussTable.close();
        } catch (Exception e) {
            throw new StreamStoreException("Cannot close " + table, e);
        }
    }
}
