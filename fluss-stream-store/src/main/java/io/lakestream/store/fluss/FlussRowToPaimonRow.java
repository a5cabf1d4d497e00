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

import org.apache.paimon.casting.CastExecutor;
import org.apache.paimon.casting.CastExecutors;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowKind;

import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;
import org.apache.fluss.types.CharType;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DecimalType;
import org.apache.fluss.types.LocalZonedTimestampType;
import org.apache.fluss.types.TimestampType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Copies a Fluss row of a stream table into a Paimon {@link GenericRow} in the Paimon table's
 * column order, with the row kind taken from the row-kind column of primary-key tables. It copies
 * rather than wraps because the scanner's rows may point into fetch buffers that the next poll
 * reuses, while Paimon's merge and Flink's emitter keep rows longer.
 *
 * <p>A record is read as Paimon reads a data file ({@code SchemaEvolutionUtil}): a field whose type
 * in the schema the record was written under (its schema-id column) differs from the reader's,
 * nullability aside, is cast with Paimon's cast from the one to the other; a field of the same type
 * is read as written, never padded or cut to its length (Paimon enforces no length on write and
 * returns such values whole from a file of the same schema). A record without a schema id (written
 * before stream tables kept it) is read by its column's type: cast only where the column was
 * created for another type of the field.
 */
final class FlussRowToPaimonRow {

    /** Reads one field of a Fluss row as the Paimon value of the same column. */
    private interface FieldConverter {
        Object convert(InternalRow row, int pos);
    }

    private final FlussColumnMapping mapping;
    private final FieldConverter[] converters;
    private final int[] flussPositions;
    private final int rowKindPosition;
    private final int schemaIdPosition;
    private final long readSchemaId;

    /** The converters of records written under another schema than the reader's, by its id. */
    private final Map<Long, FieldConverter[]> convertersBySchema = new HashMap<>();

    FlussRowToPaimonRow(FlussColumnMapping mapping) {
        this.mapping = mapping;
        List<DataType> paimonColumnTypes = mapping.paimonColumnTypes();
        List<DataType> flussColumnTypes = mapping.flussColumnTypes();
        this.converters = new FieldConverter[paimonColumnTypes.size()];
        this.flussPositions = new int[converters.length];
        for (int i = 0; i < converters.length; i++) {
            DataType columnType = flussColumnTypes.get(i);
            FieldConverter read = converter(columnType);
            if (!FlussColumnMapping.sameType(columnType, paimonColumnTypes.get(i))) {
                read = casting(read, FlussTypes.toPaimon(columnType), mapping.paimonFieldType(i));
            }
            converters[i] = read;
            flussPositions[i] = mapping.flussPosition(i);
        }
        this.rowKindPosition = mapping.rowKindPosition();
        this.schemaIdPosition = mapping.schemaIdPosition();
        this.readSchemaId = mapping.spec().schemaId();
        convertersBySchema.put(readSchemaId, converters);
    }

    org.apache.paimon.data.InternalRow convert(InternalRow flussRow) {
        FieldConverter[] read = converters;
        if (schemaIdPosition != FlussColumnMapping.ABSENT
                && readSchemaId != StreamTableSpec.UNKNOWN_SCHEMA_ID
                && !flussRow.isNullAt(schemaIdPosition)) {
            long writeSchemaId = flussRow.getLong(schemaIdPosition);
            if (writeSchemaId != readSchemaId) {
                read = convertersBySchema.computeIfAbsent(writeSchemaId, this::convertersOf);
            }
        }
        GenericRow row = new GenericRow(read.length);
        for (int i = 0; i < read.length; i++) {
            int pos = flussPositions[i];
            row.setField(i, flussRow.isNullAt(pos) ? null : read[i].convert(flussRow, pos));
        }
        if (rowKindPosition != FlussColumnMapping.ABSENT) {
            row.setRowKind(RowKind.fromByteValue(flussRow.getByte(rowKindPosition)));
        }
        return row;
    }

    /**
     * The converters of records written under schema {@code writeSchemaId}: Paimon's cast from a
     * field's type in that schema to its type in the reader's, where the two differ and the column
     * holds the written type as it is; the column-type converters elsewhere, and for all fields
     * when the schema cannot be read.
     */
    private FieldConverter[] convertersOf(long writeSchemaId) {
        Optional<org.apache.paimon.types.RowType> written =
                mapping.spec().rowTypeOfSchema(writeSchemaId);
        if (!written.isPresent()) {
            return converters;
        }
        List<DataType> flussColumnTypes = mapping.flussColumnTypes();
        FieldConverter[] bySchema = converters.clone();
        List<DataField> readFields = mapping.spec().rowType().getFields();
        for (int i = 0; i < bySchema.length; i++) {
            DataField readField = readFields.get(i);
            if (!written.get().containsField(readField.id())) {
                continue;
            }
            DataField writtenField = written.get().getField(readField.id());
            if (writtenField.type().equalsIgnoreNullable(readField.type())
                    || !FlussColumnMapping.sameType(
                            flussColumnTypes.get(i),
                            FlussTypes.toFluss(mapping.spec(), writtenField))) {
                continue;
            }
            bySchema[i] =
                    casting(
                            converter(flussColumnTypes.get(i)),
                            writtenField.type(),
                            readField.type());
        }
        return bySchema;
    }

    /**
     * Reads a value of Paimon type {@code from} as type {@code fieldType}, with the cast Paimon's
     * readers apply to a data file written under a schema where the field had type {@code from}.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static FieldConverter casting(
            FieldConverter read,
            org.apache.paimon.types.DataType from,
            org.apache.paimon.types.DataType fieldType) {
        CastExecutor cast = CastExecutors.resolve(from, fieldType);
        if (cast == null) {
            throw new StreamStoreException(
                    String.format(
                            "A stream value of type %s cannot be read as %s: Paimon has no cast "
                                    + "between the two.",
                            from, fieldType));
        }
        return (row, pos) -> cast.cast(read.convert(row, pos));
    }

    private static FieldConverter converter(DataType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return InternalRow::getBoolean;
            case TINYINT:
                return InternalRow::getByte;
            case SMALLINT:
                return InternalRow::getShort;
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return InternalRow::getInt;
            case BIGINT:
                return InternalRow::getLong;
            case FLOAT:
                return InternalRow::getFloat;
            case DOUBLE:
                return InternalRow::getDouble;
            case CHAR:
                int length = ((CharType) type).getLength();
                return (row, pos) -> BinaryString.fromBytes(row.getChar(pos, length).toBytes());
            case STRING:
                return (row, pos) -> BinaryString.fromBytes(row.getString(pos).toBytes());
            case BINARY:
            case BYTES:
                return InternalRow::getBytes;
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                int precision = decimal.getPrecision();
                int scale = decimal.getScale();
                return (row, pos) ->
                        Decimal.fromBigDecimal(
                                row.getDecimal(pos, precision, scale).toBigDecimal(),
                                precision,
                                scale);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                int ntzPrecision = ((TimestampType) type).getPrecision();
                return (row, pos) -> {
                    TimestampNtz ts = row.getTimestampNtz(pos, ntzPrecision);
                    return Timestamp.fromEpochMillis(
                            ts.getMillisecond(), ts.getNanoOfMillisecond());
                };
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                int ltzPrecision = ((LocalZonedTimestampType) type).getPrecision();
                return (row, pos) -> {
                    TimestampLtz ts = row.getTimestampLtz(pos, ltzPrecision);
                    return Timestamp.fromEpochMillis(
                            ts.getEpochMillisecond(), ts.getNanoOfMillisecond());
                };
            default:
                throw new IllegalArgumentException("Unsupported stream table type " + type);
        }
    }
}
