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

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.WriterLeaseEntry;

import org.apache.paimon.data.BinaryRow;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * One stream table of the memory store: its logs per partition-bucket, its fences and its writer
 * leases, all in this process. Its monitor guards all of them; readers wait on it for records.
 */
final class MemoryStreamTable {

    final String name;
    final long id;

    /** Unique to this object, see {@link MemoryWriterLeaseLog#resumableId}. */
    final String instanceId = UUID.randomUUID().toString();

    private StreamTableSpec spec;
    @Nullable private StreamTableOwner owner;
    private final Map<BinaryRow, MemoryLog[]> partitions = new LinkedHashMap<>();

    /** Partitions dropped in this process and not written since. */
    private final Set<BinaryRow> droppedPartitions = new HashSet<>();

    private final List<AbortedRange> fences = new ArrayList<>();
    private final List<WriterLeaseEntry> leases = new ArrayList<>();
    private boolean dropped;

    /** Counts changes that readers wait for: appends, established logs, drops. */
    private long version;

    /** Threads waiting in {@link #awaitChange}: a change wakes them only when there are some. */
    private int waiting;

    /** Counts the times partitions' logs were removed: a writer's kept logs are then stale. */
    private long partitionsVersion;

    MemoryStreamTable(String name, long id, StreamTableSpec spec) {
        this.name = name;
        this.id = id;
        this.spec = spec;
        this.owner = spec.owner().orElse(null);
        if (!spec.isPartitioned()) {
            logsOf(BinaryRow.EMPTY_ROW, true);
        }
    }

    synchronized StreamTableSpec spec() {
        return spec;
    }

    synchronized void setSpec(StreamTableSpec spec) {
        this.spec = spec;
    }

    @Nullable
    synchronized StreamTableOwner owner() {
        return owner;
    }

    synchronized void setOwner(StreamTableOwner owner) {
        this.owner = owner;
    }

    synchronized boolean isDropped() {
        return dropped;
    }

    synchronized void markDropped() {
        dropped = true;
        changed();
    }

    /** The logs of a partition; created when {@code create}, else null when it has none. */
    @Nullable
    synchronized MemoryLog[] logsOf(BinaryRow partition, boolean create) {
        MemoryLog[] logs = partitions.get(partition);
        if (logs == null && create) {
            logs = new MemoryLog[spec.numBuckets()];
            for (int i = 0; i < logs.length; i++) {
                logs[i] = new MemoryLog();
            }
            // the caller's row may be reused after the call
            partitions.put(partition.copy(), logs);
            droppedPartitions.remove(partition);
        }
        return logs;
    }

    @Nullable
    synchronized MemoryLog log(PartitionBucket pb, boolean create) {
        MemoryLog[] logs = logsOf(pb.partition(), create);
        return logs == null ? null : logs[pb.bucket()];
    }

    /**
     * Whether a writer of this process has ever run for this table: taken a lease, written a log or
     * told one where it continues. A reader in another process than the writer's sees none.
     */
    synchronized boolean hadWriter() {
        if (!leases.isEmpty()) {
            return true;
        }
        for (MemoryLog[] logs : partitions.values()) {
            for (MemoryLog log : logs) {
                if (log.isEstablished()) {
                    return true;
                }
            }
        }
        return false;
    }

    synchronized boolean wasDropped(BinaryRow partition) {
        return droppedPartitions.contains(partition);
    }

    synchronized List<BinaryRow> partitions() {
        return new ArrayList<>(partitions.keySet());
    }

    /** Drops a partition with its records; returns their bytes. */
    synchronized long dropPartition(BinaryRow partition) {
        MemoryLog[] logs = partitions.remove(partition);
        if (logs == null) {
            return 0;
        }
        partitionsVersion++;
        droppedPartitions.add(partition.copy());
        long freed = 0;
        for (MemoryLog log : logs) {
            freed += log.drop();
        }
        changed();
        return freed;
    }

    /** Evicts the committed records that no reader pins; returns their bytes. */
    synchronized long evictCommitted() {
        long freed = 0;
        for (MemoryLog[] logs : partitions.values()) {
            for (MemoryLog log : logs) {
                freed += log.evict();
            }
        }
        return freed;
    }

    /** Drops every record of the table; returns their bytes. */
    synchronized long dropAll() {
        long freed = 0;
        for (MemoryLog[] logs : partitions.values()) {
            for (MemoryLog log : logs) {
                freed += log.drop();
            }
        }
        partitions.clear();
        partitionsVersion++;
        markDropped();
        return freed;
    }

    synchronized void addFences(List<AbortedRange> ranges) {
        fences.addAll(ranges);
    }

    /** The fences from index {@code from} on. */
    synchronized List<AbortedRange> fencesFrom(int from) {
        return new ArrayList<>(fences.subList(Math.min(from, fences.size()), fences.size()));
    }

    synchronized void addLease(WriterLeaseEntry entry) {
        leases.add(entry);
    }

    synchronized List<WriterLeaseEntry> leasesFrom(int from) {
        return new ArrayList<>(leases.subList(Math.min(from, leases.size()), leases.size()));
    }

    /** Tells waiting readers that something changed. */
    synchronized void changed() {
        version++;
        if (waiting > 0) {
            notifyAll();
        }
    }

    synchronized long partitionsVersion() {
        return partitionsVersion;
    }

    synchronized long version() {
        return version;
    }

    /** Waits up to {@code millis} for a change after {@code seen}. */
    synchronized void awaitChange(long seen, long millis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (version == seen) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return;
            }
            waiting++;
            try {
                wait(left);
            } finally {
                waiting--;
            }
        }
    }
}
