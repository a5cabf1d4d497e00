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

package io.lakestream.read;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.KeyValue;
import org.apache.paimon.codegen.CodeGenUtils;
import org.apache.paimon.codegen.Projection;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.mergetree.compact.MergeFunction;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.PrimaryKeyTableUtils;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.FieldsComparator;
import org.apache.paimon.utils.UserDefinedSeqComparator;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges a partition-bucket's stream-store changes into its Paimon rows with the table's own merge
 * function (deduplicate, partial-update, aggregation, first-row), the way Paimon merges them once
 * they are committed: the committed row first, then the changes in offset order (the order in which
 * the writer gave Paimon the same records), all ordered by the table's {@code sequence.field} first
 * when it has one.
 *
 * <p>Only the changes are held in memory, grouped by primary key: they are what the bounded read
 * took from the store beyond the snapshot, one checkpoint interval of writes or so. Where the merge
 * engine makes a key's result its last change (deduplicate without {@code sequence.field} and
 * without {@code ignore-delete}), a change replaces the key's earlier ones as it arrives, so the
 * memory held is one change per key changed. The lake rows stream through {@link #mergeLake};
 * {@link #remaining} then yields the keys that only the store has.
 */
public final class BucketMerge {

    private final Projection keyProjection;
    private final InternalRowSerializer rowSerializer;
    private final MergeFunction<KeyValue> mergeFunction;
    @Nullable private final FieldsComparator sequenceOrder;
    private final boolean lastChangeWins;
    private final Map<BinaryRow, List<InternalRow>> changes = new LinkedHashMap<>();
    private long bufferedChanges;

    BucketMerge(
            RowType rowType,
            List<String> primaryKeys,
            MergeFunction<KeyValue> mergeFunction,
            @Nullable FieldsComparator sequenceOrder) {
        this(rowType, primaryKeys, mergeFunction, sequenceOrder, false);
    }

    /**
     * @param lastChangeWins whether the merge function's result for a key is always its last
     *     change, so that earlier changes need not be kept
     */
    BucketMerge(
            RowType rowType,
            List<String> primaryKeys,
            MergeFunction<KeyValue> mergeFunction,
            @Nullable FieldsComparator sequenceOrder,
            boolean lastChangeWins) {
        this.lastChangeWins = lastChangeWins && sequenceOrder == null;
        this.keyProjection = CodeGenUtils.newProjection(rowType, primaryKeys);
        this.rowSerializer = new InternalRowSerializer(rowType);
        this.mergeFunction = mergeFunction;
        this.sequenceOrder = sequenceOrder;
    }

    /** The merge of a primary-key table, with the merge function its options choose. */
    public static BucketMerge of(FileStoreTable table) {
        return new BucketMerge(
                table.rowType(),
                table.primaryKeys(),
                PrimaryKeyTableUtils.createMergeFunctionFactory(
                                table.schema(),
                                PrimaryKeyTableUtils.PrimaryKeyFieldsExtractor.EXTRACTOR)
                        .create(),
                UserDefinedSeqComparator.create(table.rowType(), table.coreOptions()),
                lastChangeWins(table.coreOptions()));
    }

    /**
     * Whether Paimon's merge of a key is its last change whatever came before: deduplicate keeps
     * the latest record by sequence number, which for records without a sequence field is the order
     * of writing; with {@code ignore-delete} a delete would leave the change before it.
     */
    static boolean lastChangeWins(CoreOptions options) {
        return options.mergeEngine() == CoreOptions.MergeEngine.DEDUPLICATE
                && options.sequenceField().isEmpty()
                && !options.ignoreDelete();
    }

    /** Adds one change from the store, in offset order; its row kind is the change's. */
    public void addChange(InternalRow row) {
        BinaryRow key = keyProjection.apply(row).copy();
        List<InternalRow> keyChanges = changes.computeIfAbsent(key, k -> new ArrayList<>(1));
        if (lastChangeWins && !keyChanges.isEmpty()) {
            keyChanges.set(0, rowSerializer.copy(row));
            return;
        }
        keyChanges.add(rowSerializer.copy(row));
        bufferedChanges++;
    }

    /** The changes held in memory now. */
    public long bufferedChanges() {
        return bufferedChanges;
    }

    boolean hasChanges() {
        return !changes.isEmpty();
    }

    /** The lake row with the store's changes of its key merged in, or null if they delete it. */
    @Nullable
    public InternalRow mergeLake(InternalRow lakeRow) {
        if (changes.isEmpty()) {
            return lakeRow;
        }
        BinaryRow key = keyProjection.apply(lakeRow);
        List<InternalRow> keyChanges = changes.remove(key);
        if (keyChanges != null) {
            bufferedChanges -= keyChanges.size();
        }
        return keyChanges == null ? lakeRow : merge(key, lakeRow, keyChanges);
    }

    /** The merged rows of the keys that no lake row had, in the order of their first change. */
    public Iterator<InternalRow> remaining() {
        List<InternalRow> rows = new ArrayList<>();
        for (Map.Entry<BinaryRow, List<InternalRow>> entry : changes.entrySet()) {
            InternalRow merged = merge(entry.getKey(), null, entry.getValue());
            if (merged != null) {
                rows.add(merged);
            }
        }
        changes.clear();
        bufferedChanges = 0;
        return rows.iterator();
    }

    /**
     * Merges the changes held into {@code rows}, a partition-bucket's merged rows by primary key:
     * each changed key's row is merged with its changes as {@link #mergeLake} merges a lake row,
     * and replaced by the result, or removed when the changes delete it. The changes are then
     * dropped. A lookup cache that applies each store record once this way holds what a bounded
     * read of the same offsets returns.
     */
    public void mergeInto(KeyedRows rows) {
        for (Map.Entry<BinaryRow, List<InternalRow>> entry : changes.entrySet()) {
            BinaryRow key = entry.getKey();
            InternalRow merged = merge(key, rows.get(key), entry.getValue());
            if (merged == null) {
                rows.remove(key);
            } else {
                rows.put(key, merged);
            }
        }
        changes.clear();
        bufferedChanges = 0;
    }

    /** Merged rows by primary key, which {@link #mergeInto} updates. */
    public interface KeyedRows {

        /** The key's row, or null when there is none. */
        @Nullable
        InternalRow get(BinaryRow key);

        void put(BinaryRow key, InternalRow row);

        void remove(BinaryRow key);
    }

    @Nullable
    private InternalRow merge(BinaryRow key, @Nullable InternalRow base, List<InternalRow> rows) {
        List<InternalRow> ordered = new ArrayList<>(rows.size() + 1);
        if (base != null) {
            ordered.add(base);
        }
        ordered.addAll(rows);
        if (sequenceOrder != null) {
            // Paimon orders a key's records by the sequence field, then by when they were
            // written; the sort is stable, so ties keep the committed row first and offset order
            ordered.sort(sequenceOrder);
        }
        mergeFunction.reset();
        long sequence = 0;
        for (InternalRow row : ordered) {
            RowKind kind = row == base ? RowKind.INSERT : row.getRowKind();
            mergeFunction.add(new KeyValue().replace(key, sequence++, kind, row));
        }
        KeyValue result = mergeFunction.getResult();
        if (result == null || result.valueKind().isRetract()) {
            return null;
        }
        InternalRow merged = rowSerializer.copy(result.value());
        // a bounded read returns the table's rows, as inserts
        merged.setRowKind(RowKind.INSERT);
        return merged;
    }
}
