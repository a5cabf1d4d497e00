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

package io.lakestream.flink.lookup;

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.LakeStreamTableBuilder;
import io.lakestream.read.lookup.UnionLookupCache;
import io.lakestream.read.plan.ReadFilter;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.flink.FlinkRowData;
import org.apache.paimon.flink.FlinkRowWrapper;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.ProjectedRow;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The lookup function of a primary-key table in lake-stream mode: a lookup join finds a row within
 * a second of its write, merged with the table's merge engine, not at the next checkpoint. It
 * answers from a {@link UnionLookupCache}, the table's latest snapshot merged with the stream
 * store's records past it (read-uncommitted; up to the snapshot's own offsets with {@code
 * 'lake-stream.read.isolation' = 'read-committed'}), refreshed at most every {@link
 * LakeStreamOptions#LOOKUP_REFRESH_INTERVAL} on the next lookup.
 *
 * <p>A table with more rows than {@link LakeStreamOptions#LOOKUP_CACHE_MAX_ROWS} is looked up by
 * Paimon's own lookup function of the table instead, which reads committed rows; the gauge {@code
 * lakeStreamLookupCommittedOnly} is then 1.
 */
@PublicEvolving
public final class LakeStreamLookupFunction extends LookupFunction {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;
    private final StreamTable streamTable;
    private final Map<String, String> options;
    @Nullable private final Predicate filter;
    private final int[] projection;
    private final List<String> joinKeys;
    private final CommittedLookup committed;

    private transient UnionLookupCache cache;
    private transient InternalRowSerializer keySerializer;
    private transient long refreshIntervalMillis;
    private transient long nextRefresh;
    private transient boolean committedOnly;
    private transient FunctionContext context;

    private LakeStreamLookupFunction(
            FileStoreTable table,
            StreamTable streamTable,
            Map<String, String> options,
            @Nullable Predicate filter,
            int[] projection,
            List<String> joinKeys,
            CommittedLookup committed) {
        this.table = table;
        this.streamTable = streamTable;
        this.options = options;
        this.filter = filter;
        this.projection = projection;
        this.joinKeys = joinKeys;
        this.committed = committed;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void open(FunctionContext context) throws Exception {
        this.context = context;
        Options conf = Options.fromMap(options);
        this.refreshIntervalMillis = conf.get(LakeStreamOptions.LOOKUP_REFRESH_INTERVAL).toMillis();
        this.keySerializer = new InternalRowSerializer(table.rowType().project(joinKeys));
        context.getMetricGroup()
                .gauge(
                        "lakeStreamLookupCommittedOnly",
                        (Gauge<Integer>) () -> committedOnly ? 1 : 0);
        context.getMetricGroup()
                .gauge(
                        "lakeStreamLookupCacheRows",
                        (Gauge<Long>) () -> cache == null ? 0L : cache.size());
        context.getMetricGroup()
                .gauge(
                        "lakeStreamLookupLoads",
                        (Gauge<Long>) () -> cache == null ? 0L : cache.loads());
        if (conf.get(LakeStreamOptions.LOOKUP_CACHE_MAX_ROWS) == 0) {
            useCommitted();
            return;
        }
        cache =
                new UnionLookupCache(
                        table,
                        streamTable,
                        filter,
                        joinKeys,
                        options,
                        () ->
                                StreamStoreLoader.create(
                                        options, LakeStreamLookupFunction.class.getClassLoader()));
        refresh();
    }

    @Override
    public Collection<RowData> lookup(RowData keyRow) throws IOException {
        if (!committedOnly && System.currentTimeMillis() >= nextRefresh) {
            refresh();
        }
        if (committedOnly) {
            return committed.lookup(keyRow);
        }
        for (int i = 0; i < keyRow.getArity(); i++) {
            if (keyRow.isNullAt(i)) {
                // SQL equality: a null key equals no row
                return Collections.emptyList();
            }
        }
        BinaryRow key = keySerializer.toBinaryRow(new FlinkRowWrapper(keyRow));
        List<InternalRow> rows = cache.get(key);
        if (rows.isEmpty()) {
            return Collections.emptyList();
        }
        List<RowData> result = new ArrayList<>(rows.size());
        for (InternalRow row : rows) {
            result.add(new FlinkRowData(ProjectedRow.from(projection).replaceRow(row)));
        }
        return result;
    }

    private void refresh() throws IOException {
        cache.refresh();
        nextRefresh = System.currentTimeMillis() + refreshIntervalMillis;
        if (cache.overflowed()) {
            useCommitted();
        }
    }

    /** From now on, looks up as Paimon does: the table's committed rows. */
    private void useCommitted() throws IOException {
        if (committed.refusal() != null) {
            throw new IOException(
                    String.format(
                            "The lookup cache of table %s cannot hold it (more rows than option "
                                    + "'%s' = %s), and Paimon's own lookup refuses the table: %s "
                                    + "Raise the option.",
                            table.fullName(),
                            LakeStreamOptions.LOOKUP_CACHE_MAX_ROWS.key(),
                            Options.fromMap(options).get(LakeStreamOptions.LOOKUP_CACHE_MAX_ROWS),
                            committed.refusal()));
        }
        committedOnly = true;
        if (cache != null) {
            cache.close();
            cache = null;
        }
        try {
            committed.open(context);
        } catch (Exception e) {
            throw new IOException(
                    "Cannot open Paimon's lookup of table " + table.fullName() + ": " + e, e);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            if (cache != null) {
                cache.close();
            }
        } finally {
            if (committedOnly) {
                committed.close();
            }
        }
    }

    /**
     * Builds a {@link LakeStreamLookupFunction}; the table, the join keys and Paimon's lookup of
     * the table (for tables past the cache's bound) are required.
     */
    @PublicEvolving
    public static final class Builder extends LakeStreamTableBuilder<Builder> {

        @Nullable private Predicate filter;
        @Nullable private int[] projection;
        private List<String> joinKeys;
        private CommittedLookup committed;

        private Builder() {}

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * A filter on the table's columns: its conjuncts on partition and primary-key columns prune
         * what the cache holds; the others are left to the caller.
         */
        public Builder setFilter(@Nullable Predicate filter) {
            this.filter = filter;
            return this;
        }

        /** The indexes of the table's columns a lookup returns, in this order; all by default. */
        public Builder setProjection(@Nullable int[] projection) {
            this.projection = projection == null ? null : projection.clone();
            return this;
        }

        /** The names of the columns a lookup gives values of, in the key row's order. */
        public Builder setJoinKeys(List<String> joinKeys) {
            this.joinKeys = new ArrayList<>(joinKeys);
            return this;
        }

        /** Paimon's lookup of the table: what answers when the cache cannot hold the table. */
        public Builder setCommittedLookup(CommittedLookup committed) {
            this.committed = committed;
            return this;
        }

        public LakeStreamLookupFunction build() {
            FileStoreTable table = enabledTable(", or look it up with Paimon's own table source");
            if (table.primaryKeys().isEmpty()) {
                throw new IllegalArgumentException(
                        String.format(
                                "Table %s has no primary key: its lookups are Paimon's own.",
                                table.fullName()));
            }
            if (joinKeys == null || joinKeys.isEmpty() || committed == null) {
                throw new IllegalArgumentException(
                        "The join keys and Paimon's lookup of table "
                                + table.fullName()
                                + " are required.");
            }
            RowType rowType = table.rowType();
            for (String key : joinKeys) {
                if (rowType.getFieldIndex(key) < 0) {
                    throw new IllegalArgumentException(
                            String.format(
                                    "Join key '%s' is not a column of table %s.",
                                    key, table.fullName()));
                }
            }
            int[] fields = projection;
            if (fields == null) {
                fields = new int[rowType.getFieldCount()];
                for (int i = 0; i < fields.length; i++) {
                    fields[i] = i;
                }
            }
            Map<String, String> merged = mergedOptions();
            StreamTableSpec spec =
                    StreamTableSpec.of(Identifier.fromString(table.fullName()), table);
            return new LakeStreamLookupFunction(
                    table,
                    streamTable(spec, merged),
                    merged,
                    ReadFilter.of(table, filter).beforeMerge(),
                    fields,
                    joinKeys,
                    committed);
        }
    }
}
