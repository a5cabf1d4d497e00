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

package io.lakestream.store.memory;

import org.apache.paimon.casting.CastExecutor;
import org.apache.paimon.casting.CastExecutors;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * Reads a row written under one row type as a row of a reader's row type, the way Paimon reads a
 * data file of an older schema: fields matched by id, a field the writer did not have is null, a
 * field whose type changed is cast with Paimon's {@link CastExecutors} (Paimon casts where the
 * types differ other than in nullability).
 */
final class WrittenRowConverter {

    private final int arity;
    private final InternalRow.FieldGetter[] getters;
    private final CastExecutor<Object, Object>[] casts;

    @SuppressWarnings("unchecked")
    WrittenRowConverter(RowType written, RowType read) {
        this.arity = read.getFieldCount();
        this.getters = new InternalRow.FieldGetter[arity];
        this.casts = new CastExecutor[arity];
        for (int i = 0; i < arity; i++) {
            DataField field = read.getFields().get(i);
            if (!written.containsField(field.id())) {
                continue;
            }
            DataField writtenField = written.getField(field.id());
            getters[i] =
                    InternalRow.createFieldGetter(
                            writtenField.type(), written.getFieldIndexByFieldId(field.id()));
            if (!writtenField.type().equalsIgnoreNullable(field.type())) {
                casts[i] =
                        (CastExecutor<Object, Object>)
                                CastExecutors.resolve(writtenField.type(), field.type());
            }
        }
    }

    /** Whether rows of the written type are read as they are. */
    static boolean isIdentity(RowType written, RowType read) {
        return written == read || written.equals(read);
    }

    InternalRow convert(BinaryRow row, RowKind kind) {
        GenericRow converted = new GenericRow(kind, arity);
        for (int i = 0; i < arity; i++) {
            if (getters[i] == null) {
                continue;
            }
            Object value = getters[i].getFieldOrNull(row);
            if (value != null && casts[i] != null) {
                value = casts[i].cast(value);
            }
            converted.setField(i, value);
        }
        return converted;
    }
}
