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

package io.lakestream.flink.sink;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.offsets.StreamOffsetsSerializer;
import io.lakestream.protocol.SealedSegment;
import io.lakestream.protocol.StreamSegmentWriter;
import io.lakestream.protocol.WriterConflictException;
import io.lakestream.protocol.WriterLease;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.ChannelComputer;
import org.apache.paimon.types.RowKind;

import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.StreamingRuntimeContext;

import javax.annotation.Nullable;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The stream store's half of one writer subtask of a lake-stream sink, whichever operator runs it
 * (Paimon's writer itself, or a store writer of its own ahead of Paimon's): the writer lease, the
 * fencing on start, the segment written since the last barrier and its seal, the end offsets in
 * union list state and the store's metrics.
 *
 * <ul>
 *   <li>On start, before anything is written: every partition-bucket this subtask owns whose store
 *       end is past the offset it was restored to (or, on a fresh start, past the table's tiered
 *       offset) is fenced, because those records come from an attempt whose checkpoint never
 *       completed; the restored attempt writes them again. Never below the tiered offset of the
 *       table's latest snapshot, though: a job restored from an older checkpoint or savepoint finds
 *       records that later snapshots committed above its restored offsets. Before that, the subtask
 *       takes its job's {@link WriterLease} on the table, so that a second job is refused before it
 *       fences or writes anything.
 *   <li>At each barrier: a flush of the store and the end offsets of every partition-bucket written
 *       since the previous barrier, as a {@link SealedSegment} of the same checkpoint, for the
 *       committer.
 * </ul>
 *
 * <p>The end offsets of every owned partition-bucket are kept in union list state, so that after a
 * rescale each subtask finds the offsets of the partition-buckets it now owns.
 */
final class StoreWriterHalf implements AutoCloseable {

    private final FileStoreTable table;
    private final StreamTable streamTable;
    private final Map<String, String> storeOptions;

    private ListState<byte[]> endOffsetsState;
    private final Map<PartitionBucket, Long> restoredEndOffsets = new HashMap<>();
    private StreamStore store;
    private StreamSegmentWriter segments;
    private WriterLease lease;
    private Counter numRecordsSend;
    private CommitLagTracker commitLag;
    private MetricGroup metrics;
    private final Set<PartitionBucket> endOffsetGauges = new HashSet<>();
    private int subtask;

    StoreWriterHalf(
            FileStoreTable table, StreamTable streamTable, Map<String, String> storeOptions) {
        this.table = table;
        this.streamTable = streamTable;
        this.storeOptions = storeOptions;
    }

    void initializeState(StateInitializationContext context) throws Exception {
        endOffsetsState =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "lake-stream-end-offsets",
                                        BytePrimitiveArraySerializer.INSTANCE));
        if (context.isRestored()) {
            for (byte[] bytes : endOffsetsState.get()) {
                restoredEndOffsets.putAll(StreamOffsetsSerializer.deserialize(bytes).asMap());
            }
        }
    }

    /**
     * Takes the lease, fences what earlier attempts left beyond the restored offsets and starts the
     * segment writer of the partition-buckets this subtask owns.
     */
    void open(StreamingRuntimeContext context, MetricGroup metricGroup, String commitUser)
            throws InterruptedException {
        this.metrics = metricGroup;
        store = StreamStoreLoader.create(storeOptions, getClass().getClassLoader());
        acquireLease(context, commitUser);
        numRecordsSend = metricGroup.counter("numRecordsSend");
        subtask = context.getTaskInfo().getIndexOfThisSubtask();
        int parallelism = context.getTaskInfo().getNumberOfParallelSubtasks();
        int owner = subtask;
        segments =
                StreamSegmentWriter.start(
                        store,
                        streamTable,
                        table,
                        restoredEndOffsets,
                        pb ->
                                ChannelComputer.select(pb.partition(), pb.bucket(), parallelism)
                                        == owner);
        metricGroup.gauge(
                "lakeStreamOwnedPartitionBuckets", () -> segments.ownedPartitionBuckets());
        commitLag = new CommitLagTracker();
        metricGroup.gauge("lakeStreamUncommittedRecords", commitLag::uncommittedRecords);
        metricGroup.gauge("lakeStreamSealedToCommittedMillis", commitLag::lastLagMillis);
    }

    /**
     * Takes the job's writer lease on the table before anything is fenced or written, so that a
     * second job cannot fence the first one's records. A refusal suppresses restarts: the other job
     * keeps renewing its lease, so a restart would only be refused again.
     */
    private void acquireLease(StreamingRuntimeContext context, String commitUser)
            throws InterruptedException {
        TaskInfo task = context.getTaskInfo();
        String description =
                String.format(
                        "Flink job %s '%s', subtask %d of %d, attempt %d",
                        context.getJobInfo().getJobId(),
                        context.getJobInfo().getJobName(),
                        task.getIndexOfThisSubtask(),
                        task.getNumberOfParallelSubtasks(),
                        task.getAttemptNumber());
        lease =
                new WriterLease(
                        store,
                        streamTable,
                        commitUser,
                        description,
                        Options.fromMap(storeOptions)
                                .get(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT));
        try {
            lease.acquire();
        } catch (WriterConflictException e) {
            throw new SuppressRestartsException(e);
        }
        if (task.getIndexOfThisSubtask() == 0) {
            lease.startRenewing();
        }
    }

    /**
     * Sends a row Paimon writes, with the kind Paimon writes it with, to the store's log of its
     * partition-bucket, where it is readable at once.
     */
    void write(BinaryRow partition, int bucket, RowKind kind, InternalRow row) {
        segments.write(partition, bucket, kind, row);
        numRecordsSend.inc();
    }

    /**
     * Flushes the store and seals the segment written since the previous barrier (round trips to
     * the store: may run on a thread other than the writer's, while nothing is written). The
     * offsets reach the committer only while this job holds the table.
     */
    StreamSegmentWriter.Sealed seal() {
        return segments.seal(subtask, lease::checkHeld);
    }

    /**
     * The committable of a sealed segment for the committer, or null when there is none to send. At
     * the end of the input (Paimon prepares the last commit with the identifier of a batch commit)
     * a segment goes out even when empty: it makes sure the committer sees the final commit, after
     * which it releases the writer lease.
     */
    @Nullable
    Committable committable(long checkpointId, StreamSegmentWriter.Sealed sealed) {
        for (PartitionBucket pb : sealed.segment().endOffsets().asMap().keySet()) {
            registerEndOffsetGauge(pb);
        }
        commitLag.sealed(checkpointId, sealed.records());
        boolean endOfInput = checkpointId == BatchWriteBuilder.COMMIT_IDENTIFIER;
        if (sealed.isEmpty() && !endOfInput) {
            return null;
        }
        return new Committable(checkpointId, Committable.Kind.FILE, sealed.segment());
    }

    /**
     * One gauge per partition-bucket this subtask wrote, in a group named after it, as Kafka's
     * reader does per partition: the store end offset sealed at the last barrier.
     */
    private void registerEndOffsetGauge(PartitionBucket pb) {
        if (endOffsetGauges.add(pb)) {
            metrics.addGroup("partitionBucket", pb.toString())
                    .gauge("lakeStreamEndOffset", () -> segments.endOffsets().get(pb));
        }
    }

    void notifyCheckpointComplete(long checkpointId) {
        commitLag.committed(checkpointId);
    }

    void snapshotState() throws Exception {
        endOffsetsState.update(
                Collections.singletonList(
                        StreamOffsetsSerializer.serialize(
                                StreamOffsets.of(segments.endOffsets()))));
    }

    @Override
    public void close() throws Exception {
        // each resource is closed even when closing an earlier one throws: a store left open
        // keeps its pooled connection to the store's cluster
        try (AutoCloseable closeStore = store;
                AutoCloseable closeWriter = segments;
                AutoCloseable closeLease = lease) {
            // closed in reverse order by try-with-resources
        }
    }
}
