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

package io.lakestream.flink.source.enumerator;

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.source.LakeStreamReadContext;
import io.lakestream.flink.source.split.CommittedOffsetsEvent;
import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.flink.source.split.ReaderPositionEvent;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.read.consumer.ConsumerPositions;
import io.lakestream.read.plan.BucketRead;
import io.lakestream.read.plan.ForeignCommits;
import io.lakestream.read.plan.LimitedRead;
import io.lakestream.read.plan.LogStop;
import io.lakestream.read.plan.ReadStart;
import io.lakestream.read.plan.UnionReadPlanner;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamStore;
import io.lakestream.table.LakeStreamEnablement;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.FlinkRuntimeException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Plans the read once, then assigns each partition-bucket's split to a fixed reader (the same one
 * after a restore, so a reader's splits never move while it runs) and, for an unbounded read, looks
 * for partitions that appear in the store later and adds a split for each of their buckets whose
 * log starts at offset 0: everything such a partition holds came after the snapshot.
 *
 * <p>An unbounded read also checks, at each discovery, every Paimon schema committed since the last
 * check: one that turns lake-stream mode off fails the job for good. What Paimon alone commits
 * while the mode is off is not in the stream store, so a read that follows the store would never
 * return it; each ALTER of the mode is a new schema, so a disable that was undone before the check
 * is caught too. The last schema checked is in the enumerator state, so a restored read fails the
 * same way.
 *
 * <p>An unbounded read follows the commits of other writers too (snapshots that name no offsets
 * map, whose rows the store does not hold): {@link ForeignCommits} plans each one's changes, which
 * go as splits of their own to the reader that owns the partition-bucket's log, once, in snapshot
 * order. The next snapshot to look at is in the enumerator state, so a restore neither repeats nor
 * skips one.
 */
@Internal
public final class LakeStreamSplitEnumerator
        implements SplitEnumerator<LakeStreamSplit, LakeStreamEnumeratorState> {

    private static final Logger LOG = LoggerFactory.getLogger(LakeStreamSplitEnumerator.class);

    private final SplitEnumeratorContext<LakeStreamSplit> context;
    private final UnionReadPlanner planner;
    private final Supplier<StreamStore> storeSupplier;
    @Nullable private final LogStop logStop;
    private final boolean bounded;
    private final boolean lakeOnly;
    private final long discoveryIntervalMillis;

    /** The rows a bounded read's {@code LIMIT} asks for; {@link Long#MAX_VALUE} for none. */
    private final long limit;

    /** How often an unbounded read-committed read looks for a new Paimon snapshot. */
    private static final long COMMITTED_OFFSETS_INTERVAL_MILLIS = 1_000;

    /** The table whose committed offsets readers follow, for an unbounded read-committed read. */
    @Nullable private final FileStoreTable committedOffsetsOf;

    @Nullable private StreamOffsets lastCommitted;

    private final Set<PartitionBucket> planned;
    private final Map<Integer, List<LakeStreamSplit>> pending = new HashMap<>();

    /**
     * The last Paimon schema id checked: it and every schema since the read started keep
     * lake-stream mode on. Read by the discovery callable, advanced by its handler.
     */
    private volatile long checkedSchemaId;

    private boolean initialPlanDone;

    /** Follows the commits of other writers; null for a bounded read or a read of the lake. */
    @Nullable private final ForeignCommits foreignCommits;

    /**
     * The id of the next snapshot to look at for another writer's commit; null until the initial
     * plan says where the read starts.
     */
    @Nullable private Long nextFollowedSnapshotId;

    @Nullable private StreamStore store;

    /** The writer lease timeout by which a bounded read tells whether a job writes the table. */
    private final Duration writerLeaseTimeout;

    /** Where a read with a {@code consumer-id} records its position; null without one. */
    @Nullable private final ConsumerPositions consumer;

    /** The positions of a consumer's checkpoints, put together from the readers' reports. */
    private final ConsumerProgress consumerProgress = new ConsumerProgress();

    /**
     * The consumer's next snapshot when the read starts as Paimon's read of a consumer does (the
     * changes of that snapshot and later); null to start as the scan options say.
     */
    @Nullable private final Long consumerNextSnapshot;

    LakeStreamSplitEnumerator(
            SplitEnumeratorContext<LakeStreamSplit> context,
            UnionReadPlanner planner,
            Supplier<StreamStore> storeSupplier,
            @Nullable LogStop logStop,
            boolean bounded,
            boolean lakeOnly,
            long discoveryIntervalMillis,
            Duration writerLeaseTimeout,
            @Nullable FileStoreTable committedOffsetsOf,
            long limit,
            @Nullable LakeStreamEnumeratorState restored,
            @Nullable ConsumerPositions consumer,
            @Nullable Long consumerNextSnapshot) {
        this.context = context;
        this.consumer = consumer;
        this.consumerNextSnapshot = consumerNextSnapshot;
        this.limit = limit;
        this.writerLeaseTimeout = writerLeaseTimeout;
        this.committedOffsetsOf = committedOffsetsOf;
        this.planner = planner;
        this.storeSupplier = storeSupplier;
        this.logStop = logStop;
        this.bounded = bounded;
        this.lakeOnly = lakeOnly;
        this.discoveryIntervalMillis = discoveryIntervalMillis;
        this.planned = new LinkedHashSet<>();
        // a new read follows the table from the schema it was built with, which is in lake-stream
        // mode (the source refuses others) and covers every earlier one the planned snapshot
        // needs (ReadStart checked those); state written before the schema id was kept restores
        // from the schema the restored job was built with: the latest at restore time
        this.checkedSchemaId =
                restored != null && restored.checkedSchemaId() != null
                        ? restored.checkedSchemaId()
                        : planner.table().schema().id();
        this.foreignCommits = bounded || lakeOnly ? null : new ForeignCommits(planner);
        if (restored != null) {
            nextFollowedSnapshotId = restored.nextFollowedSnapshotId();
            planned.addAll(restored.planned());
            addPending(restored.unassigned());
            // the initial plan landed if it planned a partition-bucket or said where the read
            // follows the table from (set with it since state version 3): a plan that found no
            // partition (an empty partitioned table, a filter that matched none) must not be made
            // again at restore, from the snapshot latest then, which would skip every change
            // committed while the read was down
            initialPlanDone =
                    !restored.planned().isEmpty() || restored.nextFollowedSnapshotId() != null;
        }
    }

    /** The enumerator state's form, which a consumer's position is recorded in. */
    private static final LakeStreamEnumeratorStateSerializer STATE_SERIALIZER =
            new LakeStreamEnumeratorStateSerializer();

    private static LakeStreamEnumeratorState positionState(
            String table, ConsumerPositions consumer, ConsumerPositions.Recorded position) {
        try {
            return STATE_SERIALIZER.deserialize(position.stateVersion(), position.state());
        } catch (IOException e) {
            throw new FlinkRuntimeException(
                    String.format(
                            "Cannot read the lake-stream position of consumer %s of table %s "
                                    + "(enumerator state version %d)",
                            consumer.consumerId(), table, position.stateVersion()),
                    e);
        }
    }

    /** Creates the enumerator of a source's read; see {@code LakeStreamSource}. */
    public static LakeStreamSplitEnumerator create(
            SplitEnumeratorContext<LakeStreamSplit> context,
            LakeStreamReadContext read,
            @Nullable LakeStreamEnumeratorState restored) {
        return create(context, read, read.storeFactory(), restored);
    }

    /** Creates the enumerator of {@code read}, opening the store with {@code storeFactory}. */
    @VisibleForTesting
    static LakeStreamSplitEnumerator create(
            SplitEnumeratorContext<LakeStreamSplit> context,
            LakeStreamReadContext read,
            Supplier<StreamStore> storeFactory,
            @Nullable LakeStreamEnumeratorState restored) {
        org.apache.paimon.table.FileStoreTable table = read.table();
        boolean bounded = read.bounded();
        ConsumerPositions consumer =
                read.consumerId() == null ? null : new ConsumerPositions(table, read.consumerId());
        Long consumerNextSnapshot = null;
        if (restored == null && consumer != null && !read.consumerIgnoreProgress()) {
            // a job started without state: the consumer's position, as a restore would find it
            Optional<Long> next = consumer.nextSnapshot();
            Optional<ConsumerPositions.Recorded> position = next.flatMap(consumer::positionAt);
            if (position.isPresent()) {
                LOG.info(
                        "Consumer {} of {} resumes where checkpoint {} left it (next snapshot {}).",
                        read.consumerId(),
                        table.fullName(),
                        position.get().checkpointId(),
                        position.get().nextSnapshot());
                restored = positionState(table.fullName(), consumer, position.get());
            } else {
                consumerNextSnapshot = next.orElse(null);
                if (consumerNextSnapshot != null) {
                    LOG.info(
                            "Consumer {} of {} has no lake-stream position of its next snapshot "
                                    + "{}: reading the changes of that snapshot and later, as "
                                    + "Paimon does.",
                            read.consumerId(),
                            table.fullName(),
                            consumerNextSnapshot);
                }
            }
        }
        boolean lakeOnly = read.lakeOnly();
        boolean readCommitted = read.readCommitted();
        // partition and key conjuncts only: they plan the same splits whatever the merge
        UnionReadPlanner planner =
                new UnionReadPlanner(
                        table, read.streamTable(), read.readFilter().beforeMerge(), bounded);
        // a bounded read at a snapshot picked by time travel returns exactly its state, as Paimon
        // does: nothing of the store, which it then never opens
        boolean travelsInTime = bounded && ReadStart.travelsInTime(table.options());
        LogStop logStop = null;
        if (bounded) {
            logStop =
                    lakeOnly || readCommitted || travelsInTime
                            ? LogStop.snapshotOffsets()
                            : null; // the store's ends, set once the store is open
        }
        return new LakeStreamSplitEnumerator(
                context,
                planner,
                storeFactory,
                logStop,
                bounded,
                lakeOnly || travelsInTime,
                read.partitionDiscoveryInterval().toMillis(),
                read.writerLeaseTimeout(),
                !bounded && !lakeOnly && readCommitted ? table : null,
                bounded ? read.limit() : Long.MAX_VALUE,
                restored,
                consumer,
                consumerNextSnapshot);
    }

    @Override
    public void start() {
        if (!lakeOnly) {
            store = storeSupplier.get();
        }
        if (!initialPlanDone) {
            context.callAsync(this::planInitial, this::onInitialPlan);
        } else if (foreignCommits != null && nextFollowedSnapshotId == null) {
            // state of a version that did not follow other writers: from the restore on
            Long latest = planner.table().snapshotManager().latestSnapshotId();
            nextFollowedSnapshotId = latest == null ? 1 : latest + 1;
        }
        if (!bounded && !lakeOnly) {
            context.callAsync(
                    this::discover,
                    this::onDiscovered,
                    discoveryIntervalMillis,
                    discoveryIntervalMillis);
            context.callAsync(
                    this::followForeignCommits,
                    this::onFollowed,
                    discoveryIntervalMillis,
                    discoveryIntervalMillis);
        }
        if (committedOffsetsOf != null) {
            context.callAsync(
                    () -> SnapshotOffsets.ofLatestSnapshot(committedOffsetsOf),
                    this::onCommitted,
                    0,
                    COMMITTED_OFFSETS_INTERVAL_MILLIS);
        }
    }

    private void onCommitted(Optional<StreamOffsets> offsets, Throwable error) {
        if (error != null) {
            throw new FlinkRuntimeException(
                    "Cannot read the committed offsets of " + committedOffsetsOf.fullName(), error);
        }
        if (offsets.isPresent() && !offsets.get().equals(lastCommitted)) {
            lastCommitted = offsets.get();
            LOG.debug(
                    "Committed offsets of {} advanced; telling {} readers.",
                    committedOffsetsOf.fullName(),
                    context.registeredReaders().size());
            for (int reader : context.registeredReaders().keySet()) {
                context.sendEventToSourceReader(reader, new CommittedOffsetsEvent(lastCommitted));
            }
        }
    }

    private void onInitialPlan(UnionReadPlanner.Plan plan, Throwable error) {
        if (error == null && nextFollowedSnapshotId == null) {
            nextFollowedSnapshotId = plan.changesAfter() + 1;
        }
        onPlanned(error == null ? splitsOf(plan) : null, error);
    }

    /**
     * A split per partition-bucket of {@code plan}; with a limit, of those that hold the rows it
     * asks for when the table's rows are counted from its files ({@link LimitedRead}).
     */
    private List<LakeStreamSplit> splitsOf(UnionReadPlanner.Plan plan) {
        List<BucketRead> reads =
                limit == Long.MAX_VALUE
                        ? plan.buckets()
                        : LimitedRead.enoughFor(planner.table(), plan.buckets(), limit);
        List<LakeStreamSplit> splits = new ArrayList<>(reads.size());
        for (BucketRead read : reads) {
            splits.add(LakeStreamSplit.of(read));
        }
        return splits;
    }

    /** Looks for commits of other writers from the next snapshot on; null before the start. */
    @Nullable
    private ForeignCommits.Followed followForeignCommits() {
        Long next = nextFollowedSnapshotId;
        return next == null ? null : foreignCommits.follow(next);
    }

    private void onFollowed(@Nullable ForeignCommits.Followed followed, Throwable error) {
        Optional<ForeignCommits.NotFollowedException> notFollowed =
                error == null
                        ? Optional.empty()
                        : ExceptionUtils.findThrowable(
                                error, ForeignCommits.NotFollowedException.class);
        if (notFollowed.isPresent()) {
            LOG.error(notFollowed.get().getMessage());
            // a restored read would meet the same snapshot again
            throw new SuppressRestartsException(notFollowed.get());
        }
        if (error != null) {
            throw new FlinkRuntimeException(
                    "Cannot follow the commits of other writers to " + planner.table().fullName(),
                    error);
        }
        // a look that started before the last one's result landed saw the same snapshots
        if (followed == null
                || nextFollowedSnapshotId == null
                || followed.fromSnapshotId() != nextFollowedSnapshotId) {
            return;
        }
        nextFollowedSnapshotId = followed.nextSnapshotId();
        List<LakeStreamSplit> splits = new ArrayList<>();
        for (ForeignCommits.Change change : followed.changes()) {
            splits.add(
                    LakeStreamSplit.followed(
                            change.partitionBucket(), change.splits(), change.snapshotId()));
        }
        addPending(splits);
        assignPending();
    }

    private UnionReadPlanner.Plan planInitial() {
        LogStop stop = logStop;
        if (bounded && stop == null) {
            stop = LogStop.storeEnds(store, planner.streamTable(), writerLeaseTimeout);
        }
        if (consumerNextSnapshot != null) {
            return planner.plan(
                    store, stop, ReadStart.consumerResume(planner.table(), consumerNextSnapshot));
        }
        return planner.plan(lakeOnly ? null : store, stop);
    }

    /** What a periodic look found. */
    private static final class Discovery {
        /** The splits of partition-buckets that appeared in the store since the last look. */
        final List<LakeStreamSplit> splits;

        /** The last schema id checked. */
        final long checkedSchemaId;

        /** The first schema after the last check that turns lake-stream mode off, if any. */
        @Nullable final TableSchema disabling;

        Discovery(
                List<LakeStreamSplit> splits,
                long checkedSchemaId,
                @Nullable TableSchema disabling) {
            this.splits = splits;
            this.checkedSchemaId = checkedSchemaId;
            this.disabling = disabling;
        }
    }

    /**
     * Checks the schemas committed since the last check, then, while the mode stayed on, looks for
     * partition-buckets that appeared in the store.
     */
    private Discovery discover() {
        long checked = checkedSchemaId;
        SchemaManager schemas = planner.table().schemaManager();
        // a directory listing; only the schemas after the last check are read
        List<Long> ids = new ArrayList<>(schemas.listAllIds());
        Collections.sort(ids);
        for (long id : ids) {
            if (id > checked) {
                TableSchema schema = schemas.schema(id);
                if (!LakeStreamEnablement.isEnabled(schema.options())) {
                    return new Discovery(Collections.emptyList(), checked, schema);
                }
                checked = id;
            }
        }
        if (!initialPlanDone) {
            return new Discovery(Collections.emptyList(), checked, null);
        }
        List<BinaryRow> partitions = store.listPartitions(planner.streamTable());
        List<LakeStreamSplit> splits = new ArrayList<>();
        for (PartitionBucket pb : planner.partitionBuckets(partitions)) {
            if (!planned.contains(pb)) {
                splits.add(
                        LakeStreamSplit.of(
                                pb, Collections.emptyList(), 0, StreamReader.NO_STOP_OFFSET));
            }
        }
        return new Discovery(splits, checked, null);
    }

    private void onDiscovered(Discovery discovery, Throwable error) {
        if (error != null) {
            onPlanned(null, error);
            return;
        }
        if (discovery.disabling != null) {
            TableSchema schema = discovery.disabling;
            String key = LakeStreamOptions.ENABLED.key();
            String value = schema.options().get(key);
            String message =
                    String.format(
                            "Lake-stream mode of table %s was turned off while this unbounded "
                                    + "read ran: Paimon schema %d %s. Rows that Paimon alone "
                                    + "commits while the mode is off are not in the stream store, "
                                    + "so this read cannot return them; it stops rather than miss "
                                    + "them. Restart the query: a new read of the disabled table "
                                    + "reads Paimon alone; once lake-stream mode is enabled again, "
                                    + "a new read starts from the latest snapshot.",
                            planner.table().fullName(),
                            schema.id(),
                            value == null
                                    ? String.format("has no '%s' (off)", key)
                                    : String.format("sets '%s' = '%s'", key, value));
            LOG.error(message);
            // no restart: a restored read plans nothing again and would follow the store on
            throw new SuppressRestartsException(new IllegalStateException(message));
        }
        checkedSchemaId = Math.max(checkedSchemaId, discovery.checkedSchemaId);
        // before the initial plan has landed a look finds nothing, and must not stand for it
        if (initialPlanDone) {
            onPlanned(discovery.splits, null);
        }
    }

    private void onPlanned(List<LakeStreamSplit> splits, Throwable error) {
        if (error != null) {
            throw new FlinkRuntimeException(
                    "Cannot plan the splits of lake-stream table " + planner.streamTable().spec(),
                    error);
        }
        List<LakeStreamSplit> fresh = new ArrayList<>();
        for (LakeStreamSplit split : splits) {
            if (planned.add(split.partitionBucket())) {
                fresh.add(split);
            }
        }
        if (!initialPlanDone) {
            initialPlanDone = true;
        } else if (!fresh.isEmpty()) {
            LOG.info(
                    "Discovered {} new partition-buckets of {} in the stream store.",
                    fresh.size(),
                    planner.streamTable().spec());
        }
        addPending(fresh);
        assignPending();
    }

    private void addPending(List<LakeStreamSplit> splits) {
        int readers = context.currentParallelism();
        for (LakeStreamSplit split : splits) {
            int owner = Math.floorMod(split.partitionBucket().hashCode(), readers);
            pending.computeIfAbsent(owner, k -> new ArrayList<>()).add(split);
        }
    }

    private void assignPending() {
        for (int reader : context.registeredReaders().keySet()) {
            List<LakeStreamSplit> splits = pending.remove(reader);
            if (splits != null && !splits.isEmpty()) {
                for (LakeStreamSplit split : splits) {
                    context.assignSplit(split, reader);
                }
            }
            if (bounded && initialPlanDone) {
                context.signalNoMoreSplits(reader);
            }
        }
    }

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        // splits are pushed to their owners
    }

    @Override
    public void addSplitsBack(List<LakeStreamSplit> splits, int subtaskId) {
        pending.computeIfAbsent(subtaskId, k -> new ArrayList<>()).addAll(splits);
    }

    @Override
    public void addReader(int subtaskId) {
        assignPending();
        if (lastCommitted != null) {
            context.sendEventToSourceReader(subtaskId, new CommittedOffsetsEvent(lastCommitted));
        }
    }

    @Override
    public LakeStreamEnumeratorState snapshotState(long checkpointId) {
        List<LakeStreamSplit> unassigned = new ArrayList<>();
        pending.values().forEach(unassigned::addAll);
        LakeStreamEnumeratorState state =
                new LakeStreamEnumeratorState(
                        planned, unassigned, checkedSchemaId, nextFollowedSnapshotId);
        if (consumer != null) {
            consumerProgress.enumeratorSnapshot(checkpointId, state);
        }
        return state;
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (event instanceof ReaderPositionEvent && consumer != null) {
            consumerProgress.readerSnapshot(subtaskId, (ReaderPositionEvent) event);
            recordConsumer();
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        if (consumer != null) {
            consumerProgress.checkpointComplete(checkpointId);
            recordConsumer();
        }
    }

    /**
     * Records the consumer's newest complete position in the table, as Paimon's source records its
     * consumer when a checkpoint completes: a failure fails the job, as it does in Paimon.
     */
    private void recordConsumer() {
        Optional<ConsumerProgress.Position> position =
                consumerProgress.poll(context.currentParallelism());
        if (!position.isPresent()) {
            return;
        }
        ConsumerProgress.Position p = position.get();
        try {
            consumer.write(
                    p.nextSnapshot,
                    p.checkpointId,
                    STATE_SERIALIZER.getVersion(),
                    STATE_SERIALIZER.serialize(p.state));
        } catch (IOException e) {
            throw new FlinkRuntimeException(
                    String.format(
                            "Cannot record the position of checkpoint %d in the consumer files of "
                                    + "table %s",
                            p.checkpointId, planner.table().fullName()),
                    e);
        }
        LOG.debug(
                "Recorded the consumer position of checkpoint {} of {}: next snapshot {}.",
                p.checkpointId,
                planner.table().fullName(),
                p.nextSnapshot);
    }

    @Override
    public void close() {
        if (store != null) {
            store.close();
        }
    }
}
