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

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowType;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the logs of a {@link MemoryStreamTable}. Each subscription pins its position in its log, so
 * that records it has not read yet are not freed under it (the read view of PIP-46). A subscription
 * of a log this process has not established yet (no writer of the process has written it or told it
 * where it continues) waits for it, and fails after the write timeout if no writer of the table
 * ever ran in this process; one of a partition dropped in this process ends at once.
 */
final class MemoryStreamReader implements StreamReader {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryStreamReader.class);

    /** The most records one poll returns, so that a poll of a long tail returns soon. */
    private static final int MAX_RECORDS_PER_POLL = 8192;

    private final StreamTableSpec spec;
    private final MemoryStreamTable table;
    private final Duration waitTimeout;
    private final Map<PartitionBucket, Cursor> cursors = new LinkedHashMap<>();
    private final Map<PartitionBucket, Cursor> pending = new LinkedHashMap<>();
    private final List<PartitionBucket> finished = new ArrayList<>();
    private final Map<RowType, WrittenRowConverter> converters = new IdentityHashMap<>();
    private volatile boolean woken;

    /** Where one subscription reads: its log and next offset, up to its stop. */
    private static final class Cursor {
        final PartitionBucket partitionBucket;
        final long stopOffset;
        final long subscribedAt = System.currentTimeMillis();
        MemoryLog log;
        long position;
        boolean warned;

        Cursor(PartitionBucket partitionBucket, long startOffset, long stopOffset) {
            this.partitionBucket = partitionBucket;
            this.position = startOffset;
            this.stopOffset = stopOffset;
        }
    }

    MemoryStreamReader(StreamTableSpec spec, MemoryStreamTable table, Duration waitTimeout) {
        this.spec = spec;
        this.table = table;
        this.waitTimeout = waitTimeout;
    }

    @Override
    public void subscribe(PartitionBucket partitionBucket, long startOffset, long stopOffset) {
        if (partitionBucket.bucket() < 0 || partitionBucket.bucket() >= spec.numBuckets()) {
            throw new StreamStoreException(
                    String.format(
                            "Stream table %s has %d buckets; there is no %s.",
                            table.name, spec.numBuckets(), partitionBucket));
        }
        unsubscribe(partitionBucket);
        PartitionBucket pb =
                new PartitionBucket(partitionBucket.partition().copy(), partitionBucket.bucket());
        if (startOffset >= stopOffset) {
            finished.add(pb);
            return;
        }
        Cursor cursor = new Cursor(pb, startOffset, stopOffset);
        synchronized (table) {
            if (!start(cursor)) {
                pending.put(pb, cursor);
            }
        }
    }

    /**
     * Starts reading {@code cursor} when its log is established; false when it must wait. Called
     * under the table's monitor.
     */
    private boolean start(Cursor cursor) {
        PartitionBucket pb = cursor.partitionBucket;
        MemoryLog log = table.log(pb, false);
        if (log == null && spec.isPartitioned() && table.wasDropped(pb.partition())) {
            // the table no longer has the partition: nothing is left to read there, and one
            // created again is a new partition whose logs start at 0
            finished.add(pb);
            return true;
        }
        if (log == null || !log.isEstablished()) {
            return false;
        }
        if (cursor.position < log.start() || cursor.position > log.end()) {
            throw new StreamStoreException(
                    String.format(
                            "Offset %d of %s of memory stream table %s (Paimon table %s) is out "
                                    + "of range: this process holds offsets [%d, %d). Offsets "
                                    + "below %d are in Paimon's snapshots (written before this "
                                    + "process started, or committed and evicted for room under "
                                    + "'%s'); read the table again from its latest snapshot.",
                            cursor.position,
                            spec.describe(pb),
                            table.name,
                            spec.identifier().getFullName(),
                            log.start(),
                            log.end(),
                            log.start(),
                            LakeStreamOptions.MEMORY_MAX_BYTES.key()));
        }
        cursor.log = log;
        log.pin(cursor, cursor.position);
        cursors.put(pb, cursor);
        return true;
    }

    @Override
    public void unsubscribe(PartitionBucket partitionBucket) {
        pending.remove(partitionBucket);
        Cursor cursor = cursors.remove(partitionBucket);
        if (cursor != null) {
            synchronized (table) {
                cursor.log.unpin(cursor);
            }
        }
    }

    @Override
    public List<StreamRecord> poll(Duration timeout) {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (true) {
            long seen = table.version();
            List<StreamRecord> records = new ArrayList<>();
            synchronized (table) {
                startPending();
                read(records);
            }
            if (!records.isEmpty() || !finished.isEmpty() || woken) {
                woken = false;
                return records;
            }
            long left = deadline - System.currentTimeMillis();
            if (left <= 0 || (cursors.isEmpty() && pending.isEmpty())) {
                return records;
            }
            try {
                table.awaitChange(seen, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Collections.emptyList();
            }
        }
    }

    /**
     * Starts the subscriptions whose logs were established since. One that has waited longer than
     * the write timeout fails when no writer of the table ever ran in this process: it is a reader
     * in another process, which this store cannot serve. With a writer in the process it may just
     * be late (a restored job's writer after its reader), so the wait goes on with a warning.
     */
    private void startPending() {
        Iterator<Cursor> it = pending.values().iterator();
        while (it.hasNext()) {
            Cursor cursor = it.next();
            if (start(cursor)) {
                it.remove();
            } else if (!cursor.warned
                    && System.currentTimeMillis() - cursor.subscribedAt > waitTimeout.toMillis()) {
                cursor.warned = true;
                if (!table.hadWriter()) {
                    throw new StreamStoreException(
                            String.format(
                                    "%s of memory stream table %s (Paimon table %s) waited %s for "
                                            + "offset %d, and no writer of the table has run in "
                                            + "this process. The 'memory' stream store serves only "
                                            + "readers in the writer's process: read the table in "
                                            + "the process that writes it (one JVM: Flink's local "
                                            + "executor or MiniCluster, a single TaskManager, the "
                                            + "embedded API), or keep its tail in the 'fluss' "
                                            + "store ('%s').",
                                    spec.describe(cursor.partitionBucket),
                                    table.name,
                                    spec.identifier().getFullName(),
                                    waitTimeout,
                                    cursor.position,
                                    LakeStreamOptions.STORE.key()));
                }
                LOG.warn(
                        "{} of memory stream table {} waits for offset {}: a writer of this process "
                                + "ran but has not written it or told where it continues.",
                        spec.describe(cursor.partitionBucket),
                        table.name,
                        cursor.position);
            }
        }
    }

    private void read(List<StreamRecord> records) {
        Iterator<Cursor> it = cursors.values().iterator();
        while (it.hasNext() && records.size() < MAX_RECORDS_PER_POLL) {
            Cursor cursor = it.next();
            if (cursor.log.isDropped()) {
                it.remove();
                finished.add(cursor.partitionBucket);
                continue;
            }
            long upTo = Math.min(cursor.stopOffset, cursor.log.end());
            upTo = Math.min(upTo, cursor.position + MAX_RECORDS_PER_POLL - records.size());
            for (long offset = cursor.position; offset < upTo; offset++) {
                MemoryRecord record = cursor.log.get(offset);
                records.add(
                        new StreamRecord(
                                cursor.partitionBucket, offset, record.timestamp, rowOf(record)));
            }
            cursor.position = upTo;
            if (cursor.position >= cursor.stopOffset) {
                cursor.log.unpin(cursor);
                it.remove();
                finished.add(cursor.partitionBucket);
            } else {
                cursor.log.pin(cursor, cursor.position);
            }
        }
    }

    private InternalRow rowOf(MemoryRecord record) {
        if (WrittenRowConverter.isIdentity(record.writtenType, spec.rowType())) {
            // a copy: the stored row is shared by every reader, and the caller may set its kind
            BinaryRow row = record.row.copy();
            row.setRowKind(record.kind);
            return row;
        }
        return converters
                .computeIfAbsent(
                        record.writtenType, type -> new WrittenRowConverter(type, spec.rowType()))
                .convert(record.row, record.kind);
    }

    @Override
    public List<PartitionBucket> finished() {
        if (finished.isEmpty()) {
            return Collections.emptyList();
        }
        List<PartitionBucket> result = new ArrayList<>(finished);
        finished.clear();
        return result;
    }

    @Override
    public void wakeup() {
        woken = true;
        table.changed();
    }

    @Override
    public void close() {
        synchronized (table) {
            for (Cursor cursor : cursors.values()) {
                cursor.log.unpin(cursor);
            }
        }
        cursors.clear();
        pending.clear();
    }
}
