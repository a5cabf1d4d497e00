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

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamSubscription;
import io.lakestream.store.StreamTable;

import org.apache.paimon.data.BinaryRow;

import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.client.table.scanner.log.LogScanner;
import org.apache.fluss.client.table.scanner.log.ScanRecords;
import org.apache.fluss.exception.FetchException;
import org.apache.fluss.metadata.PartitionInfo;
import org.apache.fluss.metadata.TableBucket;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads partition-buckets of a stream table with one Fluss log scanner. Partitions that the store
 * does not have yet (nothing was written to them) are kept pending and subscribed as soon as a poll
 * finds them created.
 */
final class FlussStreamReader implements StreamReader {

    /** How often pending partitions are looked up while they do not exist yet. */
    private static final long PENDING_PARTITION_CHECK_MILLIS = 1_000;

    private final FlussStreamStore store;
    private final StreamTable table;
    private final FlussStreamTableLayout layout;
    private final Table flussTable;
    private final LogScanner scanner;
    private final FlussRowToPaimonRow converter;
    private final FlussPartitionNames partitionNames;

    /** Subscribed partition-buckets, by Fluss bucket. */
    private final Map<TableBucket, Subscription> subscriptions = new HashMap<>();

    /** Partition-buckets whose partition does not exist in Fluss yet. */
    private final Map<PartitionBucket, Subscription> pending = new HashMap<>();

    private final Map<BinaryRow, Long> partitionIds = new HashMap<>();
    private final List<PartitionBucket> finished = new ArrayList<>();
    private long lastPendingCheck;

    /**
     * How often the partitions of subscribed logs are checked for a drop: Fluss's scanner keeps a
     * subscription of a dropped partition without a word, and a bounded log would then wait for
     * records that no longer exist.
     */
    private static final long DROPPED_PARTITION_CHECK_MILLIS = 5_000;

    private long lastDroppedCheck = System.currentTimeMillis();

    /** Where one partition-bucket is read from and up to. */
    private static final class Subscription {
        final PartitionBucket partitionBucket;
        final long startOffset;
        final long stopOffset;

        Subscription(PartitionBucket partitionBucket, long startOffset, long stopOffset) {
            this.partitionBucket = partitionBucket;
            this.startOffset = startOffset;
            this.stopOffset = stopOffset;
        }
    }

    /** Reads {@code flussTable}, the stream table's Fluss handle, which it closes. */
    FlussStreamReader(
            FlussStreamStore store,
            StreamTable table,
            FlussStreamTableLayout layout,
            Table flussTable) {
        this.store = store;
        this.table = table;
        this.layout = layout;
        this.flussTable = flussTable;
        this.scanner = flussTable.newScan().createLogScanner();
        // the scanner hands out rows of its table's schema, projecting records of other schemas
        this.converter =
                new FlussRowToPaimonRow(
                        new FlussColumnMapping(table.spec(), flussTable.getTableInfo()));
        this.partitionNames =
                table.spec().isPartitioned() ? new FlussPartitionNames(table.spec()) : null;
    }

    @Override
    public void subscribe(PartitionBucket partitionBucket, long startOffset, long stopOffset) {
        subscribe(
                Collections.singletonList(
                        new StreamSubscription(partitionBucket, startOffset, stopOffset)));
    }

    /**
     * Checks and starts the whole batch with at most three metadata requests, whatever its size:
     * one listing of the table's partitions when the batch names a partition this reader has not
     * seen, and one earliest and one latest offset listing (each sent to all partitions at once).
     * Subscribing a bucket of Fluss's scanner itself sends nothing.
     *
     * <p>Bounded subscriptions are started without the offset listings: their ranges are what the
     * store held when the read was planned, and Fluss's tablet server refuses a fetch outside the
     * offsets it holds (Fluss 0.9.1 {@code LocalLog#read}; the client's {@code LogFetchCollector}
     * throws {@code FetchException}), which {@link #poll} then reports as the listing would have.
     * The listings are a metadata refresh and a round trip to the leaders that a batch read's last
     * bucket would otherwise wait for before its first fetch.
     */
    @Override
    public void subscribe(List<StreamSubscription> batch) {
        List<StreamSubscription> toStart = new ArrayList<>();
        boolean unknownPartition = false;
        for (StreamSubscription subscription : batch) {
            PartitionBucket pb = subscription.partitionBucket();
            if (pb.bucket() >= table.spec().numBuckets()) {
                throw new StreamStoreException(
                        String.format(
                                "Stream table %s has %d buckets; there is no %s.",
                                table.storeTableName(), table.spec().numBuckets(), pb));
            }
            if (subscription.startOffset() >= subscription.stopOffset()) {
                finished.add(pb);
            } else {
                toStart.add(subscription);
                unknownPartition |= partitionId(pb.partition(), false) == null;
            }
        }
        if (toStart.isEmpty()) {
            return;
        }
        if (unknownPartition) {
            refreshPartitionIds();
        }
        // the logs read without end whose partition exists: a bounded range is left to the fetch
        List<PartitionBucket> toCheck = new ArrayList<>();
        for (StreamSubscription subscription : toStart) {
            PartitionBucket pb = subscription.partitionBucket();
            if (partitionId(pb.partition(), false) != null
                    && subscription.stopOffset() == NO_STOP_OFFSET) {
                toCheck.add(pb);
            }
        }
        Map<PartitionBucket, Long> earliest = Collections.emptyMap();
        Map<PartitionBucket, Long> latest = Collections.emptyMap();
        if (!toCheck.isEmpty()) {
            // the two listings travel together: one round trip to the leaders, not two
            List<Map<PartitionBucket, Long>> listed =
                    store.listOffsets(
                            layout,
                            toCheck,
                            Arrays.asList(OffsetPosition.EARLIEST, OffsetPosition.LATEST));
            earliest = listed.get(0);
            latest = listed.get(1);
        }
        for (StreamSubscription subscription : toStart) {
            PartitionBucket pb = subscription.partitionBucket();
            Subscription wanted =
                    new Subscription(pb, subscription.startOffset(), subscription.stopOffset());
            Long partitionId = partitionId(pb.partition(), false);
            if (partitionId == null && subscription.startOffset() != 0) {
                // the partition held records and was dropped since (the table no longer has
                // it): nothing is left to read from there; one created again is a new partition
                finished.add(pb);
                continue;
            }
            if (partitionId == null) {
                // nothing was written to the partition yet: started once a poll finds it
                pending.put(pb, wanted);
                continue;
            }
            long offset = subscription.startOffset();
            if (earliest.containsKey(pb)
                    && (offset < earliest.get(pb) || offset > latest.get(pb))) {
                throw outOfRange(pb, offset, earliest.get(pb), latest.get(pb));
            }
            start(partitionId, wanted);
        }
    }

    private void start(long partitionId, Subscription subscription) {
        PartitionBucket pb = subscription.partitionBucket;
        if (partitionNames == null) {
            scanner.subscribe(pb.bucket(), subscription.startOffset);
            subscriptions.put(new TableBucket(table.storeTableId(), pb.bucket()), subscription);
        } else {
            scanner.subscribe(partitionId, pb.bucket(), subscription.startOffset);
            subscriptions.put(
                    new TableBucket(table.storeTableId(), partitionId, pb.bucket()), subscription);
        }
    }

    /**
     * The error of a fetch that Fluss refused, which names neither the table nor the
     * partition-bucket: when a subscription's start lies outside the offsets the store now holds (a
     * bounded subscription is started unchecked; any may fall behind the store's retention), the
     * error the listing at subscription would have given, else Fluss's own named with the table.
     */
    private StreamStoreException refusedFetch(FetchException e) {
        List<PartitionBucket> subscribed = new ArrayList<>();
        for (Subscription subscription : subscriptions.values()) {
            subscribed.add(subscription.partitionBucket);
        }
        List<Map<PartitionBucket, Long>> listed;
        try {
            listed =
                    store.listOffsets(
                            layout,
                            subscribed,
                            Arrays.asList(OffsetPosition.EARLIEST, OffsetPosition.LATEST));
        } catch (RuntimeException listing) {
            e.addSuppressed(listing);
            listed = Arrays.asList(Collections.emptyMap(), Collections.emptyMap());
        }
        for (Subscription subscription : subscriptions.values()) {
            PartitionBucket pb = subscription.partitionBucket;
            Long earliest = listed.get(0).get(pb);
            Long latest = listed.get(1).get(pb);
            long offset = subscription.startOffset;
            if (earliest != null && latest != null && (offset < earliest || offset > latest)) {
                StreamStoreException error = outOfRange(pb, offset, earliest, latest);
                error.addSuppressed(e);
                return error;
            }
        }
        return new StreamStoreException(
                String.format(
                        "Reading stream table %s (Paimon table %s) failed: %s",
                        table.storeTableName(),
                        table.spec().identifier().getFullName(),
                        e.getMessage()),
                e);
    }

    private StreamStoreException outOfRange(
            PartitionBucket pb, long offset, long earliest, long latest) {
        return new StreamStoreException(
                String.format(
                        "Offset %d of %s of stream table %s (Paimon table %s) is out of range: the "
                                + "store holds offsets [%d, %d).",
                        offset,
                        pb,
                        table.storeTableName(),
                        table.spec().identifier().getFullName(),
                        earliest,
                        latest));
    }

    /** The Fluss id of a partition, or null when Fluss does not have it (yet). */
    private Long partitionId(BinaryRow partition, boolean refresh) {
        if (partitionNames == null) {
            return -1L;
        }
        Long id = partitionIds.get(partition);
        if (id == null && refresh) {
            refreshPartitionIds();
            id = partitionIds.get(partition);
        }
        return id;
    }

    /** Learns the ids of all the table's partitions with one request. */
    private void refreshPartitionIds() {
        if (partitionNames == null) {
            return;
        }
        // rebuilt, not merged: a dropped partition must not keep its id
        partitionIds.clear();
        for (PartitionInfo info : store.partitionInfos(layout.tablePath())) {
            partitionIds.put(
                    partitionNames.partitionOf(info.getPartitionName()), info.getPartitionId());
        }
    }

    @Override
    public void unsubscribe(PartitionBucket partitionBucket) {
        pending.remove(partitionBucket);
        Iterator<Map.Entry<TableBucket, Subscription>> it = subscriptions.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<TableBucket, Subscription> entry = it.next();
            if (entry.getValue().partitionBucket.equals(partitionBucket)) {
                stop(entry.getKey());
                it.remove();
            }
        }
    }

    private void stop(TableBucket bucket) {
        if (bucket.getPartitionId() == null) {
            scanner.unsubscribe(bucket.getBucket());
        } else {
            scanner.unsubscribe(bucket.getPartitionId(), bucket.getBucket());
        }
    }

    @Override
    public List<StreamRecord> poll(Duration timeout) {
        startCreatedPartitions();
        endDroppedPartitions();
        if (subscriptions.isEmpty()) {
            return Collections.emptyList();
        }
        ScanRecords records;
        try {
            records = scanner.poll(timeout);
        } catch (FetchException e) {
            throw refusedFetch(e);
        }
        if (records.isEmpty()) {
            return Collections.emptyList();
        }
        List<StreamRecord> result = new ArrayList<>(records.count());
        for (TableBucket bucket : records.buckets()) {
            Subscription subscription = subscriptions.get(bucket);
            if (subscription == null) {
                continue; // unsubscribed while the fetch was in flight
            }
            List<ScanRecord> bucketRecords = records.records(bucket);
            for (ScanRecord record : bucketRecords) {
                if (record.logOffset() >= subscription.stopOffset) {
                    break;
                }
                result.add(
                        new StreamRecord(
                                subscription.partitionBucket,
                                record.logOffset(),
                                record.timestamp(),
                                converter.convert(record.getRow())));
            }
            long lastOffset = bucketRecords.get(bucketRecords.size() - 1).logOffset();
            if (lastOffset + 1 >= subscription.stopOffset) {
                stop(bucket);
                subscriptions.remove(bucket);
                finished.add(subscription.partitionBucket);
            }
        }
        return result;
    }

    /**
     * Ends the logs of partitions that were dropped (the table no longer has them, see "Partitions"
     * in docs/consistency.md): they are reported {@link #finished()}. A partition created again
     * under the same name is another Fluss partition, with logs from offset 0.
     */
    private void endDroppedPartitions() {
        long now = System.currentTimeMillis();
        if (partitionNames == null
                || subscriptions.isEmpty()
                || now - lastDroppedCheck < DROPPED_PARTITION_CHECK_MILLIS) {
            return;
        }
        lastDroppedCheck = now;
        refreshPartitionIds();
        Set<Long> existing = new HashSet<>(partitionIds.values());
        Iterator<Map.Entry<TableBucket, Subscription>> it = subscriptions.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<TableBucket, Subscription> entry = it.next();
            if (!existing.contains(entry.getKey().getPartitionId())) {
                stop(entry.getKey());
                it.remove();
                finished.add(entry.getValue().partitionBucket);
            }
        }
    }

    private void startCreatedPartitions() {
        if (pending.isEmpty()
                || System.currentTimeMillis() - lastPendingCheck < PENDING_PARTITION_CHECK_MILLIS) {
            return;
        }
        lastPendingCheck = System.currentTimeMillis();
        Iterator<Map.Entry<PartitionBucket, Subscription>> it = pending.entrySet().iterator();
        boolean refreshed = false;
        while (it.hasNext()) {
            Map.Entry<PartitionBucket, Subscription> entry = it.next();
            Long id = partitionId(entry.getKey().partition(), !refreshed);
            refreshed = true;
            if (id != null) {
                start(id, entry.getValue());
                it.remove();
            }
        }
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
        scanner.wakeup();
    }

    @Override
    public void close() {
        try {
            scanner.close();
            flussTable.close();
        } catch (Exception e) {
            throw new StreamStoreException("Cannot close the reader of " + table, e);
        }
    }
}
