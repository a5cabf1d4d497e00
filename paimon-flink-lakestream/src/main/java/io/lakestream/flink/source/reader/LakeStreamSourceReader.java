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

import io.lakestream.flink.source.LakeStreamReadContext;
import io.lakestream.flink.source.split.CommittedOffsetsEvent;
import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.flink.source.split.LakeStreamSplitState;
import io.lakestream.flink.source.split.ReaderPositionEvent;
import io.lakestream.read.plan.ReadFilter;
import io.lakestream.store.StreamTable;

import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

import java.util.List;
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

    /** The ends of lake parts, applied to the split states rather than emitted as records. */
    private final LakePartEnds lakePartEnds;

    /** Whether the read has a {@code consumer-id}, whose position the enumerator records. */
    private final boolean reportsPositions;

    /** The reader of {@code read}; a bounded read never holds records back to their commit. */
    public LakeStreamSourceReader(SourceReaderContext context, LakeStreamReadContext read) {
        this(
                context,
                read.table(),
                read.streamTable(),
                read.storeOptions(),
                read.readFilter(),
                rowFilter(read.table(), read.readFilter(), read.bounded()),
                read.projection(),
                !read.bounded() && read.readCommitted() ? new CommittedOffsets() : null,
                new LakePartEnds(),
                read.limit(),
                read.consumerId() != null);
    }

    private LakeStreamSourceReader(
            SourceReaderContext context,
            FileStoreTable table,
            StreamTable streamTable,
            Map<String, String> storeOptions,
            ReadFilter filter,
            @Nullable Predicate rowFilter,
            @Nullable int[] projection,
            @Nullable CommittedOffsets committed,
            LakePartEnds lakePartEnds,
            long limit,
            boolean reportsPositions) {
        super(
                () ->
                        lakePartEnds.applyingTo(
                                new LakeStreamSplitReader(
                                        table,
                                        streamTable,
                                        storeOptions,
                                        filter.beforeMerge(),
                                        pushProjection(table, filter, projection)
                                                ? projection
                                                : null,
                                        committed,
                                        context.metricGroup(),
                                        limit)),
                new LakeStreamRecordEmitter(
                        projection,
                        pushProjection(table, filter, projection),
                        // Paimon's read filters an append table's lake rows exactly
                        table.primaryKeys().isEmpty() ? null : rowFilter,
                        rowFilter),
                new Configuration(),
                context);
        this.committed = committed;
        this.lakePartEnds = lakePartEnds;
        this.reportsPositions = reportsPositions;
    }

    @Override
    public List<LakeStreamSplit> snapshotState(long checkpointId) {
        List<LakeStreamSplit> splits = super.snapshotState(checkpointId);
        if (reportsPositions) {
            // the enumerator records the whole read's position once the checkpoint completes
            context.sendSourceEventToCoordinator(ReaderPositionEvent.of(checkpointId, splits));
        }
        return splits;
    }

    /**
     * Whether Paimon's read projects the lake rows: only for append tables (a merge needs whole
     * rows), and only when the filter reads no column that the projection leaves out (Paimon's read
     * would not test conjuncts on columns it does not read).
     */
    private static boolean pushProjection(
            FileStoreTable table, ReadFilter filter, @Nullable int[] projection) {
        return table.primaryKeys().isEmpty() && projection != null && filter.readsOnly(projection);
    }

    /**
     * The filter every emitted row is tested against: for an append table and a bounded read of a
     * primary-key table (whose rows are merged) the whole filter; for an unbounded read of a
     * primary-key table, whose rows are committed rows and changes not merged yet, only what holds
     * alike for every record of a key ({@link io.lakestream.flink.source.LakeStreamChangelog} tests
     * the rest after its merge).
     */
    @Nullable
    private static Predicate rowFilter(FileStoreTable table, ReadFilter filter, boolean bounded) {
        return table.primaryKeys().isEmpty() || bounded ? filter.all() : filter.beforeMerge();
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
        lakePartEnds.forget(finishedSplitIds.keySet());
    }

    @Override
    protected LakeStreamSplitState initializedState(LakeStreamSplit split) {
        LakeStreamSplitState state = new LakeStreamSplitState(split);
        lakePartEnds.register(split.splitId(), state);
        return state;
    }

    @Override
    protected LakeStreamSplit toSplitType(String splitId, LakeStreamSplitState state) {
        return state.toSplit();
    }
}
