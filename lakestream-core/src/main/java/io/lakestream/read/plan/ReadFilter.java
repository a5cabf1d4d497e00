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

package io.lakestream.read.plan;

import org.apache.paimon.predicate.CompoundPredicate;
import org.apache.paimon.predicate.LeafPredicate;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The filter of a read, split into the part that may be tested before a primary-key merge and the
 * part that may only be tested after it.
 *
 * <p>A conjunct on partition and primary-key fields only holds or fails alike for every record of a
 * key, so skipping records by it (Paimon's scan and read, the store's changes) drops whole keys and
 * never changes the merge of a key it keeps. A conjunct on any other field may fail for a key's
 * committed row and hold for the row merged from it and the store's changes (partial-update,
 * aggregation), or the other way round (first-row, a later change); pushed into Paimon's read it
 * would drop the committed row, which the merge with the store's changes then misses. Paimon's own
 * scan keeps value filters away from merges the same way ({@code
 * PrimaryKeyFileStoreTable#nonPartitionFilterConsumer}); the store's tail is a sorted run that
 * Paimon cannot see, so here they stay out of Paimon's scan and read altogether.
 *
 * <p>An append table has no merge: its whole filter is the part before the merge.
 */
public final class ReadFilter implements Serializable {

    private static final long serialVersionUID = 1L;

    @Nullable private final Predicate all;
    @Nullable private final Predicate beforeMerge;
    @Nullable private final Predicate afterMerge;

    private ReadFilter(
            @Nullable Predicate all,
            @Nullable Predicate beforeMerge,
            @Nullable Predicate afterMerge) {
        this.all = all;
        this.beforeMerge = beforeMerge;
        this.afterMerge = afterMerge;
    }

    /** The filter of a read of {@code table}; {@code filter} may be null (no filter). */
    public static ReadFilter of(FileStoreTable table, @Nullable Predicate filter) {
        return of(table.rowType(), table.partitionKeys(), table.primaryKeys(), filter);
    }

    /**
     * The filter of a read of a table with these columns, partition keys and primary keys (none for
     * an append table).
     */
    static ReadFilter of(
            RowType rowType,
            List<String> partitionKeys,
            List<String> primaryKeys,
            @Nullable Predicate filter) {
        if (filter == null || primaryKeys.isEmpty()) {
            return new ReadFilter(filter, filter, null);
        }
        Set<String> valueFields = new HashSet<>(rowType.getFieldNames());
        valueFields.removeAll(primaryKeys);
        valueFields.removeAll(partitionKeys);
        List<Predicate> keyConjuncts = new ArrayList<>();
        List<Predicate> valueConjuncts = new ArrayList<>();
        for (Predicate conjunct : PredicateBuilder.splitAnd(filter)) {
            if (PredicateBuilder.containsFields(conjunct, valueFields)) {
                valueConjuncts.add(conjunct);
            } else {
                keyConjuncts.add(conjunct);
            }
        }
        return new ReadFilter(filter, andOrNull(keyConjuncts), andOrNull(valueConjuncts));
    }

    @Nullable
    private static Predicate andOrNull(List<Predicate> conjuncts) {
        return conjuncts.isEmpty() ? null : PredicateBuilder.and(conjuncts);
    }

    /** The whole filter, or null: what every row of the read satisfies, tested after the merge. */
    @Nullable
    public Predicate all() {
        return all;
    }

    /**
     * The conjuncts on partition and primary-key fields of a primary-key table, the whole filter of
     * an append table, or null: what Paimon's scan and read may use, and what may be tested on a
     * primary-key table's committed rows and store changes before they are merged.
     */
    @Nullable
    public Predicate beforeMerge() {
        return beforeMerge;
    }

    /**
     * The conjuncts of a primary-key table's filter that read other fields, or null (always null
     * for an append table): tested only on rows the merge produced.
     */
    @Nullable
    public Predicate afterMerge() {
        return afterMerge;
    }

    /** Whether every column the filter reads is among {@code columns} (indexes of the table). */
    public boolean readsOnly(int[] columns) {
        if (all == null) {
            return true;
        }
        Set<Integer> kept = new HashSet<>();
        for (int column : columns) {
            kept.add(column);
        }
        return readsOnly(all, kept);
    }

    private static boolean readsOnly(Predicate predicate, Set<Integer> columns) {
        if (predicate instanceof LeafPredicate) {
            return columns.contains(((LeafPredicate) predicate).index());
        }
        for (Predicate child : ((CompoundPredicate) predicate).children()) {
            if (!readsOnly(child, columns)) {
                return false;
            }
        }
        return true;
    }
}
