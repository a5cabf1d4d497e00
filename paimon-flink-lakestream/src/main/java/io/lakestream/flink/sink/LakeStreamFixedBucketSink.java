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
import org.apache.paimon.flink.sink.StoreCommitter;
import org.apache.paimon.flink.sink.StoreSinkWrite;
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

/**
 * Paimon's fixed-bucket sink topology (writers shuffled by bucket, one global committer) with the
 * lake-stream write operator and committer in place of Paimon's.
 */
@Internal
public class LakeStreamFixedBucketSink extends FlinkWriteSink<InternalRow> {

    private static final long serialVersionUID = 1L;

    private final StreamTable streamTable;
    private final Map<String, String> storeOptions;

    public LakeStreamFixedBucketSink(
            FileStoreTable table, StreamTable streamTable, Map<String, String> storeOptions) {
        super(table, null);
        this.streamTable = streamTable;
        this.storeOptions = storeOptions;
    }

    @Override
    protected OneInputStreamOperatorFactory<InternalRow, Committable> createWriteOperatorFactory(
            StoreSinkWrite.Provider writeProvider, String commitUser) {
        return new LakeStreamWriteOperator.Factory(
                table, writeProvider, commitUser, streamTable, storeOptions);
    }

    @Override
    public DataStream<Committable> doWrite(
            DataStream<InternalRow> input, String commitUser, @Nullable Integer parallelism) {
        DataStream<Committable> written = super.doWrite(input, commitUser, parallelism);
        // Paimon types the writers' output with its own serializer, which knows only Paimon's
        // committables; sealed segments need the lake-stream serializer on the way to the committer
        ((SingleOutputStreamOperator<Committable>) written)
                .returns(new LakeStreamCommittableTypeInfo());
        return written;
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
