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

package io.lakestream.spark.types;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimestampType;

import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

import java.io.Serializable;
import java.util.List;

/**
 * Copies a Paimon row into a Spark row with the values Spark expects of the types {@link
 * SparkTypes} maps: strings as {@code UTF8String}, decimals as Spark's {@code Decimal}, dates as
 * days, timestamps as microseconds. A copy, not a view: the Paimon readers reuse their rows.
 * Written by hand, as {@link SparkTypes} is.
 */
public final class SparkRowConverter implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Reads one field of a Paimon row as Spark's value. */
    @FunctionalInterface
    private interface FieldReader extends Serializable {
        Object read(InternalRow row, int pos);
    }

    /**
     * The position in a projection of the row kind ({@code +I}, {@code -U}, {@code +U}, {@code -D})
     * as a string: the {@code rowkind} column of a table's {@code $audit_log}.
     */
    public static final int ROW_KIND = -1;

    private final int[] projection;
    private final FieldReader[] readers;

    /**
     * @param rowType the Paimon rows' type
     * @param projection the positions in those rows of the Spark row's fields, in its order; {@link
     *     #ROW_KIND} for the row kind
     */
    public SparkRowConverter(RowType rowType, int[] projection) {
        this.projection = projection;
        List<DataType> types = rowType.getFieldTypes();
        this.readers = new FieldReader[projection.length];
        for (int i = 0; i < projection.length; i++) {
            readers[i] =
                    projection[i] == ROW_KIND
                            ? (row, pos) -> UTF8String.fromString(row.getRowKind().shortString())
                            : reader(types.get(projection[i]));
        }
    }

    /** Spark's copy of {@code row}'s projected fields. */
    public org.apache.spark.sql.catalyst.InternalRow convert(InternalRow row) {
        Object[] values = new Object[projection.length];
        for (int i = 0; i < projection.length; i++) {
            int pos = projection[i];
            values[i] = pos != ROW_KIND && row.isNullAt(pos) ? null : readers[i].read(row, pos);
        }
        return new GenericInternalRow(values);
    }

    private static FieldReader reader(DataType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return InternalRow::getBoolean;
            case TINYINT:
                return InternalRow::getByte;
            case SMALLINT:
                return InternalRow::getShort;
            case INTEGER:
            case DATE:
                return InternalRow::getInt;
            case BIGINT:
                return InternalRow::getLong;
            case FLOAT:
                return InternalRow::getFloat;
            case DOUBLE:
                return InternalRow::getDouble;
            case DECIMAL:
                int precision = ((DecimalType) type).getPrecision();
                int scale = ((DecimalType) type).getScale();
                return (row, pos) ->
                        Decimal.apply(
                                row.getDecimal(pos, precision, scale).toBigDecimal(),
                                precision,
                                scale);
            case CHAR:
            case VARCHAR:
                return (row, pos) -> UTF8String.fromBytes(row.getString(pos).toBytes());
            case BINARY:
            case VARBINARY:
                return InternalRow::getBinary;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                int ntzPrecision = ((TimestampType) type).getPrecision();
                return (row, pos) -> row.getTimestamp(pos, ntzPrecision).toMicros();
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                int ltzPrecision = ((LocalZonedTimestampType) type).getPrecision();
                return (row, pos) -> row.getTimestamp(pos, ltzPrecision).toMicros();
            default:
                // SparkTypes refused the table's schema already
                throw new UnsupportedOperationException("Unsupported type " + type);
        }
    }
}
