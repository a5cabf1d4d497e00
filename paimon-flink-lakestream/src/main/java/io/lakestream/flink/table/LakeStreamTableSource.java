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

import io.lakestream.flink.lookup.CommittedLookup;
import io.lakestream.flink.lookup.LakeStreamLookupFunction;
import io.lakestream.flink.source.LakeStreamChangelog;
import io.lakestream.flink.source.LakeStreamSource;
import io.lakestream.store.StreamTable;

import org.apache.paimon.flink.LogicalTypeConversion;
import org.apache.paimon.flink.PredicateConverter;
import org.apache.paimon.flink.source.NumberSequenceRowSource;
import org.apache.paimon.predicate.PartitionPredicateVisitor;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsAggregatePushDown;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsLimitPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.AggregateExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * {@code SELECT} from a table in lake-stream mode: the hybrid source. Streaming, an append table is
 * insert-only and a primary-key table a full changelog merged with its merge engine; batch, the
 * freshest union read, insert-only. Filters go to the source (partition pruning and Paimon's file
 * skipping) and are applied again by the planner, except, in batch, those on partition columns
 * alone, which the source applies exactly (as Paimon's source does); top-level projections are
 * pushed down. A batch {@code COUNT(*)} of an append table is answered from metadata, as Paimon
 * answers it, and a batch {@code LIMIT} is pushed down. Lookup joins of a primary-key table see the
 * store's records (see {@link #getLookupRuntimeProvider}). The read's parallelism is Paimon's
 * ({@link ScanParallelism}).
 */
@Internal
public class LakeStreamTableSource
        implements ScanTableSource,
                LookupTableSource,
                SupportsProjectionPushDown,
                SupportsFilterPushDown,
                SupportsAggregatePushDown,
                SupportsLimitPushDown {

    /** The class of Flink's {@code COUNT(*)} and {@code COUNT(1)}, as Paimon's source tests it. */
    private static final String COUNT_STAR =
            "org.apache.flink.table.planner.functions.aggfunctions.Count1AggFunction";

    private final ObjectIdentifier identifier;
    private final FileStoreTable table;
    private final Map<String, String> storeOptions;

    /** The catalog's stream table of the table, or null: the builder then looks it up. */
    private final Supplier<StreamTable> streamTable;

    private final boolean unbounded;
    @Nullable private int[] projection;
    @Nullable private Predicate filter;

    /** A batch read's pushed-down {@code LIMIT}, or null. */
    @Nullable private Long limit;

    /** The row count of a pushed-down {@code COUNT(*)}: the source then emits it alone. */
    @Nullable private Long countPushed;

    /**
     * Paimon's own source of the table: the lookup of append tables, and of tables too large for
     * the lake-stream lookup cache. It gets the same projection and filters as this source.
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
        if (countPushed != null) {
            return countStarScan(countPushed);
        }
        LakeStreamSource.Builder builder = sourceBuilder();
        if (projection != null) {
            builder.setProjection(projection);
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
                Integer parallelism = ScanParallelism.of(table, unbounded, filter, limit, env);
                if (parallelism != null) {
                    ScanParallelism.applyTo(rows, parallelism);
                }
                return rows;
            }

            @Override
            public boolean isBounded() {
                return !unbounded;
            }
        };
    }

    private LakeStreamSource.Builder sourceBuilder() {
        LakeStreamSource.Builder builder =
                LakeStreamSource.builder()
                        .setTable(table)
                        .setOptions(storeOptions)
                        .setBounded(!unbounded);
        StreamTable known = streamTable.get();
        if (known != null) {
            builder.setStreamTable(known);
        }
        if (filter != null) {
            builder.setFilter(filter);
        }
        if (limit != null) {
            builder.setLimit(limit);
        }
        return builder;
    }

    /** One row, the count: what the planner's local aggregate would have produced. */
    private static ScanRuntimeProvider countStarScan(long count) {
        // Paimon's own source emits its pushed count this way
        NumberSequenceRowSource source = new NumberSequenceRowSource(count, count);
        return new SourceProvider() {
            @Override
            public Source<RowData, ?, ?> createSource() {
                return source;
            }

            @Override
            public boolean isBounded() {
                return true;
            }

            @Override
            public Optional<Integer> getParallelism() {
                return Optional.of(1);
            }
        };
    }

    /**
     * Takes a batch {@code COUNT(*)} (no grouping, nothing else aggregated) of an append table,
     * filtered by partition columns at most, and answers it from metadata: see {@link
     * LakeStreamSource#rowCountFromMetadata()}. Refused (the rows are read and counted) for
     * streaming reads, primary-key tables, whose store records merge into keys, and where Paimon
     * refuses it (a file without a known row count).
     */
    @Override
    public boolean applyAggregates(
            List<int[]> groupingSets,
            List<AggregateExpression> aggregateExpressions,
            DataType producedDataType) {
        if (unbounded
                || !table.primaryKeys().isEmpty()
                || groupingSets.size() != 1
                || groupingSets.get(0).length != 0
                || aggregateExpressions.size() != 1
                || !aggregateExpressions
                        .get(0)
                        .getFunctionDefinition()
                        .getClass()
                        .getName()
                        .equals(COUNT_STAR)) {
            return false;
        }
        OptionalLong count = sourceBuilder().build().rowCountFromMetadata();
        if (!count.isPresent()) {
            return false;
        }
        this.countPushed = count.getAsLong();
        return true;
    }

    /**
     * A lookup join of a primary-key table finds rows within a second of their write: the union of
     * the latest snapshot and the store's records past it, merged with the table's merge engine
     * ({@link LakeStreamLookupFunction}). An append table, and a key with nested fields, are looked
     * up as Paimon's own lookup looks them up: committed rows, refreshed with Paimon's {@code
     * lookup.*} options.
     */
    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
        if (table.primaryKeys().isEmpty()) {
            return committedLookup.getLookupRuntimeProvider(context);
        }
        List<String> fieldNames = table.rowType().getFieldNames();
        List<String> joinKeys = new ArrayList<>();
        for (int[] key : context.getKeys()) {
            if (key.length != 1) {
                return committedLookup.getLookupRuntimeProvider(context);
            }
            joinKeys.add(fieldNames.get(projection == null ? key[0] : projection[key[0]]));
        }
        CommittedLookup committed;
        try {
            committed = CommittedLookup.of(committedLookup.getLookupRuntimeProvider(context));
        } catch (RuntimeException e) {
            // Paimon refuses to look up some tables (partial-update or aggregation without a
            // changelog producer: its lookup follows snapshots with a streaming read); the
            // lake-stream cache loads them whole and can, but has nothing to fall back to
            committed = CommittedLookup.refused(e.getMessage());
        }
        LakeStreamLookupFunction.Builder builder =
                LakeStreamLookupFunction.builder()
                        .setTable(table)
                        .setOptions(storeOptions)
                        .setFilter(filter)
                        .setProjection(projection)
                        .setJoinKeys(joinKeys)
                        .setCommittedLookup(committed);
        StreamTable known = streamTable.get();
        if (known != null) {
            builder.setStreamTable(known);
        }
        return LookupFunctionProvider.of(builder.build());
    }

    /**
     * Takes a batch read's {@code LIMIT}, as Paimon's source does: the readers end their splits
     * once they emitted that many rows, and an append table reads only the partition-buckets whose
     * files hold them ({@link LakeStreamSource.Builder#setLimit}); the planner still applies the
     * limit. A streaming read ignores it: its splits never end.
     */
    @Override
    public void applyLimit(long limit) {
        if (!unbounded) {
            this.limit = limit;
        }
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
        // the source prunes and skips with them; the planner still applies every one, except, in
        // batch, those on partition columns alone: partition pruning is exact in the lake and the
        // store, so Paimon's source consumes them too (and a COUNT(*) can then be pushed down)
        List<ResolvedExpression> remaining = new ArrayList<>();
        PartitionPredicateVisitor onPartitions =
                new PartitionPredicateVisitor(table.partitionKeys());
        for (ResolvedExpression expression : filters) {
            boolean consumed =
                    !unbounded
                            && PredicateConverter.convert(
                                            LogicalTypeConversion.toLogicalType(table.rowType()),
                                            expression)
                                    .map(p -> p.visit(onPartitions))
                                    .orElse(false);
            if (!consumed) {
                remaining.add(expression);
            }
        }
        return Result.of(new ArrayList<>(), remaining);
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
        copy.countPushed = countPushed;
        copy.limit = limit;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "LakeStreamSource";
    }
}
