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

package io.lakestream.flink.source;

import io.lakestream.LakeStreamOptions;
import io.lakestream.StatementErrors;
import io.lakestream.flink.LakeStreamTableBuilder;
import io.lakestream.flink.source.enumerator.LakeStreamEnumeratorState;
import io.lakestream.flink.source.enumerator.LakeStreamEnumeratorStateSerializer;
import io.lakestream.flink.source.enumerator.LakeStreamSplitEnumerator;
import io.lakestream.flink.source.enumerator.PlannedRowCount;
import io.lakestream.flink.source.reader.LakeStreamSourceReader;
import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.flink.source.split.LakeStreamSplitSerializer;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.flink.LogicalTypeConversion;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowType;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The hybrid source of a Paimon table in lake-stream mode: the rows of a Paimon snapshot, then, per
 * partition-bucket, the stream store's records from the offset that snapshot recorded. Unbounded,
 * it follows the store for as long as the job runs; bounded, it returns the freshest consistent
 * view, merged through the table's merge engine.
 *
 * <pre>{@code
 * LakeStreamSource source =
 *         LakeStreamSource.builder()
 *                 .setTable(fileStoreTable)
 *                 .setOption("lake-stream.fluss.bootstrap.servers", "127.0.0.1:9123")
 *                 .build();
 * DataStream<RowData> rows = env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders");
 * }</pre>
 *
 * <p>For an unbounded read of a primary-key table the source emits the snapshot's rows as inserts
 * and then the store's changes as they were written; {@link LakeStreamChangelog} turns them into a
 * full changelog with the table's merge engine.
 */
@PublicEvolving
public final class LakeStreamSource
        implements Source<RowData, LakeStreamSplit, LakeStreamEnumeratorState>,
                ResultTypeQueryable<RowData> {

    private static final long serialVersionUID = 1L;

    private final LakeStreamReadContext read;

    private LakeStreamSource(LakeStreamReadContext read) {
        this.read = read;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Boundedness getBoundedness() {
        return read.bounded() ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<RowData, LakeStreamSplit> createReader(SourceReaderContext context) {
        return new LakeStreamSourceReader(context, read);
    }

    @Override
    public SplitEnumerator<LakeStreamSplit, LakeStreamEnumeratorState> createEnumerator(
            SplitEnumeratorContext<LakeStreamSplit> context) {
        return enumerator(context, null);
    }

    @Override
    public SplitEnumerator<LakeStreamSplit, LakeStreamEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<LakeStreamSplit> context, LakeStreamEnumeratorState state) {
        return enumerator(context, state);
    }

    private SplitEnumerator<LakeStreamSplit, LakeStreamEnumeratorState> enumerator(
            SplitEnumeratorContext<LakeStreamSplit> context,
            @Nullable LakeStreamEnumeratorState state) {
        return LakeStreamSplitEnumerator.create(context, read, state);
    }

    /**
     * The number of rows this read returns, counted from metadata without reading a row: Paimon's
     * row counts of the snapshot's files plus the store records of each kept partition-bucket
     * between the snapshot's offset and the store's end now, less fenced ones. Empty where that is
     * not exact: an unbounded read, a primary-key table (its records merge), a filter on other than
     * partition columns, or a file whose row count Paimon does not know.
     */
    public OptionalLong rowCountFromMetadata() {
        if (!read.bounded() || !read.filtersPartitionsOnly()) {
            return OptionalLong.empty();
        }
        try {
            return PlannedRowCount.count(
                    read.table(),
                    read.streamTable(),
                    read.filter(),
                    read.lakeOnly(),
                    read.readCommitted(),
                    read.writerLeaseTimeout(),
                    read.storeFactory());
        } catch (StreamStoreException e) {
            // planning asked (a COUNT(*) pushed down): the statement fails naming the table
            throw StatementErrors.rootOf(
                    StreamStoreException::new,
                    String.format(
                            "Cannot count the rows of lake-stream table %s: %s",
                            read.table().fullName(), e.getMessage()),
                    e);
        }
    }

    @Override
    public SimpleVersionedSerializer<LakeStreamSplit> getSplitSerializer() {
        return LakeStreamSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<LakeStreamEnumeratorState>
            getEnumeratorCheckpointSerializer() {
        return new LakeStreamEnumeratorStateSerializer();
    }

    /** The type of the rows this source emits: the table's columns, projected. */
    public RowType producedRowType() {
        return read.producedRowType();
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return InternalTypeInfo.of(LogicalTypeConversion.toLogicalType(producedRowType()));
    }

    public FileStoreTable table() {
        return read.table();
    }

    /** What this source reads, resolved from its settings and options. */
    @Internal
    public LakeStreamReadContext readContext() {
        return read;
    }

    /** This source, emitting whole rows. */
    LakeStreamSource withoutProjection() {
        return new LakeStreamSource(read.withoutProjection());
    }

    /** Builds a {@link LakeStreamSource}; the table is required. */
    @PublicEvolving
    public static final class Builder extends LakeStreamTableBuilder<Builder> {

        private boolean bounded;
        private Predicate filter;
        private int[] projection;
        private long limit = Long.MAX_VALUE;

        private Builder() {}

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * Paimon's {@code scan.snapshot-id}: a bounded read returns exactly this snapshot's state;
         * an unbounded one returns the changes of this snapshot and later ones, without the state
         * before them ({@code scan.mode} {@code from-snapshot-full}: the state, then the changes).
         */
        public Builder setStartingSnapshotId(long snapshotId) {
            return setOption(CoreOptions.SCAN_SNAPSHOT_ID.key(), String.valueOf(snapshotId));
        }

        /**
         * Paimon's {@code scan.timestamp-millis} (epoch milliseconds): a bounded read returns
         * exactly the state of the latest snapshot committed at or before this time; an unbounded
         * one returns the changes of the snapshots committed at or after it.
         */
        public Builder setStartingTimestamp(long epochMillis) {
            return setOption(CoreOptions.SCAN_TIMESTAMP_MILLIS.key(), String.valueOf(epochMillis));
        }

        /**
         * Paimon's {@code scan.tag-name}: a bounded read returns exactly the state of the tag's
         * snapshot, also after Paimon expired it. As Paimon's, an unbounded read refuses it.
         */
        public Builder setStartingTag(String tagName) {
            return setOption(CoreOptions.SCAN_TAG_NAME.key(), tagName);
        }

        /**
         * Whether the read ends: bounded, it returns the snapshot merged with the store's records
         * up to the readable offsets taken at planning. Unbounded by default.
         */
        public Builder setBounded(boolean bounded) {
            this.bounded = bounded;
            return this;
        }

        /**
         * A filter on the table's columns; the read returns exactly the rows that satisfy it.
         * Partition conjuncts prune partitions in the lake and in the store. For a primary-key
         * table only conjuncts on partition and primary-key fields reach Paimon's scan and read;
         * the others are tested on the merged rows (bounded), or on the changelog that {@link
         * LakeStreamChangelog} merges (unbounded), so a filter never changes a merge. With a
         * projection, the columns the filter reads are read and filtered before the projection.
         */
        public Builder setFilter(Predicate filter) {
            this.filter = filter;
            return this;
        }

        /** The indexes of the table's columns to emit, in this order. */
        public Builder setProjection(int[] projection) {
            this.projection = projection.clone();
            return this;
        }

        /**
         * A bounded read's {@code LIMIT}: each reader ends its splits once it has emitted {@code
         * limit} rows, and for an append table only the partition-buckets whose files hold that
         * many rows are read. The read returns at least {@code limit} rows, or all rows where the
         * table holds fewer, and may return more; apply the limit to what it returns. Taken only
         * where a reader's rows are the read's rows: with no filter, or a filter on partition
         * columns alone; with another filter the read returns all rows that satisfy it. An
         * unbounded read refuses it.
         */
        public Builder setLimit(long limit) {
            if (limit < 0) {
                throw new IllegalArgumentException(
                        String.format("The limit of a read must not be negative, got %d.", limit));
            }
            this.limit = limit;
            return this;
        }

        public LakeStreamSource build() {
            FileStoreTable table = enabledTable(", or read it with Paimon's own source");
            Map<String, String> paimonOptions = new HashMap<>();
            options.forEach(
                    (k, v) -> {
                        if (!k.startsWith(LakeStreamOptions.PREFIX)) {
                            paimonOptions.put(k, v);
                        }
                    });
            Map<String, String> merged = mergedOptions();
            return new LakeStreamSource(
                    LakeStreamReadContext.resolve(
                            table,
                            merged,
                            paimonOptions,
                            read ->
                                    streamTable(
                                            StreamTableSpec.of(
                                                    Identifier.fromString(table.fullName()), read),
                                            merged),
                            bounded,
                            filter,
                            projection,
                            limit));
        }
    }
}
