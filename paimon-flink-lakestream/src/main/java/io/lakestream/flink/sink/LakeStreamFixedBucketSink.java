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
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.protocol.StreamPartitionDrops;
import io.lakestream.protocol.WriterLease;
import io.lakestream.store.FenceLog;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.flink.sink.Committer;
import org.apache.paimon.flink.sink.FlinkWriteSink;
import org.apache.paimon.flink.sink.RowDataStoreWriteOperator;
import org.apache.paimon.flink.sink.StoreCommitter;
import org.apache.paimon.flink.sink.StoreSinkWrite;
import org.apache.paimon.flink.utils.ParallelismUtils;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;

import javax.annotation.Nullable;

import java.util.Map;
import java.util.function.Consumer;

import static org.apache.paimon.flink.FlinkConnectorOptions.SINK_OPERATOR_UID_SUFFIX;
import static org.apache.paimon.flink.FlinkConnectorOptions.generateCustomUid;

/**
 * Paimon's fixed-bucket sink topology (writers shuffled by bucket, one global committer) with the
 * lake-stream write operator and committer in place of Paimon's.
 */
@Internal
public class LakeStreamFixedBucketSink extends FlinkWriteSink<InternalRow> {

    private static final long serialVersionUID = 1L;

    /** The name of the store's own writer, when it runs ahead of Paimon's. */
    public static final String STORE_WRITER_NAME = "Lake-stream store writer";

    private final StreamTable streamTable;
    private final Map<String, String> storeOptions;

    /** Whether the sink being built writes the store from a task ahead of Paimon's writer. */
    private transient boolean storeWriterAhead;

    public LakeStreamFixedBucketSink(
            FileStoreTable table, StreamTable streamTable, Map<String, String> storeOptions) {
        super(table, null);
        this.streamTable = streamTable;
        this.storeOptions = storeOptions;
    }

    @Override
    protected OneInputStreamOperatorFactory<InternalRow, Committable> createWriteOperatorFactory(
            StoreSinkWrite.Provider writeProvider, String commitUser) {
        if (storeWriterAhead) {
            // the store is written by the StoreWriteOperator ahead: this is Paimon's own writer
            return new RowDataStoreWriteOperator.Factory(table, null, writeProvider, commitUser);
        }
        return new LakeStreamWriteOperator.Factory(
                table, writeProvider, commitUser, streamTable, storeOptions);
    }

    @Override
    public DataStream<Committable> doWrite(
            DataStream<InternalRow> input, String commitUser, @Nullable Integer parallelism) {
        // a batch job's exchanges are blocking: Paimon's writer would start only once the store's
        // writer ended, so a batch job keeps the store's writes in Paimon's writer
        storeWriterAhead =
                !Options.fromMap(storeOptions).get(LakeStreamOptions.SINK_STORE_WRITER_CHAINING)
                        && isStreaming(input);
        if (!storeWriterAhead) {
            return typed(super.doWrite(input, commitUser, parallelism));
        }
        SingleOutputStreamOperator<InternalRow> stored =
                input.transform(
                        STORE_WRITER_NAME + " : " + table.name(),
                        input.getType(),
                        new StoreWriteOperator(table, streamTable, storeOptions, commitUser));
        if (parallelism == null) {
            ParallelismUtils.forwardParallelism(stored, input);
        } else {
            stored.setParallelism(parallelism);
        }
        String uidSuffix = Options.fromMap(table.options()).get(SINK_OPERATOR_UID_SUFFIX);
        if (uidSuffix != null) {
            stored.uid(generateCustomUid(STORE_WRITER_NAME, table.name(), uidSuffix));
        }
        SingleOutputStreamOperator<Committable> written =
                typed(super.doWrite(stored, commitUser, null));
        // not chained: the point is that the store's writer runs on while Paimon's prepares its
        // commit, which a chained operator's thread cannot
        written.startNewChain();
        return written.union(stored.getSideOutput(StoreWriteOperator.SEALED_SEGMENTS));
    }

    /**
     * Paimon types the writers' output with its own serializer, which knows only Paimon's
     * committables; sealed segments need the lake-stream serializer on the way to the committer.
     */
    private static SingleOutputStreamOperator<Committable> typed(DataStream<Committable> written) {
        return ((SingleOutputStreamOperator<Committable>) written)
                .returns(new LakeStreamCommittableTypeInfo());
    }

    @Override
    protected Committer.Factory<Committable, ManifestCommittable> createCommitterFactory() {
        Committer.Factory<Committable, ManifestCommittable> paimon = super.createCommitterFactory();
        StreamTable streamTable = this.streamTable;
        Map<String, String> storeOptions = this.storeOptions;
        return context ->
                new LakeStreamCommitter(
                        table,
                        (StoreCommitter) paimon.create(context),
                        context.commitUser(),
                        () -> {
                            try (StreamStore store =
                                    StreamStoreLoader.create(
                                            storeOptions,
                                            LakeStreamFixedBucketSink.class.getClassLoader())) {
                                WriterLease.release(
                                        store,
                                        streamTable,
                                        context.commitUser(),
                                        "committer, after the final commit");
                            }
                        },
                        gaps -> {
                            try (StreamStore store =
                                            StreamStoreLoader.create(
                                                    storeOptions,
                                                    LakeStreamFixedBucketSink.class
                                                            .getClassLoader());
                                    FenceLog fences = store.openFenceLog(streamTable)) {
                                fences.recordAll(gaps);
                            }
                        },
                        new StreamPartitionDrops(
                                table,
                                streamTable,
                                () ->
                                        StreamStoreLoader.create(
                                                storeOptions,
                                                LakeStreamFixedBucketSink.class.getClassLoader()),
                                Options.fromMap(storeOptions)
                                        .get(LakeStreamOptions.SINK_PARTITION_DROP_DELAY),
                                System::currentTimeMillis),
                        committedOffsetsListener(streamTable, storeOptions));
    }

    /**
     * What tells a process-local store (which frees the records Paimon holds) the offsets of each
     * new snapshot; null for a store that keeps records by its own retention.
     */
    @Nullable
    private static Consumer<StreamOffsets> committedOffsetsListener(
            StreamTable streamTable, Map<String, String> storeOptions) {
        try (StreamStore store =
                StreamStoreLoader.create(
                        storeOptions, LakeStreamFixedBucketSink.class.getClassLoader())) {
            if (!store.isProcessLocal()) {
                return null;
            }
        }
        return offsets -> {
            try (StreamStore store =
                    StreamStoreLoader.create(
                            storeOptions, LakeStreamFixedBucketSink.class.getClassLoader())) {
                store.advanceCommittedOffsets(streamTable, offsets.asMap());
            }
        };
    }
}
