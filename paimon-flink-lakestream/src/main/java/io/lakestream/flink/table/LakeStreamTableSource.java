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

import io.lakestream.flink.source.LakeStreamChangelog;
import io.lakestream.flink.source.LakeStreamSource;
import io.lakestream.flink.store.StreamTable;

import org.apache.paimon.flink.LogicalTypeConversion;
import org.apache.paimon.flink.PredicateConverter;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code SELECT} from a table in lake-stream mode: the hybrid source. Streaming, an append table is
 * insert-only and a primary-key table a full changelog merged with its merge engine; batch, the
 * freshest union read, insert-only. Filters go to the source (partition pruning and Paimon's file
 * skipping) and are applied again by the planner; top-level projections are pushed down. Lookup
 * joins go to Paimon's own source of the table, which reads committed data.
 */
@Internal
public class LakeStreamTableSource
        implements ScanTableSource,
                LookupTableSource,
                SupportsProjectionPushDown,
                SupportsFilterPushDown {

    private final ObjectIdentifier identifier;
    private final FileStoreTable table;
    private final Map<String, String> storeOptions;

    /** The catalog's stream table of the table, or null: the builder then looks it up. */
    private final Supplier<StreamTable> streamTable;

    private final boolean unbounded;
    @Nullable private int[] projection;
    @Nullable private Predicate filter;

    /**
     * Paimon's own source of the table, which serves lookup joins from committed data. It gets the
     * same projection and filters as this source.
     */
    private final LookupTableSource committedLookup;

    LakeStreamTableSource(
            ObjectIdentifier identifier,
            FileStoreTable table,
            Map<String, String> storeOptions,
            Supplier<StreamTable> streamTable,
            boolean unbounded,
            LookupTableSource committedLookup) {
        this.identifier = identifier;
        this.table = table;
        this.storeOptions = storeOptions;
        this.streamTable = streamTable;
        this.unbounded = unbounded;
        this.committedLookup = committedLookup;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return unbounded && !table.primaryKeys().isEmpty()
                ? ChangelogMode.all()
                : ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        LakeStreamSource.Builder builder =
                LakeStreamSource.builder()
                        .setTable(table)
                        .setOptions(storeOptions)
                        .setBounded(!unbounded);
        StreamTable known = streamTable.get();
        if (known != null) {
            builder.setStreamTable(known);
        }
        if (projection != null) {
            builder.setProjection(projection);
        }
        if (filter != null) {
            builder.setFilter(filter);
        }
        LakeStreamSource source = builder.build();
        boolean insertsOnly = !unbounded && !table.primaryKeys().isEmpty();
        String name = "LakeStreamSource: " + identifier.asSummaryString();
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(
                    ProviderContext providerContext, StreamExecutionEnvironment env) {
                DataStream<RowData> rows = LakeStreamChangelog.of(env, source, name);
                if (insertsOnly) {
                    // a batch read returns the merged rows, which Paimon marks with the kind of
                    // their last change; the planner takes a bounded source as insert-only
                    rows =
                            rows.map(
                                            row -> {
                                                row.setRowKind(RowKind.INSERT);
                                                return row;
                                            })
                                    .returns(source.getProducedType())
                                    .name(name + " rows");
                }
                return rows;
            }

            @Override
            public boolean isBounded() {
                return !unbounded;
            }
        };
    }

    /**
     * A lookup join reads what Paimon's own lookup reads: the committed data of the latest
     * snapshot, refreshed as Paimon refreshes it ({@code lookup.*} options). The store's
     * uncommitted records are not looked up.
     */
    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
        return committedLookup.getLookupRuntimeProvider(context);
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        int[] top = new int[projectedFields.length];
        for (int i = 0; i < projectedFields.length; i++) {
            top[i] = projectedFields[i][0];
        }
        this.projection = top;
        ((SupportsProjectionPushDown) committedLookup)
                .applyProjection(projectedFields, producedDataType);
    }

    @Override
    public Result applyFilters(List<ResolvedExpression> filters) {
        List<Predicate> converted = new ArrayList<>();
        for (ResolvedExpression expression : filters) {
            PredicateConverter.convert(
                            LogicalTypeConversion.toLogicalType(table.rowType()), expression)
                    .ifPresent(converted::add);
        }
        this.filter = converted.isEmpty() ? null : PredicateBuilder.and(converted);
        ((SupportsFilterPushDown) committedLookup).applyFilters(filters);
        // the source prunes and skips with them; the planner still applies every one
        return Result.of(new ArrayList<>(), filters);
    }

    @Override
    public DynamicTableSource copy() {
        LakeStreamTableSource copy =
                new LakeStreamTableSource(
                        identifier,
                        table,
                        storeOptions,
                        streamTable,
                        unbounded,
                        (LookupTableSource) committedLookup.copy());
        copy.projection = projection;
        copy.filter = filter;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "LakeStreamSource";
    }
}
