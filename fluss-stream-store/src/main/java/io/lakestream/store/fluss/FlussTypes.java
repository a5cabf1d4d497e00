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
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.TimeType;
import org.apache.paimon.types.TimestampType;

import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypes;

import java.util.ArrayList;
import java.util.List;

/**
 * Maps Paimon column types to the Fluss types of the stream table. Written here because Fluss only
 * ships the opposite direction (Fluss to Paimon, for tiering). VARCHAR(n) and VARBINARY(n) become
 * Fluss's unbounded STRING and BYTES: Fluss has no bounded variants, and the Paimon writer enforces
 * the bound before a row reaches the store. CHAR(n) and BINARY(n) become STRING and BYTES too:
 * Fluss's indexed log format stores them in n bytes, padding a shorter value with zero bytes that
 * do not come back as written and failing on a CHAR value whose UTF-8 form is longer than n bytes.
 * Both encode a bucket key alike in Paimon's format, so bucketing does not change.
 */
final class FlussTypes {

    /** The Paimon type roots that the Fluss stream store holds. */
    static final String SUPPORTED =
            "BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, CHAR, VARCHAR, "
                    + "BINARY, VARBINARY, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ";

    private FlussTypes() {}

    /** The Fluss type of every column of {@code spec}, in order. */
    static List<DataType> toFluss(StreamTableSpec spec) {
        List<DataType> types = new ArrayList<>();
        for (DataField field : spec.rowType().getFields()) {
            types.add(toFluss(spec, field));
        }
        return types;
    }

    static DataType toFluss(StreamTableSpec spec, DataField field) {
        org.apache.paimon.types.DataType type = field.type();
        DataType fluss;
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                fluss = DataTypes.BOOLEAN();
                break;
            case TINYINT:
                fluss = DataTypes.TINYINT();
                break;
            case SMALLINT:
                fluss = DataTypes.SMALLINT();
                break;
            case INTEGER:
                fluss = DataTypes.INT();
                break;
            case BIGINT:
                fluss = DataTypes.BIGINT();
                break;
            case FLOAT:
                fluss = DataTypes.FLOAT();
                break;
            case DOUBLE:
                fluss = DataTypes.DOUBLE();
                break;
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                fluss = DataTypes.DECIMAL(decimal.getPrecision(), decimal.getScale());
                break;
            case CHAR:
            case VARCHAR:
                fluss = DataTypes.STRING();
                break;
            case BINARY:
            case VARBINARY:
                fluss = DataTypes.BYTES();
                break;
            case DATE:
                fluss = DataTypes.DATE();
                break;
            case TIME_WITHOUT_TIME_ZONE:
                fluss = DataTypes.TIME(((TimeType) type).getPrecision());
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                fluss = DataTypes.TIMESTAMP(((TimestampType) type).getPrecision());
                break;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                fluss = DataTypes.TIMESTAMP_LTZ(((LocalZonedTimestampType) type).getPrecision());
                break;
            default:
                throw new StreamStoreException(
                        String.format(
                                "Column '%s' of table %s has type %s, which the Fluss stream store "
                                        + "cannot hold. Supported types: %s.",
                                field.name(), spec.identifier().getFullName(), type, SUPPORTED));
        }
        return fluss.copy(type.isNullable());
    }

    /**
     * The Paimon type whose values a stream column of Fluss type {@code type} holds as they are:
     * the source type of the cast that reads the column as a field's later type. STRING and BYTES
     * stand for every length, as they do in {@link #toFluss}.
     */
    static org.apache.paimon.types.DataType toPaimon(DataType type) {
        org.apache.paimon.types.DataType paimon;
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                paimon = org.apache.paimon.types.DataTypes.BOOLEAN();
                break;
            case TINYINT:
                paimon = org.apache.paimon.types.DataTypes.TINYINT();
                break;
            case SMALLINT:
                paimon = org.apache.paimon.types.DataTypes.SMALLINT();
                break;
            case INTEGER:
                paimon = org.apache.paimon.types.DataTypes.INT();
                break;
            case BIGINT:
                paimon = org.apache.paimon.types.DataTypes.BIGINT();
                break;
            case FLOAT:
                paimon = org.apache.paimon.types.DataTypes.FLOAT();
                break;
            case DOUBLE:
                paimon = org.apache.paimon.types.DataTypes.DOUBLE();
                break;
            case DECIMAL:
                org.apache.fluss.types.DecimalType decimal =
                        (org.apache.fluss.types.DecimalType) type;
                paimon =
                        org.apache.paimon.types.DataTypes.DECIMAL(
                                decimal.getPrecision(), decimal.getScale());
                break;
            case STRING:
                paimon = org.apache.paimon.types.DataTypes.STRING();
                break;
            case BYTES:
                paimon = org.apache.paimon.types.DataTypes.BYTES();
                break;
            case DATE:
                paimon = org.apache.paimon.types.DataTypes.DATE();
                break;
            case TIME_WITHOUT_TIME_ZONE:
                paimon =
                        org.apache.paimon.types.DataTypes.TIME(
                                ((org.apache.fluss.types.TimeType) type).getPrecision());
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                paimon =
                        org.apache.paimon.types.DataTypes.TIMESTAMP(
                                ((org.apache.fluss.types.TimestampType) type).getPrecision());
                break;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                paimon =
                        org.apache.paimon.types.DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(
                                ((org.apache.fluss.types.LocalZonedTimestampType) type)
                                        .getPrecision());
                break;
            default:
                throw new IllegalArgumentException("Unsupported stream column type " + type);
        }
        return paimon.copy(type.isNullable());
    }
}
