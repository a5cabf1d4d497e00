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

import org.apache.paimon.casting.DefaultValueRow;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.table.sink.RowKindGenerator;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.RowKindFilter;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * Where Paimon's writer of a table puts a row, and in what form, without writing it: what a store
 * writer running ahead of Paimon's writer sends to the store, so that the store holds exactly what
 * Paimon writes.
 *
 * <p>Paimon does not offer this apart from its write ({@code TableWriteImpl#writeAndReturn} routes
 * and writes in one call), so its steps are taken here with Paimon's own parts, in its order, as of
 * Paimon 1.3.1: the check of non-null columns, the table's default values filled in ({@link
 * DefaultValueRow}), the row kind ({@link RowKindGenerator}, which {@code 'rowkind.field'} takes
 * from a column), the kinds the table drops ({@link RowKindFilter}: {@code 'ignore-delete'}, {@code
 * 'ignore-update-before'}), then the partition and bucket ({@link
 * FileStoreTable#createRowKeyExtractor}). The sink's tests compare the store with Paimon's
 * snapshots for each of these.
 */
final class PaimonWriteRouting {

    private final RowType rowType;
    private final int[] notNullFields;
    @Nullable private final DefaultValueRow defaultValues;
    @Nullable private final RowKindGenerator rowKindGenerator;
    @Nullable private final RowKindFilter rowKindFilter;
    private final KeyAndBucketExtractor<InternalRow> extractor;
    private final boolean appendOnly;

    private InternalRow row;
    private RowKind kind;

    PaimonWriteRouting(FileStoreTable table) {
        this.rowType = table.rowType();
        List<String> notNull = new ArrayList<>();
        for (DataField field : rowType.getFields()) {
            if (!field.type().isNullable()) {
                notNull.add(field.name());
            }
        }
        this.notNullFields = rowType.getFieldIndices(notNull);
        this.defaultValues = DefaultValueRow.create(rowType);
        this.rowKindGenerator = RowKindGenerator.create(table.schema(), table.coreOptions());
        this.rowKindFilter = RowKindFilter.of(table.coreOptions());
        this.extractor = table.createRowKeyExtractor();
        this.appendOnly = table.primaryKeys().isEmpty();
    }

    /**
     * Routes {@code input}; false when Paimon's writer drops it. After true, {@link #row}, {@link
     * #kind}, {@link #partition} and {@link #bucket} describe it until the next call.
     *
     * @throws RuntimeException for a null in a non-null column, or a retraction into an append
     *     table, which Paimon's writer refuses too
     */
    boolean route(InternalRow input) {
        for (int field : notNullFields) {
            if (input.isNullAt(field)) {
                throw new IllegalArgumentException(
                        String.format(
                                "Cannot write null to non-null column(%s)",
                                rowType.getFields().get(field).name()));
            }
        }
        row = defaultValues == null ? input : defaultValues.replaceRow(input);
        kind = RowKindGenerator.getRowKind(rowKindGenerator, row);
        if (rowKindFilter != null && !rowKindFilter.test(kind)) {
            return false;
        }
        if (appendOnly && !kind.isAdd()) {
            // Paimon's append writer refuses it as it writes (its record extractor's check)
            throw new IllegalStateException(
                    String.format("Append only writer can not accept row with RowKind %s", kind));
        }
        extractor.setRecord(row);
        return true;
    }

    /** The row Paimon writes: the input with the table's default values filled in. */
    InternalRow row() {
        return row;
    }

    /** The kind Paimon writes the row with. */
    RowKind kind() {
        return kind;
    }

    BinaryRow partition() {
        return extractor.partition();
    }

    int bucket() {
        return extractor.bucket();
    }
}
