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

package io.lakestream.spark.source;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.OffsetsFileFormat;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.read.plan.BucketRead;
import io.lakestream.read.plan.ForeignCommits;
import io.lakestream.read.plan.ReadStart;
import io.lakestream.read.plan.UnionReadPlanner;
import io.lakestream.spark.reader.LakeStreamReaderFactory;
import io.lakestream.spark.types.SparkRowConverter;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.table.LakeStreamEnablement;
import io.lakestream.table.StreamTableLookup;

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;

import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.apache.spark.sql.connector.read.streaming.SupportsAdmissionControl;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Structured Streaming read of a table in lake-stream mode, in micro-batches: the rows of the
 * table's latest snapshot first, then, per partition-bucket, the store's log from the offsets that
 * snapshot recorded (partitions that appear later from their first record), and the changes of
 * snapshots that other writers committed without offsets, as the Flink source follows them ({@link
 * ForeignCommits}). Rows keep their kinds and are never merged inside a batch, so a delete of a
 * primary-key table is never lost: read through the table's {@code $audit_log}, its {@code rowkind}
 * column says what each row is.
 *
 * <p>An offset ({@link LakeStreamSourceOffset}) records the start snapshot, how far the other
 * writers' snapshots were looked at and each partition-bucket's log offset, so that a restarted
 * query plans the batch it had not finished exactly as before, and goes on after the last one it
 * finished. With {@code 'lake-stream.read.isolation' = 'read-committed'} a batch reads the logs
 * only up to the offsets of the latest snapshot: records of completed commits, never one a failover
 * rewrites.
 */
@Experimental
public class LakeStreamMicroBatchStream
        implements MicroBatchStream, SupportsAdmissionControl, SupportsTriggerAvailableNow {

    private static final Logger LOG = LoggerFactory.getLogger(LakeStreamMicroBatchStream.class);

    private final Identifier identifier;
    private final FileStoreTable table;
    private final Map<String, String> storeOptions;
    private final SparkRowConverter converter;
    private final long maxBufferedChanges;
    private final boolean readCommitted;
    @Nullable private final Long maxRecordsPerTrigger;
    private final OffsetsFileFormat format;
    @Nullable private final Predicate pruning;

    @Nullable private StreamStore store;
    @Nullable private StreamTable streamTable;
    @Nullable private UnionReadPlanner planner;
    @Nullable private ForeignCommits foreignCommits;

    /** With {@code Trigger.AvailableNow}: what was available when the query started. */
    @Nullable private LakeStreamSourceOffset availableNow;

    LakeStreamMicroBatchStream(
            Identifier identifier,
            FileStoreTable table,
            Map<String, String> options,
            @Nullable Predicate pruning,
            boolean auditLog,
            SparkRowConverter converter) {
        String name = identifier.getFullName();
        LakeStreamEnablement.checkInLakeStreamMode(
                table,
                "enable it with ALTER TABLE ... SET ('lake-stream.enabled' = 'true') in Flink or "
                        + "LakeStreamTable.enable",
                ", or read it with Paimon's own Spark catalog");
        if (ReadStart.travelsInTime(table.options())) {
            throw new UnsupportedOperationException(
                    "A streaming read of table "
                            + name
                            + " cannot travel in time: read it without VERSION AS OF or "
                            + "TIMESTAMP AS OF.");
        }
        Options read = Options.fromMap(options);
        if (read.get(LakeStreamOptions.READ_LAKE_ONLY)) {
            throw new UnsupportedOperationException(
                    String.format(
                            "A streaming read of table %s follows the stream store: '%s' = 'true' "
                                    + "reads Paimon's snapshot alone. Read it without the option, "
                                    + "or with Paimon's own Spark catalog.",
                            name, LakeStreamOptions.READ_LAKE_ONLY.key()));
        }
        if (!table.primaryKeys().isEmpty() && !auditLog) {
            throw new UnsupportedOperationException(
                    String.format(
                            "Table %s has a primary key: a streaming read returns its changes, "
                                    + "updates and deletes included, which a row without its kind "
                                    + "cannot tell apart. Read %s%s%s, whose column '%s' holds "
                                    + "each row's kind (+I, -U, +U, -D).",
                            name,
                            name,
                            Identifier.SYSTEM_TABLE_SPLITTER,
                            org.apache.paimon.table.system.AuditLogTable.AUDIT_LOG,
                            LakeStreamSparkTable.ROW_KIND_COLUMN));
        }
        this.identifier = identifier;
        this.table = table;
        this.storeOptions = LakeStreamOptions.forTable(table.options(), options);
        this.converter = converter;
        this.pruning = pruning;
        this.maxBufferedChanges = read.get(LakeStreamOptions.READ_MERGE_BUFFER_MAX_RECORDS);
        this.readCommitted =
                read.get(LakeStreamOptions.READ_ISOLATION)
                        == LakeStreamOptions.ReadIsolation.READ_COMMITTED;
        this.maxRecordsPerTrigger = read.get(LakeStreamOptions.READ_MAX_RECORDS_PER_TRIGGER);
        if (maxRecordsPerTrigger != null && maxRecordsPerTrigger < 1) {
            throw new IllegalArgumentException(
                    String.format(
                            "'%s' of the streaming read of table %s must be at least 1, not %d.",
                            LakeStreamOptions.READ_MAX_RECORDS_PER_TRIGGER.key(),
                            name,
                            maxRecordsPerTrigger));
        }
        this.format = OffsetsFileFormat.of(table);
    }

    /** The store connection of the driver, opened at the first call that needs it. */
    private StreamStore store() {
        if (store == null) {
            StreamTableLookup.Connected connected =
                    StreamTableLookup.open(
                            StreamTableSpec.of(identifier, table),
                            storeOptions,
                            LakeStreamMicroBatchStream.class.getClassLoader());
            streamTable = connected.table();
            planner = new UnionReadPlanner(table, streamTable, pruning, false);
            foreignCommits = new ForeignCommits(planner);
            store = connected.store();
        }
        return store;
    }

    /**
     * Where a query without a checkpoint starts: the latest snapshot, its rows not read yet, and
     * each partition-bucket's log at the offset that snapshot recorded.
     */
    @Override
    public Offset initialOffset() {
        StreamStore connected = store();
        UnionReadPlanner.Plan plan = planner.plan(connected, null);
        Map<PartitionBucket, Long> starts = new LinkedHashMap<>();
        for (BucketRead read : plan.buckets()) {
            starts.put(read.partitionBucket(), read.logStartOffset());
        }
        Long snapshotId = plan.snapshotId();
        LakeStreamSourceOffset initial =
                new LakeStreamSourceOffset(
                        snapshotId == null ? -1L : snapshotId,
                        snapshotId == null,
                        plan.changesAfter() + 1,
                        StreamOffsets.of(starts),
                        format);
        LOG.info("The streaming read of {} starts at {}.", identifier.getFullName(), initial);
        return initial;
    }

    @Override
    public Offset deserializeOffset(String json) {
        return LakeStreamSourceOffset.fromJson(json, table);
    }

    @Override
    public ReadLimit getDefaultReadLimit() {
        return maxRecordsPerTrigger == null
                ? ReadLimit.allAvailable()
                : ReadLimit.maxRows(maxRecordsPerTrigger);
    }

    @Override
    public void prepareForTriggerAvailableNow() {
        availableNow = available(null);
        LOG.info(
                "The streaming read of {} with Trigger.AvailableNow reads up to {}.",
                identifier.getFullName(),
                availableNow);
    }

    @Override
    public Offset latestOffset() {
        throw new UnsupportedOperationException(
                "The lake-stream source admits data by its read limit: latestOffset(start, limit)");
    }

    /**
     * The end of the next micro-batch: the start snapshot's rows, the other writers' snapshots up
     * to the latest (at most {@link ForeignCommits#MAX_SNAPSHOTS_PER_LOOK} per batch) and each
     * log's end (the store's, or the latest snapshot's offsets when reading committed), capped by
     * the read limit and, with {@code Trigger.AvailableNow}, by what was available at the start.
     */
    @Override
    public Offset latestOffset(Offset startOffset, ReadLimit limit) {
        LakeStreamSourceOffset start = (LakeStreamSourceOffset) startOffset;
        LakeStreamSourceOffset latest = available(start);
        Map<PartitionBucket, Long> ends = new LinkedHashMap<>();
        long nextSnapshot = latest.nextSnapshotId();
        if (availableNow != null) {
            nextSnapshot = Math.min(nextSnapshot, availableNow.nextSnapshotId());
        }
        nextSnapshot = Math.max(nextSnapshot, start.nextSnapshotId());
        Map<PartitionBucket, Long> pending = new LinkedHashMap<>();
        for (Map.Entry<PartitionBucket, Long> entry : latest.log().asMap().entrySet()) {
            PartitionBucket pb = entry.getKey();
            long from = start.log().offsetOr(pb, 0L);
            long to = entry.getValue();
            if (availableNow != null) {
                to = Math.min(to, availableNow.log().offsetOr(pb, from));
            }
            to = Math.max(from, to);
            ends.put(pb, from);
            if (to > from) {
                pending.put(pb, to - from);
            }
        }
        long maxRows = limit instanceof ReadMaxRows ? ((ReadMaxRows) limit).maxRows() : -1L;
        long share =
                maxRows < 0 || pending.isEmpty() ? -1L : Math.max(1L, maxRows / pending.size());
        for (Map.Entry<PartitionBucket, Long> entry : pending.entrySet()) {
            long records = share < 0 ? entry.getValue() : Math.min(share, entry.getValue());
            ends.merge(entry.getKey(), records, Long::sum);
        }
        LakeStreamSourceOffset end =
                new LakeStreamSourceOffset(
                        start.snapshotId(), true, nextSnapshot, StreamOffsets.of(ends), format);
        return end.json().equals(start.json()) ? start : end;
    }

    /**
     * What the table has now: every partition-bucket's log end (the store's, or what the latest
     * snapshot committed when reading committed), the partition-buckets of {@code start} included,
     * and the snapshot after the last one a look at other writers' commits reaches.
     */
    private LakeStreamSourceOffset available(@Nullable LakeStreamSourceOffset start) {
        StreamStore connected = store();
        Set<PartitionBucket> pbs = new LinkedHashSet<>();
        if (start != null) {
            pbs.addAll(start.log().asMap().keySet());
        }
        pbs.addAll(planner.partitionBuckets(connected.listPartitions(streamTable)));
        Map<PartitionBucket, Long> ends;
        if (readCommitted) {
            StreamOffsets committed =
                    SnapshotOffsets.ofLatestSnapshot(table).orElse(StreamOffsets.empty());
            ends = new LinkedHashMap<>();
            for (PartitionBucket pb : pbs) {
                ends.put(pb, committed.offsetOr(pb, 0L));
            }
        } else {
            ends =
                    pbs.isEmpty()
                            ? new LinkedHashMap<>()
                            : new LinkedHashMap<>(
                                    connected.listOffsets(streamTable, pbs, OffsetPosition.LATEST));
        }
        long nextSnapshot;
        if (start == null) {
            Long latest = table.snapshotManager().latestSnapshotId();
            nextSnapshot = latest == null ? 1L : latest + 1;
        } else {
            // how far, not what: planInputPartitions plans the other writers' snapshots once
            nextSnapshot = foreignCommits.reach(start.nextSnapshotId());
        }
        return new LakeStreamSourceOffset(
                start == null ? -1L : start.snapshotId(),
                true,
                nextSnapshot,
                StreamOffsets.of(ends),
                format);
    }

    /**
     * One input partition per partition-bucket with anything to read between the two offsets: the
     * start snapshot's files if the batch reads them, the other writers' changes, in snapshot
     * order, and the log range.
     */
    @Override
    public InputPartition[] planInputPartitions(Offset startOffset, Offset endOffset) {
        LakeStreamSourceOffset start = (LakeStreamSourceOffset) startOffset;
        LakeStreamSourceOffset end = (LakeStreamSourceOffset) endOffset;
        store();
        Map<PartitionBucket, List<DataSplit>> lake = new LinkedHashMap<>();
        if (!start.snapshotRead() && end.snapshotRead() && start.snapshotId() >= 0) {
            planner.lakeSplitsOf(start.snapshotId())
                    .forEach((pb, splits) -> lake.put(pb, new ArrayList<>(splits)));
        }
        if (end.nextSnapshotId() > start.nextSnapshotId()) {
            ForeignCommits.Followed followed =
                    foreignCommits.follow(start.nextSnapshotId(), end.nextSnapshotId());
            for (ForeignCommits.Change change : followed.changes()) {
                lake.computeIfAbsent(change.partitionBucket(), pb -> new ArrayList<>())
                        .addAll(change.splits());
            }
        }
        Set<PartitionBucket> pbs = new LinkedHashSet<>(lake.keySet());
        pbs.addAll(end.log().asMap().keySet());
        List<InputPartition> partitions = new ArrayList<>();
        for (PartitionBucket pb : pbs) {
            long from = start.log().offsetOr(pb, 0L);
            long to = Math.max(from, end.log().offsetOr(pb, from));
            List<DataSplit> splits = lake.getOrDefault(pb, Collections.emptyList());
            if (!splits.isEmpty() || to > from) {
                partitions.add(
                        new LakeStreamInputPartition(new BucketRead(pb, splits, from, to), true));
            }
        }
        return partitions.toArray(new InputPartition[0]);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        store();
        return new LakeStreamReaderFactory(
                table, streamTable, storeOptions, converter, maxBufferedChanges, Long.MAX_VALUE);
    }

    @Override
    public void commit(Offset end) {
        // nothing to release: the store keeps its records until Paimon commits them
    }

    @Override
    public void stop() {
        if (store != null) {
            store.close();
            store = null;
        }
    }

    @Override
    public String toString() {
        return "LakeStreamMicroBatchStream(" + identifier.getFullName() + ")";
    }
}
