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
import io.lakestream.store.AheadCall;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.flink.sink.RowDataStoreWriteOperator;
import org.apache.paimon.flink.sink.StoreSinkWrite;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.ChannelComputer;
import org.apache.paimon.table.sink.RowKindGenerator;
import org.apache.paimon.table.sink.SinkRecord;
import org.apache.paimon.types.RowKind;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Paimon's write operator for a fixed-bucket table that also writes every record to the stream
 * store, where it is readable at once, and seals the store's segment at each checkpoint barrier.
 *
 * <ul>
 *   <li>{@link #processElement}: Paimon's writer assigns the row its partition-bucket; the row
 *       Paimon wrote, with the row kind Paimon wrote it with (which {@code 'rowkind.field'} takes
 *       from a column), goes to the store's writer for that partition-bucket; a row that Paimon's
 *       writer drops ({@code 'ignore-delete'}, {@code 'ignore-update-before'}) goes nowhere.
 *   <li>{@link #prepareCommit} (from {@code prepareSnapshotPreBarrier}): Paimon's commit messages,
 *       then a flush of the store and the end offsets of every partition-bucket written since the
 *       previous barrier as a {@link SealedSegment} of the same checkpoint.
 *   <li>On start, before anything is written: every partition-bucket this subtask owns whose store
 *       end is past the offset it was restored to (or, on a fresh start, past the table's tiered
 *       offset) is fenced, because those records come from an attempt whose checkpoint never
 *       completed; the restored attempt writes them again. Never below the tiered offset of the
 *       table's latest snapshot, though: a job restored from an older checkpoint or savepoint finds
 *       records that later snapshots committed above its restored offsets. Before that, the subtask
 *       takes its job's {@link WriterLease} on the table, so that a second job is refused before it
 *       fences or writes anything.
 * </ul>
 *
 * <p>The end offsets of every owned partition-bucket are kept in union list state, so that after a
 * rescale each subtask finds the offsets of the partition-buckets it now owns.
 */
@Internal
public class LakeStreamWriteOperator extends RowDataStoreWriteOperator {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(LakeStreamWriteOperator.class);

    private final StreamTable streamTable;
    private final Map<String, String> storeOptions;

    private transient ListState<byte[]> endOffsetsState;
    private transient Map<PartitionBucket, Long> restoredEndOffsets;
    private transient StreamStore store;
    private transient StreamSegmentWriter segments;
    private transient Counter numRecordsSend;
    private transient CommitLagTracker commitLag;
    private transient java.util.Set<PartitionBucket> endOffsetGauges;
    private transient WriterLease lease;

    /** Paimon's row kind generator of a table with {@code 'rowkind.field'}, otherwise null. */
    @Nullable private transient RowKindGenerator rowKindGenerator;

    protected LakeStreamWriteOperator(
            StreamOperatorParameters<Committable> parameters,
            FileStoreTable table,
            StoreSinkWrite.Provider storeSinkWriteProvider,
            String initialCommitUser,
            StreamTable streamTable,
            Map<String, String> storeOptions) {
        super(parameters, table, null, storeSinkWriteProvider, initialCommitUser);
        this.streamTable = streamTable;
        this.storeOptions = storeOptions;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        endOffsetsState =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "lake-stream-end-offsets",
                                        BytePrimitiveArraySerializer.INSTANCE));
        restoredEndOffsets = new HashMap<>();
        if (context.isRestored()) {
            for (byte[] bytes : endOffsetsState.get()) {
                restoredEndOffsets.putAll(StreamOffsetsSerializer.deserialize(bytes).asMap());
            }
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        store = StreamStoreLoader.create(storeOptions, getClass().getClassLoader());
        acquireLease();
        numRecordsSend = getMetricGroup().counter("numRecordsSend");
        rowKindGenerator = RowKindGenerator.create(table.schema(), table.coreOptions());
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        int parallelism = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        segments =
                StreamSegmentWriter.start(
                        store,
                        streamTable,
                        table,
                        restoredEndOffsets,
                        pb ->
                                ChannelComputer.select(pb.partition(), pb.bucket(), parallelism)
                                        == subtask);
        getMetricGroup()
                .gauge("lakeStreamOwnedPartitionBuckets", () -> segments.ownedPartitionBuckets());
        commitLag = new CommitLagTracker();
        endOffsetGauges = new java.util.HashSet<>();
        getMetricGroup().gauge("lakeStreamUncommittedRecords", commitLag::uncommittedRecords);
        getMetricGroup().gauge("lakeStreamSealedToCommittedMillis", commitLag::lastLagMillis);
    }

    /**
     * Takes the job's writer lease on the table before anything is fenced or written, so that a
     * second job cannot fence the first one's records. A refusal suppresses restarts: the other job
     * keeps renewing its lease, so a restart would only be refused again.
     */
    private void acquireLease() throws InterruptedException {
        TaskInfo task = getRuntimeContext().getTaskInfo();
        String description =
                String.format(
                        "Flink job %s '%s', subtask %d of %d, attempt %d",
                        getRuntimeContext().getJobInfo().getJobId(),
                        getRuntimeContext().getJobInfo().getJobName(),
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

    @Override
    public void processElement(StreamRecord<InternalRow> element) throws Exception {
        SinkRecord record;
        try {
            record = write.write(element.getValue());
        } catch (Exception e) {
            throw new IOException(e);
        }
        if (record == null) {
            // Paimon's writer dropped it ('ignore-delete', 'ignore-update-before'): so does the
            // store, which must hold exactly what Paimon writes
            return;
        }
        // The row Paimon wrote is record.row(): the input with the table's default values filled
        // in. Its kind is not necessarily the row's own: with 'rowkind.field' Paimon takes it from
        // that column and leaves the row's kind as it came. Paimon does not hand the kind out, so
        // it is taken again, the way Paimon's writer takes it (a field read only for such tables).
        RowKind kind = RowKindGenerator.getRowKind(rowKindGenerator, record.row());
        segments.write(record.partition(), record.bucket(), kind, record.row());
        numRecordsSend.inc();
    }

    @Override
    protected List<Committable> prepareCommit(boolean waitCompaction, long checkpointId)
            throws IOException {
        // the store's seal (its flush, the end offsets' listing, the lease check: round trips)
        // runs while Paimon prepares its commit on this thread (file closes: disk and CPU), so
        // that the records queued behind the barrier wait for the longer of the two, not both.
        // No record is written meanwhile: this thread is the one that writes.
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        // offsets reach the committer only while this job holds the table
        AheadCall<StreamSegmentWriter.Sealed> sealing =
                AheadCall.start(
                        "lake-stream-seal-" + streamTable.spec().identifier() + "-" + subtask,
                        () -> segments.seal(subtask, lease::checkHeld));
        List<Committable> committables;
        try {
            committables = new ArrayList<>(super.prepareCommit(waitCompaction, checkpointId));
        } finally {
            // the seal ends either way before this thread writes again
            sealing.await();
        }
        StreamSegmentWriter.Sealed sealed = sealing.join();
        for (PartitionBucket pb : sealed.segment().endOffsets().asMap().keySet()) {
            registerEndOffsetGauge(pb);
        }
        commitLag.sealed(checkpointId, sealed.records());
        // at the end of the input (Paimon prepares the last commit with the identifier of a batch
        // commit) a segment goes out even when empty: it makes sure the committer sees the final
        // commit, after which it releases the writer lease
        boolean endOfInput = checkpointId == BatchWriteBuilder.COMMIT_IDENTIFIER;
        if (!sealed.isEmpty() || endOfInput) {
            committables.add(
                    new Committable(checkpointId, Committable.Kind.FILE, sealed.segment()));
        }
        return committables;
    }

    /**
     * One gauge per partition-bucket this subtask wrote, in a group named after it, as Kafka's
     * reader does per partition: the store end offset sealed at the last barrier.
     */
    private void registerEndOffsetGauge(PartitionBucket pb) {
        if (endOffsetGauges.add(pb)) {
            getMetricGroup()
                    .addGroup("partitionBucket", pb.toString())
                    .gauge("lakeStreamEndOffset", () -> segments.endOffsets().get(pb));
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        commitLag.committed(checkpointId);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
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
            super.close();
        }
    }

    /** Creates {@link LakeStreamWriteOperator}s. */
    public static class Factory extends RowDataStoreWriteOperator.Factory {

        private static final long serialVersionUID = 1L;

        private final StreamTable streamTable;
        private final Map<String, String> storeOptions;

        public Factory(
                FileStoreTable table,
                StoreSinkWrite.Provider storeSinkWriteProvider,
                String initialCommitUser,
                StreamTable streamTable,
                Map<String, String> storeOptions) {
            super(table, null, storeSinkWriteProvider, initialCommitUser);
            this.streamTable = streamTable;
            this.storeOptions = storeOptions;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T extends StreamOperator<Committable>> T createStreamOperator(
                StreamOperatorParameters<Committable> parameters) {
            return (T)
                    new LakeStreamWriteOperator(
                            parameters,
                            table,
                            storeSinkWriteProvider,
                            initialCommitUser,
                            streamTable,
                            storeOptions);
        }

        @Override
        @SuppressWarnings("rawtypes")
        public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
            return LakeStreamWriteOperator.class;
        }
    }
}
