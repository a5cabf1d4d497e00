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

package io.lakestream.flink.table;

import io.lakestream.flink.sink.LakeStreamSink;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import java.util.Map;

/**
 * {@code INSERT INTO} a table in lake-stream mode: the dual-write sink. An append table takes
 * inserts; a primary-key table takes upserts and deletes, and update-before rows too when its merge
 * engine retracts (aggregation and partial-update), as Paimon's own sink does.
 */
@Internal
public class LakeStreamTableSink implements DynamicTableSink, SupportsPartitioning {

    private final ObjectIdentifier identifier;
    private final FileStoreTable table;
    private final Map<String, String> storeOptions;

    LakeStreamTableSink(
            ObjectIdentifier identifier, FileStoreTable table, Map<String, String> storeOptions) {
        this.identifier = identifier;
        this.table = table;
        this.storeOptions = storeOptions;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requested) {
        if (table.primaryKeys().isEmpty()) {
            return ChangelogMode.insertOnly();
        }
        CoreOptions.MergeEngine engine = table.coreOptions().mergeEngine();
        if (engine == CoreOptions.MergeEngine.AGGREGATE
                || engine == CoreOptions.MergeEngine.PARTIAL_UPDATE) {
            return requested;
        }
        ChangelogMode.Builder upsert = ChangelogMode.newBuilder();
        for (RowKind kind : requested.getContainedKinds()) {
            if (kind != RowKind.UPDATE_BEFORE) {
                upsert.addContainedKind(kind);
            }
        }
        return upsert.build();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        LakeStreamSink.Builder builder =
                LakeStreamSink.builder().setTable(table).setOptions(storeOptions);
        Integer parallelism =
                Options.fromMap(table.options()).get(FlinkConnectorOptions.SINK_PARALLELISM);
        if (parallelism != null) {
            builder.setParallelism(parallelism);
        }
        LakeStreamSink sink = builder.build();
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(
                    ProviderContext providerContext, DataStream<RowData> dataStream) {
                return sink.sinkFrom(dataStream);
            }
        };
    }

    @Override
    public void applyStaticPartition(Map<String, String> partition) {
        // the planner puts static partition values into the rows themselves; rows are bucketed
        // and partitioned by Paimon's writer as always
    }

    @Override
    public DynamicTableSink copy() {
        return new LakeStreamTableSink(identifier, table, storeOptions);
    }

    @Override
    public String asSummaryString() {
        return "LakeStreamSink(" + identifier.asSummaryString() + ")";
    }
}
