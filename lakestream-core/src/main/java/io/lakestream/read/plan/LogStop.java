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

package io.lakestream.read.plan;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.protocol.WriterLeases;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;

import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;

/** Where the log of each partition-bucket of a bounded read stops: its isolation level. */
@FunctionalInterface
public interface LogStop {

    Map<PartitionBucket, Long> stopOffsets(
            StreamOffsets snapshotOffsets, Collection<PartitionBucket> partitionBuckets);

    /**
     * This stop as decided once, at one planning, for {@link UnionReadPlanner#plan} to ask {@link
     * #beyondSnapshot} and then {@link #stopOffsets} of the same decision. A stop that asks the
     * store each time (whether a writer is live) asks it here, once; a stop kept for several plans
     * (a lookup cache's) decides afresh at each.
     */
    default LogStop atPlanning() {
        return this;
    }

    /**
     * Whether a log may stop past the snapshot's offsets. Only then can a partition that the store
     * has and the snapshot does not add records to the read, so only then does the planner list the
     * store's partitions (a round trip per partition on Fluss's coordinator).
     */
    default boolean beyondSnapshot() {
        return true;
    }

    /**
     * Read-uncommitted: up to the records the store holds at planning while a writer holds the
     * table's writer lease; with no live lease, up to the snapshot's own offsets. Records above the
     * latest snapshot's offsets that no running writer writes are no writer's uncommitted tail: a
     * stopped writer left them (the next writer fences them) or a rollback removed the snapshots
     * that held them. Paimon's read holds neither, and neither does this one.
     */
    static LogStop storeEnds(StreamStore store, StreamTable table, Duration leaseTimeout) {
        LogStop whileLive = (offsets, pbs) -> store.listOffsets(table, pbs, OffsetPosition.LATEST);
        return new LogStop() {
            @Override
            public Map<PartitionBucket, Long> stopOffsets(
                    StreamOffsets offsets, Collection<PartitionBucket> pbs) {
                return atPlanning().stopOffsets(offsets, pbs);
            }

            @Override
            public LogStop atPlanning() {
                return WriterLeases.isLive(store, table, leaseTimeout)
                        ? whileLive
                        : snapshotOffsets();
            }
        };
    }

    /**
     * The stop of a bounded read of {@code table} with {@code options}: {@link #snapshotOffsets()}
     * when the table's options travel in time (the read returns that snapshot's state exactly, as
     * Paimon's does) or for {@code 'lake-stream.read.isolation' = 'read-committed'}, else {@link
     * #storeEnds} with the writer lease timeout of {@code options}.
     */
    static LogStop forBoundedRead(
            FileStoreTable table, Options options, StreamStore store, StreamTable streamTable) {
        if (ReadStart.travelsInTime(table.options())
                || options.get(LakeStreamOptions.READ_ISOLATION)
                        == LakeStreamOptions.ReadIsolation.READ_COMMITTED) {
            return snapshotOffsets();
        }
        return storeEnds(
                store, streamTable, options.get(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT));
    }

    /** Read-committed: up to the snapshot's own offsets, nothing beyond what it committed. */
    static LogStop snapshotOffsets() {
        return new LogStop() {
            @Override
            public Map<PartitionBucket, Long> stopOffsets(
                    StreamOffsets offsets, Collection<PartitionBucket> pbs) {
                return offsets.asMap();
            }

            @Override
            public boolean beyondSnapshot() {
                return false;
            }
        };
    }
}
