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
import io.lakestream.flink.LakeStreamTableBuilder;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.flink.FlinkRowWrapper;
import org.apache.paimon.flink.LogicalTypeConversion;
import org.apache.paimon.flink.sink.FlinkSink;
import org.apache.paimon.flink.sink.FlinkStreamPartitioner;
import org.apache.paimon.flink.sink.RowDataChannelComputer;
import org.apache.paimon.flink.utils.InternalTypeInfo;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.Row;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Map;

/**
 * The dual-write sink of a Paimon table in lake-stream mode: every record goes to the stream store,
 * readable at once, and to Paimon's writer; each checkpoint commits a Paimon snapshot that records,
 * per partition-bucket, the stream offset up to which the snapshot holds the store's records.
 *
 * <pre>{@code
 * LakeStreamSink sink =
 *         LakeStreamSink.builder()
 *                 .setTable(fileStoreTable)
 *                 .setOption("lake-stream.fluss.bootstrap.servers", "127.0.0.1:9123")
 *                 .build();
 * sink.sinkFrom(rowDataStream);
 * }</pre>
 *
 * <p>The table is required; it must be a fixed-bucket table with {@code 'lake-stream.enabled' =
 * 'true'} whose stream table exists. {@code build()} checks all of this and names what is wrong.
 */
@PublicEvolving
public final class LakeStreamSink implements Serializable {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;
    private final StreamTable streamTable;
    private final Map<String, String> options;
    @Nullable private final Integer parallelism;

    private LakeStreamSink(
            FileStoreTable table,
            StreamTable streamTable,
            Map<String, String> options,
            @Nullable Integer parallelism) {
        this.table = table;
        this.streamTable = streamTable;
        this.options = options;
        this.parallelism = parallelism;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Adds the sink to {@code input}, whose rows have the table's columns in its order. */
    public DataStreamSink<?> sinkFrom(DataStream<RowData> input) {
        SingleOutputStreamOperator<InternalRow> rows =
                input.map(FlinkRowWrapper::new, InternalTypeInfo.fromRowType(table.rowType()))
                        .setParallelism(input.getParallelism())
                        .name("Lake-stream rows : " + table.name());
        // a batch job's exchanges are blocking, and Flink refuses a buffer timeout on them
        if (FlinkSink.isStreaming(input)) {
            rows.setBufferTimeout(exchangeBufferTimeout(input));
        }
        return sinkFromInternalRows(rows);
    }

    /**
     * The buffer timeout of the sink's own exchange, which the map above sends into: the lower of
     * the job's and {@code 'lake-stream.sink.buffer-timeout'}. Every row waits in that exchange
     * before the store has it; the map is the sink's, so its timeout touches no exchange of the
     * user's job.
     */
    private long exchangeBufferTimeout(DataStream<RowData> input) {
        long sink = Options.fromMap(options).get(LakeStreamOptions.SINK_BUFFER_TIMEOUT).toMillis();
        // -1: the job sends buffers only when full ('execution.buffer-timeout.enabled' = false)
        long job = input.getExecutionEnvironment().getBufferTimeout();
        return job >= 0 && job < sink ? job : sink;
    }

    /**
     * Adds the sink to a stream of external {@link Row}s with the table's columns in its order;
     * each row's {@link org.apache.flink.types.RowKind} is kept.
     */
    public DataStreamSink<?> sinkFromRows(DataStream<Row> input) {
        org.apache.flink.table.types.logical.RowType logicalType =
                LogicalTypeConversion.toLogicalType(table.rowType());
        DataStream<RowData> rows =
                input.map(new RowToRowData(TypeConversions.fromLogicalToDataType(logicalType)))
                        .returns(
                                org.apache.flink.table.runtime.typeutils.InternalTypeInfo.of(
                                        logicalType))
                        .setParallelism(input.getParallelism())
                        .name("Lake-stream row conversion : " + table.name());
        return sinkFrom(rows);
    }

    /**
     * Adds the sink to a stream of Paimon rows. The writers get the sink's parallelism when it has
     * one; otherwise the input's, except that an unpartitioned table with fewer buckets than that
     * gets one writer per bucket, as Paimon's sink of a fixed-bucket table does (the others would
     * have no bucket to write).
     */
    public DataStreamSink<?> sinkFromInternalRows(DataStream<InternalRow> input) {
        Integer writers = parallelism;
        int buckets = table.coreOptions().bucket();
        if (writers == null
                && table.partitionKeys().isEmpty()
                && buckets < input.getParallelism()) {
            writers = buckets;
        }
        DataStream<InternalRow> partitioned =
                FlinkStreamPartitioner.partition(
                        input, new RowDataChannelComputer(table.schema(), false), writers);
        return new LakeStreamFixedBucketSink(table, streamTable, options).sinkFrom(partitioned);
    }

    public StreamTable streamTable() {
        return streamTable;
    }

    /** Builds a {@link LakeStreamSink}; see {@link LakeStreamSink} for what is required. */
    @PublicEvolving
    public static final class Builder extends LakeStreamTableBuilder<Builder> {

        private Integer parallelism;

        private Builder() {}

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * The parallelism of the writers; by default that of the input, or the number of buckets of
         * an unpartitioned table that has fewer, as in Paimon.
         */
        public Builder setParallelism(int parallelism) {
            this.parallelism = parallelism;
            return this;
        }

        public LakeStreamSink build() {
            FileStoreTable table = enabledTable(" first");
            String name = table.fullName();
            Options tableOptions = Options.fromMap(table.options());
            if (tableOptions.get(CoreOptions.BUCKET_FUNCTION_TYPE)
                    != CoreOptions.BucketFunctionType.DEFAULT) {
                throw new IllegalArgumentException(
                        String.format(
                                "Table %s has '%s' = '%s', but the stream store buckets rows with "
                                        + "Paimon's default bucket function only.",
                                name,
                                CoreOptions.BUCKET_FUNCTION_TYPE.key(),
                                tableOptions.get(CoreOptions.BUCKET_FUNCTION_TYPE)));
            }
            if (tableOptions.get(FlinkConnectorOptions.PRECOMMIT_COMPACT)) {
                throw new IllegalArgumentException(
                        String.format(
                                "Table %s has '%s' = 'true', which the lake-stream sink does not "
                                        + "support yet.",
                                name, FlinkConnectorOptions.PRECOMMIT_COMPACT.key()));
            }
            StreamTableSpec spec = StreamTableSpec.of(Identifier.fromString(name), table);
            Map<String, String> merged = mergedOptions();
            // parsed here so that a malformed value fails the job's construction, not its tasks
            Options.fromMap(merged).get(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT);
            Options.fromMap(merged).get(LakeStreamOptions.SINK_PARTITION_DROP_DELAY);
            return new LakeStreamSink(table, streamTable(spec, merged), merged, parallelism);
        }
    }
}
