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

import org.apache.paimon.KeyValue;
import org.apache.paimon.codegen.CodeGenUtils;
import org.apache.paimon.codegen.Projection;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.flink.FlinkRowData;
import org.apache.paimon.flink.FlinkRowWrapper;
import org.apache.paimon.flink.LogicalTypeConversion;
import org.apache.paimon.mergetree.compact.MergeFunction;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.PrimaryKeyTableUtils;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.utils.FieldsComparator;
import org.apache.paimon.utils.UserDefinedSeqComparator;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;

import java.util.Base64;

/**
 * Turns the unbounded output of a primary-key table's {@link LakeStreamSource} (the snapshot's
 * rows, then the store's changes as written) into a full changelog: per primary key it keeps the
 * current row, merges each change into it with the table's own merge function, and emits {@code
 * +I}, {@code -U}/{@code +U} or {@code -D} for the difference. This is what makes partial-update,
 * aggregation and first-row tables readable as a changelog, where a change is not a whole row.
 */
@Internal
final class ChangelogMergeFunction extends KeyedProcessFunction<String, RowData, RowData> {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;

    private transient ValueState<RowData> current;
    private transient MergeFunction<KeyValue> mergeFunction;
    private transient Projection keyProjection;
    private transient RowDataSerializer serializer;
    private transient FieldsComparator sequenceOrder;

    ChangelogMergeFunction(FileStoreTable table) {
        this.table = table;
    }

    /** Keys rows by the table's primary key. */
    static KeySelector<RowData, String> keySelector(FileStoreTable table) {
        return new PrimaryKeySelector(table);
    }

    @Override
    public void open(OpenContext openContext) {
        RowType type = LogicalTypeConversion.toLogicalType(table.rowType());
        serializer = new RowDataSerializer(type);
        current =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>(
                                        "lake-stream-current-row", InternalTypeInfo.of(type)));
        mergeFunction =
                PrimaryKeyTableUtils.createMergeFunctionFactory(
                                table.schema(),
                                PrimaryKeyTableUtils.PrimaryKeyFieldsExtractor.EXTRACTOR)
                        .create();
        keyProjection = CodeGenUtils.newProjection(table.rowType(), table.primaryKeys());
        sequenceOrder = UserDefinedSeqComparator.create(table.rowType(), table.coreOptions());
    }

    @Override
    public void processElement(RowData change, Context ctx, Collector<RowData> out)
            throws Exception {
        RowData old = current.value();
        FlinkRowWrapper changed = new FlinkRowWrapper(change);
        BinaryRow key = keyProjection.apply(changed);
        mergeFunction.reset();
        KeyValue before =
                old == null
                        ? null
                        : new KeyValue().replace(key, 0, RowKind.INSERT, new FlinkRowWrapper(old));
        KeyValue next = new KeyValue().replace(key, 1, changed.getRowKind(), changed);
        if (before != null
                && sequenceOrder != null
                && sequenceOrder.compare(next.value(), before.value()) < 0) {
            // an older change by the sequence field: Paimon merges it before the current row
            mergeFunction.add(next);
            mergeFunction.add(before);
        } else {
            if (before != null) {
                mergeFunction.add(before);
            }
            mergeFunction.add(next);
        }
        KeyValue result = mergeFunction.getResult();
        if (result == null || result.valueKind().isRetract()) {
            if (old != null) {
                out.collect(withKind(old, org.apache.flink.types.RowKind.DELETE));
                current.clear();
            }
            return;
        }
        BinaryRowData merged = serializer.toBinaryRow(new FlinkRowData(result.value())).copy();
        merged.setRowKind(org.apache.flink.types.RowKind.INSERT);
        if (old == null) {
            out.collect(withKind(merged, org.apache.flink.types.RowKind.INSERT));
        } else {
            BinaryRowData oldRow = serializer.toBinaryRow(old);
            oldRow.setRowKind(org.apache.flink.types.RowKind.INSERT);
            if (oldRow.equals(merged)) {
                return; // first-row and the like: the change did not change the row
            }
            out.collect(withKind(old, org.apache.flink.types.RowKind.UPDATE_BEFORE));
            out.collect(withKind(merged, org.apache.flink.types.RowKind.UPDATE_AFTER));
        }
        current.update(merged);
    }

    private RowData withKind(RowData row, org.apache.flink.types.RowKind kind) {
        RowData copy = serializer.copy(row);
        copy.setRowKind(kind);
        return copy;
    }

    /** The primary key of a row, as the bytes of Paimon's binary key row. */
    private static final class PrimaryKeySelector implements KeySelector<RowData, String> {

        private static final long serialVersionUID = 1L;

        private final FileStoreTable table;
        private transient Projection projection;

        PrimaryKeySelector(FileStoreTable table) {
            this.table = table;
        }

        @Override
        public String getKey(RowData row) {
            if (projection == null) {
                projection = CodeGenUtils.newProjection(table.rowType(), table.primaryKeys());
            }
            // a String key: content-based equality and hash, and a compact serializer
            return Base64.getEncoder()
                    .encodeToString(projection.apply(new FlinkRowWrapper(row)).toBytes());
        }
    }
}
