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

package io.lakestream.flink.source.reader;

import io.lakestream.flink.source.split.CommittedOffsetsEvent;
import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.flink.source.split.LakeStreamSplitState;
import io.lakestream.flink.store.StreamTable;

import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

import java.util.Map;

/**
 * The reader of a lake-stream source: one fetcher thread runs a {@link LakeStreamSplitReader} over
 * every split assigned to this subtask.
 */
@Internal
public final class LakeStreamSourceReader
        extends SingleThreadMultiplexSourceReaderBase<
                LakeStreamRecord, RowData, LakeStreamSplit, LakeStreamSplitState> {

    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(LakeStreamSourceReader.class);

    @Nullable private final CommittedOffsets committed;

    public LakeStreamSourceReader(
            SourceReaderContext context,
            FileStoreTable table,
            StreamTable streamTable,
            Map<String, String> storeOptions,
            @Nullable Predicate filter,
            @Nullable int[] projection,
            boolean readCommitted) {
        this(
                context,
                table,
                streamTable,
                storeOptions,
                filter,
                projection,
                readCommitted ? new CommittedOffsets() : null);
    }

    private LakeStreamSourceReader(
            SourceReaderContext context,
            FileStoreTable table,
            StreamTable streamTable,
            Map<String, String> storeOptions,
            @Nullable Predicate filter,
            @Nullable int[] projection,
            @Nullable CommittedOffsets committed) {
        super(
                () -> {
                    boolean pushProjection = table.primaryKeys().isEmpty() && projection != null;
                    return new LakeStreamSplitReader(
                            table,
                            streamTable,
                            storeOptions,
                            filter,
                            pushProjection ? projection : null,
                            committed,
                            context.metricGroup());
                },
                new LakeStreamRecordEmitter(
                        projection,
                        table.primaryKeys().isEmpty() && projection != null,
                        table.primaryKeys().isEmpty() ? filter : null),
                new Configuration(),
                context);
        this.committed = committed;
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof CommittedOffsetsEvent && committed != null) {
            committed.advance(((CommittedOffsetsEvent) event).offsets());
            LOG.debug("Committed offsets advanced: {}", ((CommittedOffsetsEvent) event).offsets());
        } else {
            super.handleSourceEvents(event);
        }
    }

    @Override
    public void start() {
        // splits are pushed by the enumerator; nothing to ask for
    }

    @Override
    protected void onSplitFinished(Map<String, LakeStreamSplitState> finishedSplitIds) {
        // a finished split has nothing left to remember
    }

    @Override
    protected LakeStreamSplitState initializedState(LakeStreamSplit split) {
        return new LakeStreamSplitState(split);
    }

    @Override
    protected LakeStreamSplit toSplitType(String splitId, LakeStreamSplitState state) {
        return state.toSplit();
    }
}
