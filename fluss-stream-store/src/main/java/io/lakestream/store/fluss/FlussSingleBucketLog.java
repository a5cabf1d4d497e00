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

import io.lakestream.store.StreamStoreException;

import org.apache.paimon.data.BinaryRow;

import org.apache.fluss.client.FlussConnection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.metadata.MetadataUpdater;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.writer.AppendWriter;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.InternalRow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A small durable log kept in a one-bucket Fluss log table: the fences and the writer leases of a
 * stream table. An append returns once all in-sync replicas acknowledged it, so it is readable by
 * every process; {@link #readNew} reads up to the table's latest offset, so it returns every row
 * appended before it was called, in log order.
 */
final class FlussSingleBucketLog implements AutoCloseable {

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    /** The log's one bucket, in the form the offset listings take it. */
    private static final Map<BinaryRow, List<Integer>> ONLY_BUCKET =
            Collections.singletonMap(BinaryRow.EMPTY_ROW, Collections.singletonList(0));

    private final MetadataUpdater metadata;
    private final FlussAdminCalls calls;
    private final TablePath path;
    private final Table table;
    private final LogScanner scanner;
    private AppendWriter writer;
    private long nextOffset;

    /** Where the first read starts: {@link #seek}'s offset, else the log's earliest. */
    private long startOffset = LogScanner.EARLIEST_OFFSET;

    private boolean subscribed;

    /**
     * Whether this log refreshed its table's metadata: the handle is opened without a refresh, as
     * the first {@link #readNew} makes one before it lists the log's end, and the first append
     * makes one if no read came first (as Fluss's {@code Connection#getTable} would have).
     */
    private boolean metadataRefreshed;

    /**
     * A log over {@code table}, a handle of the store's connection opened without a metadata
     * refresh, which it closes.
     */
    FlussSingleBucketLog(FlussStreamStore store, Table table) {
        this.metadata = ((FlussConnection) store.connection()).getMetadataUpdater();
        this.calls = store.calls();
        this.table = table;
        this.path = table.getTableInfo().getTablePath();
        this.scanner = table.newScan().createLogScanner();
    }

    static TablePath pathNextTo(TablePath streamTable, String suffix) {
        return TablePath.of(streamTable.getDatabaseName(), streamTable.getTableName() + suffix);
    }

    /**
     * Creates the log table if it does not exist, recording {@code properties} (its owner) on a new
     * one.
     */
    static void provision(
            Admin admin,
            FlussAdminCalls calls,
            TablePath path,
            Schema schema,
            String comment,
            Map<String, String> properties) {
        TableDescriptor descriptor =
                TableDescriptor.builder()
                        .schema(schema)
                        .distributedBy(1)
                        .comment(comment)
                        .customProperties(properties)
                        .build();
        FlussTableCreation.create(admin, calls, path, descriptor);
    }

    TablePath path() {
        return path;
    }

    void append(InternalRow row, String what) {
        appendAll(Collections.singletonList(row), what);
    }

    /**
     * Appends {@code rows} in their order and returns once all of them are acknowledged by every
     * in-sync replica. They are all queued before the first wait, so Fluss's writer sends them in
     * one batch (one request) instead of one request and one batching delay per row. The wait is
     * bounded by the request timeout; Fluss's own {@code flush()} is not used because it waits
     * without any bound while a bucket leader is unreachable.
     */
    void appendAll(List<InternalRow> rows, String what) {
        if (writer == null) {
            if (!metadataRefreshed) {
                metadata.updateTableOrPartitionMetadata(path, null);
                metadataRefreshed = true;
            }
            writer = table.newAppend().createWriter();
        }
        CompletableFuture<?>[] appended = new CompletableFuture<?>[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            appended[i] = writer.append(rows.get(i));
        }
        calls.await(CompletableFuture.allOf(appended), what + " in " + path);
    }

    /**
     * The rows that the log's subscription has delivered since the last read, without a request of
     * its own: the scanner keeps a fetch outstanding at the log's leader, which answers it when a
     * row is appended, so a log that does not grow costs no round trip of the caller.
     */
    List<ScanRecord> pollNew() {
        subscribe();
        List<ScanRecord> records = new ArrayList<>();
        for (ScanRecord record : scanner.poll(Duration.ZERO)) {
            records.add(record);
            nextOffset = record.logOffset() + 1;
        }
        return records;
    }

    List<ScanRecord> readNew() {
        // the listing after one metadata refresh, as the store lists its logs' offsets: Fluss's
        // Admin#listOffsets describes the table as well, one round trip more
        AtomicBoolean asked = new AtomicBoolean();
        long end =
                calls.awaitRetrying(
                        () ->
                                FlussOffsetRequests.send(
                                                metadata,
                                                path,
                                                null,
                                                ONLY_BUCKET,
                                                Collections.singletonList(
                                                        new OffsetSpec.LatestSpec()),
                                                Collections::emptySet,
                                                asked.getAndSet(true))
                                        .get(BinaryRow.EMPTY_ROW)
                                        .get(0)
                                        .thenApply(offsets -> offsets.get(0)),
                        "list offsets of " + path);
        metadataRefreshed = true;
        subscribe();
        List<ScanRecord> records = new ArrayList<>();
        long deadline = System.currentTimeMillis() + calls.timeout().toMillis();
        while (nextOffset < end) {
            if (System.currentTimeMillis() > deadline) {
                throw new StreamStoreException(
                        String.format(
                                "Timed out reading %s up to offset %d at %s.",
                                path, end, calls.bootstrapServers()));
            }
            for (ScanRecord record : scanner.poll(POLL_TIMEOUT)) {
                records.add(record);
                nextOffset = record.logOffset() + 1;
            }
        }
        return records;
    }

    /**
     * Makes the first read start at {@code offset}. Fluss's scanner skips the records of a fetched
     * batch below the offset it was subscribed at ({@code CompletedFetch}), so the first record
     * read is the one at {@code offset}, or the log's earliest if that is later.
     */
    void seek(long offset) {
        if (subscribed) {
            throw new IllegalStateException("The log " + path + " was read already.");
        }
        startOffset = offset;
        nextOffset = offset;
    }

    /** The offset after the last record read, or the one {@link #seek} was given before a read. */
    long nextOffset() {
        return nextOffset;
    }

    /** The id Fluss gave the table: a table dropped and created again gets another. */
    long tableId() {
        return table.getTableInfo().getTableId();
    }

    String bootstrapServers() {
        return calls.bootstrapServers();
    }

    private void subscribe() {
        if (!subscribed) {
            scanner.subscribe(0, startOffset);
            subscribed = true;
        }
    }

    @Override
    public void close() {
        try {
            scanner.close();
            table.close();
        } catch (Exception e) {
            throw new StreamStoreException("Cannot close " + path, e);
        }
    }
}
