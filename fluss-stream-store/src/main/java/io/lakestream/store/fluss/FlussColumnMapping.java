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

package io.lakestream.store.fluss;

import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.types.DataField;

import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.RowType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Where each field of a Paimon table sits in a Fluss row of its stream table. Fields are matched by
 * Paimon field id ({@link FlussColumnIds}), not by name or position: a column keeps the name and
 * position it was created with, while Paimon renames, moves, drops and adds fields (Fluss appends
 * every added column at the end, after the row-kind column of a primary-key table, and can neither
 * rename nor drop one). A Fluss column that holds no field of the job's Paimon schema (a field
 * added after the job was planned, or one dropped since) is written as null and skipped on read, as
 * Paimon's own readers and writers treat fields their schema does not know. A column whose type is
 * not the field's own (the field's type changed after the column was created) is read with Paimon's
 * cast ({@link FlussRowToPaimonRow}) and refused for writing ({@link #checkWritable}).
 */
final class FlussColumnMapping {

    /** In {@link #paimonPositions}: the Fluss column holds the row kind. */
    static final int ROW_KIND = -2;

    /** In {@link #paimonPositions}: the Fluss column is not a column of the Paimon schema. */
    static final int ABSENT = -1;

    /** In {@link #paimonPositions}: the Fluss column holds the writer's Paimon schema id. */
    static final int SCHEMA_ID = -3;

    private final StreamTableSpec spec;
    private final int[] flussPositions;
    private final int[] paimonPositions;
    private final int rowKindPosition;
    private final int schemaIdPosition;
    private final List<DataType> paimonColumnTypes;
    private final List<DataType> flussColumnTypes;

    /** The mapping of a stream table that records no field ids: every column matched by name. */
    FlussColumnMapping(StreamTableSpec spec, RowType flussRowType) {
        this(spec, columnsOf(flussRowType), Collections.emptyMap());
    }

    /** The mapping of the stream table {@code info}. */
    FlussColumnMapping(StreamTableSpec spec, TableInfo info) {
        this(spec, info.getSchema().getColumns(), info.getCustomProperties().toMap());
    }

    /**
     * @throws StreamStoreException when a Paimon field has no column in the Fluss row
     */
    FlussColumnMapping(
            StreamTableSpec spec, List<Schema.Column> columns, Map<String, String> properties) {
        this.spec = spec;
        this.paimonColumnTypes = FlussTypes.toFluss(spec);
        int[] fieldIds = FlussColumnIds.of(spec, columns, properties);
        List<DataField> fields = spec.rowType().getFields();
        this.flussPositions = new int[fields.size()];
        this.flussColumnTypes = new ArrayList<>();
        this.paimonPositions = new int[columns.size()];
        Arrays.fill(paimonPositions, ABSENT);
        for (int i = 0; i < fields.size(); i++) {
            int position = indexOf(fieldIds, fields.get(i).id());
            if (position < 0) {
                throw new StreamStoreException(
                        String.format(
                                "The stream table of Paimon table %s lacks a column for field "
                                        + "'%s' (field id %d).",
                                spec.identifier().getFullName(),
                                fields.get(i).name(),
                                fields.get(i).id()));
            }
            flussPositions[i] = position;
            paimonPositions[position] = i;
            flussColumnTypes.add(columns.get(position).getDataType());
        }
        int kindPosition = ABSENT;
        int idPosition = ABSENT;
        for (int position = 0; position < columns.size(); position++) {
            String name = columns.get(position).getName();
            if (spec.hasPrimaryKey() && FlussStreamTableLayout.ROW_KIND_COLUMN.equals(name)) {
                kindPosition = position;
                paimonPositions[position] = ROW_KIND;
            } else if (FlussStreamTableLayout.SCHEMA_ID_COLUMN.equals(name)) {
                idPosition = position;
                paimonPositions[position] = SCHEMA_ID;
            }
        }
        this.rowKindPosition = kindPosition;
        this.schemaIdPosition = idPosition;
        if (spec.hasPrimaryKey() && rowKindPosition < 0) {
            throw new StreamStoreException(
                    String.format(
                            "The stream table of primary-key table %s lacks the column '%s'.",
                            spec.identifier().getFullName(),
                            FlussStreamTableLayout.ROW_KIND_COLUMN));
        }
    }

    private static List<Schema.Column> columnsOf(RowType rowType) {
        List<Schema.Column> columns = new ArrayList<>();
        for (int i = 0; i < rowType.getFieldCount(); i++) {
            columns.add(new Schema.Column(rowType.getFieldNames().get(i), rowType.getTypeAt(i)));
        }
        return columns;
    }

    private static int indexOf(int[] fieldIds, int fieldId) {
        for (int position = 0; position < fieldIds.length; position++) {
            if (fieldIds[position] == fieldId) {
                return position;
            }
        }
        return -1;
    }

    /**
     * Checks that every field can be written into its column: a column created for another type of
     * the field (before a type change that Fluss cannot follow) cannot hold the field's values.
     *
     * @throws StreamStoreException naming the table, the field and both types
     */
    void checkWritable() {
        for (int i = 0; i < flussPositions.length; i++) {
            if (!sameType(flussColumnTypes.get(i), paimonColumnTypes.get(i))) {
                DataField field = spec.rowType().getFields().get(i);
                throw new StreamStoreException(
                        String.format(
                                "Field '%s' of table %s has type %s, but its stream column holds "
                                        + "%s and Fluss cannot change a column's type. Committed "
                                        + "data stays readable; to write the table in lake-stream "
                                        + "mode again, run CALL sys.disable_lake_stream(`table` => "
                                        + "'%s', drop_stream_table => true) once no job writes "
                                        + "it, then enable it again.",
                                field.name(),
                                spec.identifier().getFullName(),
                                field.type(),
                                flussColumnTypes.get(i),
                                spec.identifier().getFullName()));
            }
        }
    }

    /** Whether a column of type {@code column} holds values of type {@code field} as they are. */
    static boolean sameType(DataType column, DataType field) {
        return column.copy(true).equals(field.copy(true));
    }

    private FlussColumnMapping(List<DataType> types) {
        this.spec = null;
        this.paimonColumnTypes = types;
        this.flussColumnTypes = types;
        this.flussPositions = IntStream.range(0, types.size()).toArray();
        this.paimonPositions = flussPositions;
        this.rowKindPosition = ABSENT;
        this.schemaIdPosition = ABSENT;
    }

    /** The mapping of a row whose Paimon and Fluss columns are the same, in the same order. */
    static FlussColumnMapping identity(List<DataType> types) {
        return new FlussColumnMapping(types);
    }

    /** The number of columns of a Fluss row. */
    int flussFieldCount() {
        return paimonPositions.length;
    }

    /** The Fluss position of Paimon column {@code paimonPosition}. */
    int flussPosition(int paimonPosition) {
        return flussPositions[paimonPosition];
    }

    /**
     * The Paimon position of Fluss column {@code flussPosition}, or {@link #ROW_KIND}, {@link
     * #SCHEMA_ID} or {@link #ABSENT}.
     */
    int paimonPosition(int flussPosition) {
        return paimonPositions[flussPosition];
    }

    /** The Fluss position of the row-kind column; {@link #ABSENT} for append tables. */
    int rowKindPosition() {
        return rowKindPosition;
    }

    /**
     * The Fluss position of the column that holds each record's Paimon schema id; {@link #ABSENT}
     * when the stream table, as this mapping's client sees it, has none.
     */
    int schemaIdPosition() {
        return schemaIdPosition;
    }

    /** The Paimon schema the rows of this mapping are written and read with. */
    StreamTableSpec spec() {
        return spec;
    }

    boolean hasRowKind() {
        return rowKindPosition != ABSENT;
    }

    /** The Paimon type of field {@code paimonPosition} in the job's schema. */
    org.apache.paimon.types.DataType paimonFieldType(int paimonPosition) {
        return spec.rowType().getTypeAt(paimonPosition);
    }

    /** The Fluss types of the columns that hold the Paimon fields, in Paimon's order. */
    List<DataType> flussColumnTypes() {
        return flussColumnTypes;
    }

    /** The Fluss types of the Paimon columns, in Paimon's order. */
    List<DataType> paimonColumnTypes() {
        return paimonColumnTypes;
    }
}
