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

import io.lakestream.store.StreamTable;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.flink.sink.StateUtils;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchWriteBuilder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

import java.util.Map;

/**
 * The stream store's writer of a lake-stream sink as a task of its own, ahead of Paimon's writer
 * ({@code 'lake-stream.sink.store-writer-chaining' = 'false'}): it sends each row, as Paimon's
 * writer will write it ({@link PaimonWriteRouting}), to the store and passes the row on unchanged
 * to Paimon's writer, subtask for subtask (forward, not chained). At each barrier it seals the
 * store's segment ({@link StoreWriterHalf}) and sends the sealed segment to the committer through
 * {@link #SEALED_SEGMENTS}, before the barrier; then it goes on writing the rows behind the barrier
 * while Paimon's writer, a task of its own, prepares its commit.
 *
 * <p>Both cover exactly the rows before the barrier: Paimon's writer receives the rows of this
 * subtask in its order, the barrier among them, so the committer's alignment joins the sealed
 * segment and Paimon's commit messages of one checkpoint, as in the chained writer.
 */
@Internal
public class StoreWriteOperator extends AbstractStreamOperator<InternalRow>
        implements OneInputStreamOperator<InternalRow, InternalRow>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    /** The side output that carries sealed segments to the committer. */
    public static final OutputTag<Committable> SEALED_SEGMENTS =
            new OutputTag<>("lake-stream-sealed-segments", new LakeStreamCommittableTypeInfo());

    private final FileStoreTable table;
    private final StreamTable streamTable;
    private final Map<String, String> storeOptions;
    private final String initialCommitUser;

    private transient StoreWriterHalf storeHalf;
    private transient PaimonWriteRouting routing;
    private transient String commitUser;
    private transient boolean endOfInput;

    public StoreWriteOperator(
            FileStoreTable table,
            StreamTable streamTable,
            Map<String, String> storeOptions,
            String initialCommitUser) {
        this.table = table;
        this.streamTable = streamTable;
        this.storeOptions = storeOptions;
        this.initialCommitUser = initialCommitUser;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        // the job's commit user, kept in state as Paimon's writer keeps it (the same name and the
        // same first value): the writer lease is taken in its name
        commitUser =
                StateUtils.getSingleValueFromState(
                        context, "commit_user_state", String.class, initialCommitUser);
        storeHalf = new StoreWriterHalf(table, streamTable, storeOptions);
        storeHalf.initializeState(context);
    }

    @Override
    public void open() throws Exception {
        super.open();
        routing = new PaimonWriteRouting(table);
        storeHalf.open(getRuntimeContext(), getMetricGroup(), commitUser);
    }

    @Override
    public void processElement(StreamRecord<InternalRow> element) {
        if (routing.route(element.getValue())) {
            storeHalf.write(routing.partition(), routing.bucket(), routing.kind(), routing.row());
        }
        // Paimon's writer routes the row again, the same way, and drops what was not stored
        output.collect(element);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        if (!endOfInput) {
            emitSealed(checkpointId);
        }
    }

    @Override
    public void endInput() {
        // as Paimon's writer: the last commit carries the identifier of a batch commit, and no
        // record follows it
        endOfInput = true;
        emitSealed(BatchWriteBuilder.COMMIT_IDENTIFIER);
    }

    private void emitSealed(long checkpointId) {
        Committable sealed = storeHalf.committable(checkpointId, storeHalf.seal());
        if (sealed != null) {
            output.collect(SEALED_SEGMENTS, new StreamRecord<>(sealed));
        }
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
        }
    }
}
