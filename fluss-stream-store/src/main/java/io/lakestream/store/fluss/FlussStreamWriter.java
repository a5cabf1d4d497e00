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
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamWriter;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;

import org.apache.fluss.client.FlussConnection;
import org.apache.fluss.client.metadata.MetadataUpdater;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.write.WriteCallback;
import org.apache.fluss.client.write.WriteRecord;
import org.apache.fluss.client.write.WriterClient;
import org.apache.fluss.metadata.PhysicalTablePath;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.row.indexed.IndexedRow;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Appends Paimon rows to the Fluss log table of their Paimon table through the connection's
 * batching, asynchronous Fluss writer client.
 *
 * <p>The per-record path allocates only what Fluss's writer itself needs (one write record): the
 * row is encoded without boxing by a reused {@link PaimonRowIndexedEncoder}; the partition's Fluss
 * path is looked up once per partition ({@link StreamPartitionTargets}); the record goes to the
 * bucket Paimon assigned it through a precomputed bucket key ({@link PaimonBucketKeys}) instead of
 * encoding and hashing the row's key again; and completion is tracked per flush with one shared
 * callback, not with a future per record. Fluss's {@code AppendWriter} would build two futures, a
 * path, a partition name and a key per record and box every column.
 *
 * <p>Partitions the store does not have yet are created ahead of their records, all at once: {@link
 * StreamPartitionTargets} asks Fluss to create each new partition asynchronously and holds its
 * records until it exists (see there).
 *
 * <p>Why offsets come from a list-offsets call after the flush: Fluss 0.9's append result carries
 * no offset. After {@link WriterClient#flush()} every record is acknowledged by all in-sync
 * replicas, so each written partition-bucket's latest offset (its high watermark) is at or past
 * this writer's last record; and since each partition-bucket has one writer (the sink shuffles by
 * bucket), no other writer can have moved it further.
 */
final class FlussStreamWriter implements StreamWriter {

    private final FlussStreamStore store;
    private final StreamTable table;
    private final FlussStreamTableLayout layout;
    private final Table flussTable;
    private final TableInfo tableInfo;
    private final WriterClient writerClient;
    private final PaimonRowIndexedEncoder encoder;
    private final PaimonBucketKeys bucketKeys;
    private final StreamPartitionTargets targets;

    private final AtomicReference<Throwable> asyncFailure = new AtomicReference<>();

    /** One callback for every record: the flush tells when they completed, this only if failed. */
    private final WriteCallback recordFailure =
            (bucket, offset, error) -> {
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

    private final ExecutorService releaser =
            Executors.newSingleThreadExecutor(
                    r -> {
                        Thread thread = new Thread(r, "lake-stream-fluss-partitions");
                        thread.setDaemon(true);
                        return thread;
                    });

    /** The target of the previous record: rows of one partition often follow each other. */
    private StreamPartitionTargets.Target lastTarget;

    /** Writes {@code flussTable}, the stream table's Fluss handle, which it closes. */
    FlussStreamWriter(
            FlussStreamStore store,
            StreamTable table,
            FlussStreamTableLayout layout,
            Table flussTable) {
        this.store = store;
        this.table = table;
        this.layout = layout;
        this.flussTable = flussTable;
        this.tableInfo = flussTable.getTableInfo();
        FlussConnection connection = (FlussConnection) store.connection();
        this.writerClient = connection.getOrCreateWriterClient();
        // the columns of the table as this writer's client sees them: the rows it encodes
        FlussColumnMapping mapping = new FlussColumnMapping(table.spec(), tableInfo);
        mapping.checkWritable();
        this.encoder = new PaimonRowIndexedEncoder(mapping, tableInfo.getRowType());
        this.bucketKeys = PaimonBucketKeys.of(tableInfo);
        MetadataUpdater metadata = connection.getMetadataUpdater();
        this.targets =
                new StreamPartitionTargets(
                        table,
                        tableInfo,
                        table.spec().isPartitioned() ? new FlussPartitionNames(table.spec()) : null,
                        connection.getAdmin(),
                        metadata,
                        this::send,
                        releaser,
                        e -> asyncFailure.compareAndSet(null, e));
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
        IndexedRow encoded = encoder.encode(row, rowKind);
        // the lock that releases of created partitions take: held records go out first
        synchronized (targets) {
            targets.sendCreated();
            BinaryRow partition = partitionBucket.partition();
            StreamPartitionTargets.Target target = lastTarget;
            // compares content: callers may overwrite the same partition row object in place
            if (target == null || !PartitionBucket.samePartition(target.partition(), partition)) {
                // refuses a partition that Fluss cannot file under a name of its own (a null
                // value, a timestamp before year 1) before Fluss's writer files it: Fluss would
                // fail with a bare null-pointer exception, or put the record into another
                // partition
                target = targets.targetOf(partition);
                lastTarget = target;
            }
            int bucket = partitionBucket.bucket();
            target.written(bucket);
            if (target.isReady()) {
                send(target.path(), bucket, encoded);
            } else {
                target.hold(bucket, encoded);
            }
        }
    }

    private void send(PhysicalTablePath path, int bucket, IndexedRow row) {
        try {
            writerClient.send(
                    WriteRecord.forIndexedAppend(tableInfo, path, row, bucketKeys.keyOf(bucket)),
                    recordFailure);
        } catch (RuntimeException e) {
            // Fluss's client fails a send at once when it cannot place the record (no metadata
            // of its partition while the cluster is unreachable): name the table and the cluster
            asyncFailure.compareAndSet(null, e);
            throwOnAsyncFailure();
        }
    }

    @Override
    public Map<PartitionBucket, Long> flush() {
        synchronized (targets) {
            targets.awaitCreated(store.writeTimeout());
        }
        awaitFlush();
        throwOnAsyncFailure();
        synchronized (targets) {
            List<PartitionBucket> written = targets.writtenSinceFlush();
            Map<PartitionBucket, Long> offsets =
                    written.isEmpty()
                            ? new HashMap<>()
                            : store.listOffsets(layout, written, OffsetPosition.LATEST);
            targets.clearWritten();
            // it may be one that was just forgotten
            lastTarget = null;
            return offsets;
        }
    }

    /**
     * Runs Fluss's flush, which has no time limit and retries an unreachable bucket leader without
     * end, in a thread of its own and gives up after the write timeout: the caller fails (and its
     * job restarts from its last checkpoint) rather than blocking a checkpoint barrier forever.
     */
    private void awaitFlush() {
        CompletableFuture<Void> flushed = CompletableFuture.runAsync(writerClient::flush, flusher);
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
        releaser.shutdownNow();
        if (asyncFailure.get() != null || !targets.writtenSinceFlush().isEmpty()) {
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
