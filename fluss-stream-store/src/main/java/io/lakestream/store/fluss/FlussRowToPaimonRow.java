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

import io.lakestream.flink.store.StreamStoreException;

import org.apache.paimon.casting.CastExecutor;
import org.apache.paimon.casting.CastExecutors;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.RowKind;

import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;
import org.apache.fluss.types.CharType;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DecimalType;
import org.apache.fluss.types.LocalZonedTimestampType;
import org.apache.fluss.types.TimestampType;

import java.util.List;

/**
 * Copies a Fluss row of a stream table into a Paimon {@link GenericRow} in the Paimon table's
 * column order, with the row kind taken from the row-kind column of primary-key tables. It copies
 * rather than wraps because the scanner's rows may point into fetch buffers that the next poll
 * reuses, while Paimon's merge and Flink's emitter keep rows longer.
 */
final class FlussRowToPaimonRow {

    /** Reads one field of a Fluss row as the Paimon value of the same column. */
    private interface FieldConverter {
        Object convert(InternalRow row, int pos);
    }

    private final FieldConverter[] converters;
    private final int[] flussPositions;
    private final int rowKindPosition;

    FlussRowToPaimonRow(FlussColumnMapping mapping) {
        List<DataType> paimonColumnTypes = mapping.paimonColumnTypes();
        List<DataType> flussColumnTypes = mapping.flussColumnTypes();
        this.converters = new FieldConverter[paimonColumnTypes.size()];
        this.flussPositions = new int[converters.length];
        for (int i = 0; i < converters.length; i++) {
            DataType columnType = flussColumnTypes.get(i);
            FieldConverter read = converter(columnType);
            // Compared as Fluss types: the column of a CHAR(n), VARCHAR(n), BINARY(n) or
            // VARBINARY(n) field is unbounded, and a value is read as written, never padded or
            // cut to the field's length. Paimon does not enforce lengths on write either and
            // returns such values whole from a file of the same schema; a record does not say
            // which schema it was written under, so the cast Paimon applies to a file written
            // under a wider type (VARCHAR(5) read from a STRING file: cut) is not applied.
            if (!FlussColumnMapping.sameType(columnType, paimonColumnTypes.get(i))) {
                read = casting(read, columnType, mapping.paimonFieldType(i));
            }
            converters[i] = read;
            flussPositions[i] = mapping.flussPosition(i);
        }
        this.rowKindPosition = mapping.rowKindPosition();
    }

    org.apache.paimon.data.InternalRow convert(InternalRow flussRow) {
        GenericRow row = new GenericRow(converters.length);
        for (int i = 0; i < converters.length; i++) {
            int pos = flussPositions[i];
            row.setField(i, flussRow.isNullAt(pos) ? null : converters[i].convert(flussRow, pos));
        }
        if (rowKindPosition != FlussColumnMapping.ABSENT) {
            row.setRowKind(RowKind.fromByteValue(flussRow.getByte(rowKindPosition)));
        }
        return row;
    }

    /**
     * Reads a column created for an earlier type of its field as the field's type now, with the
     * cast Paimon's readers apply to a data file written under the earlier schema.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static FieldConverter casting(
            FieldConverter read, DataType columnType, org.apache.paimon.types.DataType fieldType) {
        org.apache.paimon.types.DataType from = FlussTypes.toPaimon(columnType);
        CastExecutor cast = CastExecutors.resolve(from, fieldType);
        if (cast == null) {
            throw new StreamStoreException(
                    String.format(
                            "A stream column of type %s cannot be read as %s: Paimon has no cast "
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
