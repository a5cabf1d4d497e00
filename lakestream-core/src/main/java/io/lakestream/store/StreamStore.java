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

package io.lakestream.store;

import io.lakestream.offsets.PartitionBucket;

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The stream-store SPI: the one boundary between lake-stream mode and a store that holds the
 * records of Paimon tables that Paimon has not committed yet. Paimon keeps owning the table's
 * semantics, files, snapshots and commits; a store only keeps a log per partition-bucket, with
 * offsets, row kinds and fences.
 *
 * <p>A store's partition-bucket must hold exactly the rows that Paimon puts in the same
 * partition-bucket (invariant "bucket alignment"). Instances are created by a {@link
 * StreamStoreFactory} and are thread-safe; writers and readers they create are not.
 *
 * <p>A stream table belongs to one Paimon table (invariant "one stream table, one owner"): the
 * store records the {@link StreamTableSpec#owner() owner} of the spec that creates it and acts on
 * an existing stream table only for that owner. {@link StreamTableOwner#claim} says how an existing
 * stream table relates to a spec; a {@link StreamTableOwner.Claim#FOREIGN} one is refused by every
 * method with {@link StreamTableOwner#foreign}'s error, which names both owners. Stream tables that
 * record no owner ({@link StreamTableOwner.Claim#UNCLAIMED}, created before owners were recorded)
 * are adopted by {@link #provision}, served by {@link #get} and kept by {@link #drop}.
 */
@Experimental
public interface StreamStore extends AutoCloseable {

    /**
     * Creates the stream table of a Paimon table, or brings the existing one to {@code spec} by the
     * changes {@link #checkEvolution} allows (added columns) and checks that it matches.
     * Idempotent. A new stream table records the spec's owner; an existing one that records no
     * owner is adopted (the spec's owner is recorded on it, and the store logs that it did).
     *
     * @throws StreamStoreException when a column type cannot be held by the store (naming the
     *     column and type), when an existing stream table does not match (saying what differs), or
     *     when it belongs to another Paimon table (naming both)
     */
    StreamTable provision(StreamTableSpec spec);

    /**
     * Checks, before the Paimon table changes, that {@link #provision} can bring the stream table
     * of {@code from} to {@code to}. A store that cannot change stream tables refuses every change
     * of columns, keys and buckets, which is what this default does.
     *
     * @throws StreamStoreException saying what the store cannot follow
     */
    default void checkEvolution(StreamTableSpec from, StreamTableSpec to) {
        if (!from.rowType().equals(to.rowType()) || !from.hasSameLayout(to)) {
            throw new StreamStoreException(
                    String.format(
                            "The stream store of table %s cannot change the columns, keys or "
                                    + "buckets of its stream table.",
                            to.identifier().getFullName()));
        }
    }

    /**
     * Returns the existing stream table of a Paimon table after checking that it matches {@code
     * spec} and belongs to the spec's owner (one that records no owner is served as it was before
     * owners were recorded; {@link #provision} claims it).
     *
     * @throws StreamStoreException when it does not exist, does not match or belongs to another
     *     Paimon table
     */
    StreamTable get(StreamTableSpec spec);

    /**
     * Drops the stream table of a Paimon table, its fences and its writer leases, when all of them
     * belong to {@code owner}; returns whether the stream table existed. Nothing is dropped when
     * one of them belongs to another Paimon table or records no owner (unless {@code owner} is null
     * too): the records may be another table's.
     *
     * @param owner the Paimon table that is dropped or disabled; null only for stream tables
     *     provisioned from specs without owner
     * @throws StreamStoreException when something was kept for that reason, naming the owners
     */
    boolean drop(Identifier paimonTable, @Nullable StreamTableOwner owner);

    /** A writer of the stream table. */
    StreamWriter createWriter(StreamTable table);

    /** A raw reader of the stream table: it returns fenced records too. */
    StreamReader createReader(StreamTable table);

    /** The fences of the stream table. */
    FenceLog openFenceLog(StreamTable table);

    /** The writer lease log of the stream table (invariant "one owner per bucket"). */
    WriterLeaseLog openWriterLeaseLog(StreamTable table);

    /** The partitions the stream table holds, as Paimon partition rows. */
    List<BinaryRow> listPartitions(StreamTable table);

    /**
     * Drops one partition of the stream table with every record of it; a partition the store does
     * not have is left as it is. A partition created again later starts its logs at offset 0, so
     * the caller removes the partition's offsets from the table's offsets map in the same step (see
     * "Partitions" in {@code docs/consistency.md}). A store that cannot drop partitions throws
     * {@link UnsupportedOperationException}, which is what this default does.
     *
     * @throws StreamStoreException when the store fails to drop it
     */
    default void dropPartition(StreamTable table, BinaryRow partition) {
        throw new UnsupportedOperationException(
                getClass().getName() + " cannot drop partitions of stream tables.");
    }

    /** Every bucket of every partition the stream table holds. */
    default List<PartitionBucket> listPartitionBuckets(StreamTable table) {
        List<PartitionBucket> all = new ArrayList<>();
        for (BinaryRow partition : listPartitions(table)) {
            for (int bucket = 0; bucket < table.spec().numBuckets(); bucket++) {
                all.add(new PartitionBucket(partition, bucket));
            }
        }
        return all;
    }

    /** The earliest or latest offset of each of {@code partitionBuckets}. */
    Map<PartitionBucket, Long> listOffsets(
            StreamTable table,
            Collection<PartitionBucket> partitionBuckets,
            OffsetPosition position);

    /**
     * Whether the store keeps its logs in the writer's process only (the {@code memory} store), so
     * that a log of a new process is empty although Paimon's snapshots committed records of it. A
     * starting writer then tells each log it owns where it continues ({@link
     * StreamWriter#continueAt}) instead of judging the store's end offsets lost. False by default:
     * a store whose logs outlive every process, as Fluss's do.
     */
    default boolean isProcessLocal() {
        return false;
    }

    /**
     * Tells the store that a Paimon snapshot committed each of {@code committed}'s
     * partition-buckets up to its offset (exclusive), so that it may free what it holds below
     * (Paimon C++'s {@code AdvanceCommittedOffset}). A hint, called after every commit of the job's
     * committer; a store that keeps its records by its own retention, as Fluss does, ignores it,
     * which is what this default does.
     */
    default void advanceCommittedOffsets(StreamTable table, Map<PartitionBucket, Long> committed) {}

    @Override
    void close();
}
