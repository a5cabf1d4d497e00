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
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;

import org.apache.paimon.data.BinaryRow;

import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.metadata.MetadataUpdater;
import org.apache.fluss.metadata.PhysicalTablePath;
import org.apache.fluss.metadata.ResolvedPartitionSpec;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.row.indexed.IndexedRow;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The partitions a stream writer writes to: per partition its Fluss path, found once, and which of
 * its buckets were written since the last flush; and the creation of partitions the store does not
 * have yet.
 *
 * <p>Fluss's writer creates a missing partition itself, but one at a time and at a price per
 * record: until its metadata knows the partition, every record of it makes a blocking metadata
 * request. Here the first record of a partition that the client's metadata does not know starts an
 * asynchronous create-if-absent and is held, encoded, with the partition's later records. The
 * writer goes on with other partitions meanwhile, so all new partitions of a batch are created
 * together. Once creations complete, the writer's metadata learns all of them with one request, and
 * the held records go out in the order they were written, before any later record of theirs.
 */
final class StreamPartitionTargets {

    /** Sends one encoded record to a partition-bucket. */
    interface Sender {
        void send(PhysicalTablePath path, int bucket, IndexedRow row);
    }

    private final StreamTable table;
    private final TableInfo tableInfo;
    @Nullable private final FlussPartitionNames names;
    private final Admin admin;
    private final MetadataUpdater metadata;
    private final Sender sender;

    /**
     * Releases the held records of created partitions off Fluss's threads (the release makes a
     * metadata request, which must not run on the client's network threads), so that records of a
     * new partition become readable without waiting for the writer's next record or flush.
     */
    private final Executor releaser;

    /** Gets what an asynchronous release failed with; the writer throws it at its next call. */
    private final Consumer<RuntimeException> releaseFailure;

    private final Map<BinaryRow, Target> targets = new HashMap<>();
    private final List<Target> creating = new ArrayList<>();
    private final List<PartitionBucket> writtenSinceFlush = new ArrayList<>();

    /** Creations completed, counted from Fluss's threads; checked per record without a lock. */
    private final AtomicInteger completed = new AtomicInteger();

    private int completedSeen;

    StreamPartitionTargets(
            StreamTable table,
            TableInfo tableInfo,
            @Nullable FlussPartitionNames names,
            Admin admin,
            MetadataUpdater metadata,
            Sender sender,
            Executor releaser,
            Consumer<RuntimeException> releaseFailure) {
        this.releaser = releaser;
        this.releaseFailure = releaseFailure;
        this.table = table;
        this.tableInfo = tableInfo;
        this.names = names;
        this.admin = admin;
        this.metadata = metadata;
        this.sender = sender;
    }

    /** The target of {@code partition}; starts creating the partition if the store lacks it. */
    Target targetOf(BinaryRow partition) {
        Target target = targets.get(partition);
        if (target == null) {
            target = newTarget(partition.copy());
            targets.put(target.partition, target);
        }
        return target;
    }

    private Target newTarget(BinaryRow partition) {
        if (names == null) {
            return new Target(partition, PhysicalTablePath.of(tableInfo.getTablePath()), null);
        }
        String name = names.nameOf(partition);
        PhysicalTablePath path = PhysicalTablePath.of(tableInfo.getTablePath(), name);
        // created if absent even when the client's metadata knows the partition: the partition
        // may have been dropped since (the table no longer had it) and the metadata still name
        // the dropped one, which takes no records; learning the created one after the creation
        // replaces it
        CompletableFuture<Void> creation =
                admin.createPartition(
                        tableInfo.getTablePath(),
                        ResolvedPartitionSpec.fromPartitionName(tableInfo.getPartitionKeys(), name)
                                .toPartitionSpec(),
                        true);
        Target target = new Target(partition, path, creation);
        creating.add(target);
        creation.whenComplete(
                (ignored, error) -> {
                    completed.incrementAndGet();
                    releaser.execute(this::sendCreatedNow);
                });
        return target;
    }

    /**
     * {@link #sendCreated()} from the releaser. The metadata request runs outside the lock the
     * writer sends and holds with: it blocks while the store is unreachable, and the writer must
     * then still reach its flush, whose timeout fails the job. The held records are then sent under
     * the lock, so they go out before later records of their partition.
     */
    private void sendCreatedNow() {
        Set<PhysicalTablePath> paths = new HashSet<>();
        synchronized (this) {
            for (Target target : creating) {
                if (target.creation.isDone() && !target.creation.isCompletedExceptionally()) {
                    paths.add(target.path);
                }
            }
        }
        if (!paths.isEmpty()) {
            learn(paths);
        }
        synchronized (this) {
            try {
                int done = completed.get();
                if (done != completedSeen) {
                    completedSeen = done;
                    release(false, false);
                }
            } catch (RuntimeException e) {
                releaseFailure.accept(e);
            }
        }
    }

    /**
     * Sends the held records of every partition whose creation completed since the last call.
     * Callers hold this object's lock, as the writer does while it sends or holds a record, so held
     * records always go out before later records of their partition.
     */
    void sendCreated() {
        int done = completed.get();
        if (done != completedSeen) {
            completedSeen = done;
            release(false, true);
        }
    }

    /**
     * Waits until every partition being created exists, then sends their held records; before a
     * flush, so that the flush covers them.
     */
    void awaitCreated(Duration timeout) {
        if (creating.isEmpty()) {
            return;
        }
        CompletableFuture<?>[] all = new CompletableFuture<?>[creating.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = creating.get(i).creation;
        }
        try {
            CompletableFuture.allOf(all).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new StreamStoreException(
                    String.format(
                            "%d partitions of stream table %s of Paimon table %s were not created "
                                    + "within %s (option '%s').",
                            all.length,
                            table.storeTableName(),
                            table.spec().identifier().getFullName(),
                            FlussAdminCalls.format(timeout),
                            LakeStreamOptions.STORE_WRITE_TIMEOUT.key()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamStoreException("Interrupted while creating partitions of " + table, e);
        } catch (ExecutionException e) {
            // named by release, partition by partition
        }
        completedSeen = completed.get();
        release(true, true);
    }

    private void release(boolean all, boolean updateMetadata) {
        List<Target> created = new ArrayList<>();
        for (Iterator<Target> it = creating.iterator(); it.hasNext(); ) {
            Target target = it.next();
            if (all || target.creation.isDone()) {
                if (target.creation.isCompletedExceptionally()) {
                    throw creationFailed(target);
                }
                created.add(target);
                it.remove();
            }
        }
        if (created.isEmpty()) {
            return;
        }
        if (updateMetadata) {
            Set<PhysicalTablePath> paths = new HashSet<>();
            for (Target target : created) {
                paths.add(target.path);
            }
            learn(paths);
        }
        for (Target target : created) {
            target.release(sender);
        }
    }

    /**
     * One request teaches the writer's metadata every created partition; without it each of their
     * records would make one of its own.
     */
    private void learn(Set<PhysicalTablePath> paths) {
        try {
            metadata.updatePhysicalTableMetadata(paths);
        } catch (RuntimeException e) {
            // a server that does not know a partition yet: Fluss's writer looks it up itself
        }
    }

    private StreamStoreException creationFailed(Target target) {
        Throwable cause;
        try {
            target.creation.join();
            cause = null;
        } catch (RuntimeException e) {
            cause = e.getCause() == null ? e : e.getCause();
        }
        return new StreamStoreException(
                String.format(
                        "Cannot create partition %s of stream table %s of Paimon table %s: %s",
                        target.path.getPartitionName(),
                        table.storeTableName(),
                        table.spec().identifier().getFullName(),
                        cause == null ? "unknown" : cause.getMessage()),
                cause);
    }

    /** The partition-buckets written since the last {@link #clearWritten()}. */
    List<PartitionBucket> writtenSinceFlush() {
        return writtenSinceFlush;
    }

    /**
     * Forgets what was written since the last flush, and the partitions not written since the flush
     * before: a partition written again later is looked up again, so a writer never keeps a
     * partition that was dropped meanwhile, and keeps only the partitions it writes now.
     */
    void clearWritten() {
        Set<BinaryRow> active = new HashSet<>();
        for (PartitionBucket pb : writtenSinceFlush) {
            targets.get(pb.partition()).written[pb.bucket()] = false;
            active.add(pb.partition());
        }
        writtenSinceFlush.clear();
        targets.values().removeIf(target -> target.isReady() && !active.contains(target.partition));
    }

    /** One partition of the stream table, as a writer sends to it. */
    final class Target {

        private final BinaryRow partition;
        private final PhysicalTablePath path;
        @Nullable private CompletableFuture<Void> creation;
        private PartitionBucket[] keys = new PartitionBucket[tableInfo.getNumBuckets()];
        private boolean[] written = new boolean[tableInfo.getNumBuckets()];
        @Nullable private List<HeldRecord> held;

        private Target(
                BinaryRow partition,
                PhysicalTablePath path,
                @Nullable CompletableFuture<Void> creation) {
            this.partition = partition;
            this.path = path;
            this.creation = creation;
            this.held = creation == null ? null : new ArrayList<>();
        }

        BinaryRow partition() {
            return partition;
        }

        PhysicalTablePath path() {
            return path;
        }

        /** Whether records can be sent now; otherwise they are held until the partition exists. */
        boolean isReady() {
            return creation == null;
        }

        /** Notes that {@code bucket} is written; reported at the next flush. */
        void written(int bucket) {
            if (bucket >= written.length) {
                keys = Arrays.copyOf(keys, bucket + 1);
                written = Arrays.copyOf(written, bucket + 1);
            }
            if (!written[bucket]) {
                written[bucket] = true;
                PartitionBucket key = keys[bucket];
                if (key == null) {
                    key = new PartitionBucket(partition, bucket);
                    keys[bucket] = key;
                }
                writtenSinceFlush.add(key);
            }
        }

        /** Keeps a copy of an encoded record until the partition exists. */
        void hold(int bucket, IndexedRow row) {
            held.add(new HeldRecord(bucket, row.copy()));
        }

        private void release(Sender sender) {
            creation = null;
            List<HeldRecord> records = held;
            held = null;
            for (HeldRecord record : records) {
                sender.send(path, record.bucket, record.row);
            }
        }
    }

    /** A record held until its partition exists. */
    private static final class HeldRecord {
        private final int bucket;
        private final IndexedRow row;

        private HeldRecord(int bucket, IndexedRow row) {
            this.bucket = bucket;
            this.row = row;
        }
    }
}
