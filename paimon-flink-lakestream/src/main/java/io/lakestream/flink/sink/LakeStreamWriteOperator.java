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

import io.lakestream.protocol.SealedSegment;
import io.lakestream.protocol.StreamSegmentWriter;
import io.lakestream.store.AheadCall;
import io.lakestream.store.StreamTable;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.flink.sink.RowDataStoreWriteOperator;
import org.apache.paimon.flink.sink.StoreSinkWrite;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowKindGenerator;
import org.apache.paimon.table.sink.SinkRecord;
import org.apache.paimon.types.RowKind;

import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.concurrent.ExecutorThreadFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Paimon's write operator for a fixed-bucket table that also writes every record to the stream
 * store, where it is readable at once, and seals the store's segment at each checkpoint barrier
 * ({@link StoreWriterHalf} does the store's half: lease, fencing on start, seal, offsets state).
 *
 * <ul>
 *   <li>{@link #processElement}: Paimon's writer assigns the row its partition-bucket; the row
 *       Paimon wrote, with the row kind Paimon wrote it with (which {@code 'rowkind.field'} takes
 *       from a column), goes to the store's writer for that partition-bucket; a row that Paimon's
 *       writer drops ({@code 'ignore-delete'}, {@code 'ignore-update-before'}) goes nowhere.
 *   <li>{@link #prepareCommit} (from {@code prepareSnapshotPreBarrier}): Paimon's commit messages,
 *       and beside them a flush of the store and the end offsets of every partition-bucket written
 *       since the previous barrier as a {@link SealedSegment} of the same checkpoint.
 * </ul>
 *
 * <p>With {@code 'lake-stream.sink.store-writer-chaining' = 'false'} a streaming sink runs the
 * store's half in a {@link StoreWriteOperator} of its own instead, and Paimon's writer is Paimon's.
 */
@Internal
public class LakeStreamWriteOperator extends RowDataStoreWriteOperator {

    private static final long serialVersionUID = 1L;

    private final StreamTable streamTable;
    private final Map<String, String> storeOptions;

    private transient StoreWriterHalf storeHalf;

    /** The thread that seals the store's segment at each barrier, beside Paimon's prepare. */
    private transient ExecutorService sealer;

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
        storeHalf = new StoreWriterHalf(table, streamTable, storeOptions);
        storeHalf.initializeState(context);
    }

    @Override
    public void open() throws Exception {
        super.open();
        storeHalf.open(getRuntimeContext(), getMetricGroup(), commitUser);
        sealer =
                Executors.newSingleThreadExecutor(
                        new ExecutorThreadFactory(
                                "lake-stream-seal-"
                                        + streamTable.spec().identifier()
                                        + "-"
                                        + getRuntimeContext()
                                                .getTaskInfo()
                                                .getIndexOfThisSubtask()));
        rowKindGenerator = RowKindGenerator.create(table.schema(), table.coreOptions());
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
        storeHalf.write(record.partition(), record.bucket(), kind, record.row());
    }

    @Override
    protected List<Committable> prepareCommit(boolean waitCompaction, long checkpointId)
            throws IOException {
        // the store's seal (its flush, the end offsets' listing, the lease check: round trips)
        // runs while Paimon prepares its commit on this thread (file closes: disk and CPU), so
        // that the records queued behind the barrier wait for the longer of the two, not both.
        // No record is written meanwhile: this thread is the one that writes.
        AheadCall<StreamSegmentWriter.Sealed> sealing = AheadCall.start(sealer, storeHalf::seal);
        List<Committable> committables;
        try {
            committables = new ArrayList<>(super.prepareCommit(waitCompaction, checkpointId));
        } finally {
            // the seal ends either way before this thread writes again
            sealing.await();
        }
        Committable sealed = storeHalf.committable(checkpointId, sealing.join());
        if (sealed != null) {
            committables.add(sealed);
        }
        return committables;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        storeHalf.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        storeHalf.snapshotState();
    }

    @Override
    public void close() throws Exception {
        try (AutoCloseable closeStore = storeHalf) {
            super.close();
        } finally {
            if (sealer != null) {
                // no seal is under way: prepareCommit waits for each before it returns
                sealer.shutdownNow();
            }
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
