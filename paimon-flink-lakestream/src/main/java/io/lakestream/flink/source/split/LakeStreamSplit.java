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

package io.lakestream.flink.source.split;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.read.plan.BucketRead;
import io.lakestream.store.StreamReader;

import org.apache.paimon.table.source.DataSplit;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * All of one partition-bucket: the Paimon data splits of the snapshot the read started from, then
 * the stream store's log of the same partition-bucket from the offset that snapshot recorded. One
 * reader reads both, the lake part first, so the switch from lake to log happens per
 * partition-bucket (invariant 8) and a primary key's lake row always comes before its changes.
 *
 * <p>Progress is kept in the split: how many records of the lake part were emitted (a restore skips
 * them, as Paimon's own source does) and the next log offset. A split whose log has a stop offset
 * is finished when it reaches it; without one it is read for as long as the job runs.
 *
 * <p>A split of another writer's commit ({@link #followed}) carries that snapshot's changes of the
 * partition-bucket as its lake part and has no log part; its id is the partition-bucket's and the
 * snapshot's, so it is read beside the partition-bucket's own split, by the same reader.
 */
@Internal
public final class LakeStreamSplit implements SourceSplit {

    /** The {@link #followedSnapshotId()} of a split that follows no snapshot. */
    public static final long NOT_FOLLOWED = -1;

    private final PartitionBucket partitionBucket;
    private final List<DataSplit> lakeSplits;
    private final long lakeRecordsEmitted;
    private final boolean lakeFinished;
    private final long nextLogOffset;
    private final long logStopOffset;
    private final long followedSnapshotId;

    /** The split id, made once: readers look a split up by it for every record of its log. */
    private String splitId;

    public LakeStreamSplit(
            PartitionBucket partitionBucket,
            List<DataSplit> lakeSplits,
            long lakeRecordsEmitted,
            boolean lakeFinished,
            long nextLogOffset,
            long logStopOffset) {
        this(
                partitionBucket,
                lakeSplits,
                lakeRecordsEmitted,
                lakeFinished,
                nextLogOffset,
                logStopOffset,
                NOT_FOLLOWED);
    }

    /**
     * @param followedSnapshotId the snapshot of another writer whose changes of the
     *     partition-bucket this split carries (its lake part only), or {@link #NOT_FOLLOWED}
     */
    public LakeStreamSplit(
            PartitionBucket partitionBucket,
            List<DataSplit> lakeSplits,
            long lakeRecordsEmitted,
            boolean lakeFinished,
            long nextLogOffset,
            long logStopOffset,
            long followedSnapshotId) {
        this.partitionBucket = Objects.requireNonNull(partitionBucket);
        this.lakeSplits = Collections.unmodifiableList(lakeSplits);
        this.lakeRecordsEmitted = lakeRecordsEmitted;
        this.lakeFinished = lakeFinished || lakeSplits.isEmpty();
        this.nextLogOffset = nextLogOffset;
        this.logStopOffset = logStopOffset;
        this.followedSnapshotId = followedSnapshotId;
    }

    /**
     * A split of the changes that {@code snapshotId}, a commit of another writer (no offsets map),
     * made to the partition-bucket, as Paimon's streaming read plans them: read once, with their
     * row kinds, by the reader that owns the partition-bucket's log.
     */
    public static LakeStreamSplit followed(
            PartitionBucket partitionBucket, List<DataSplit> changes, long snapshotId) {
        return new LakeStreamSplit(partitionBucket, changes, 0, false, 0, 0, snapshotId);
    }

    /** A split that has not been read yet. */
    public static LakeStreamSplit of(
            PartitionBucket partitionBucket,
            List<DataSplit> lakeSplits,
            long logStartOffset,
            long logStopOffset) {
        return new LakeStreamSplit(
                partitionBucket, lakeSplits, 0, false, logStartOffset, logStopOffset);
    }

    /** The split of what the planner planned for a partition-bucket. */
    public static LakeStreamSplit of(BucketRead read) {
        return of(
                read.partitionBucket(),
                read.lakeSplits(),
                read.logStartOffset(),
                read.logStopOffset());
    }

    /** The split id: the partition-bucket, unique within a read. */
    public static String splitId(PartitionBucket pb) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(pb.partition().toBytes())
                + "-"
                + pb.bucket();
    }

    @Override
    public String splitId() {
        String id = splitId;
        if (id == null) {
            // a followed snapshot's split lives beside the partition-bucket's own split
            id =
                    isFollowed()
                            ? splitId(partitionBucket) + "@" + followedSnapshotId
                            : splitId(partitionBucket);
            // racing threads make equal ids: no lock needed
            splitId = id;
        }
        return id;
    }

    /** Whether the split carries the changes of another writer's snapshot. */
    public boolean isFollowed() {
        return followedSnapshotId != NOT_FOLLOWED;
    }

    /** The snapshot whose changes the split carries, or {@link #NOT_FOLLOWED}. */
    public long followedSnapshotId() {
        return followedSnapshotId;
    }

    public PartitionBucket partitionBucket() {
        return partitionBucket;
    }

    public List<DataSplit> lakeSplits() {
        return lakeSplits;
    }

    public long lakeRecordsEmitted() {
        return lakeRecordsEmitted;
    }

    public boolean lakeFinished() {
        return lakeFinished;
    }

    public long nextLogOffset() {
        return nextLogOffset;
    }

    /** The exclusive end of the log part, or {@link StreamReader#NO_STOP_OFFSET}. */
    public long logStopOffset() {
        return logStopOffset;
    }

    public boolean isBounded() {
        return logStopOffset != StreamReader.NO_STOP_OFFSET;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LakeStreamSplit)) {
            return false;
        }
        LakeStreamSplit that = (LakeStreamSplit) o;
        return lakeRecordsEmitted == that.lakeRecordsEmitted
                && lakeFinished == that.lakeFinished
                && nextLogOffset == that.nextLogOffset
                && logStopOffset == that.logStopOffset
                && followedSnapshotId == that.followedSnapshotId
                && partitionBucket.equals(that.partitionBucket)
                && lakeSplits.equals(that.lakeSplits);
    }

    @Override
    public int hashCode() {
        return Objects.hash(partitionBucket, lakeRecordsEmitted, nextLogOffset, logStopOffset);
    }

    @Override
    public String toString() {
        return String.format(
                "LakeStreamSplit{%s%s, %d lake splits, %s, log from %d%s}",
                partitionBucket,
                isFollowed() ? " following snapshot " + followedSnapshotId : "",
                lakeSplits.size(),
                lakeFinished ? "lake done" : lakeRecordsEmitted + " lake records emitted",
                nextLogOffset,
                isBounded() ? " to " + logStopOffset : "");
    }
}
