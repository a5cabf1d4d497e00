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

import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowType;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.List;

/**
 * Spark's type of each Paimon type a read returns, as Paimon's own Spark connector maps them
 * ({@code TIMESTAMP} to {@code TimestampNTZType}, {@code TIMESTAMP_LTZ} to {@code TimestampType}).
 * Written by hand: Paimon's Spark module, which has this mapping, is not a dependency here. Nested
 * and other types are refused, naming the table and the column.
 */
public final class SparkTypes {

    private SparkTypes() {}

    /** Spark's schema of a Paimon table's rows. */
    public static StructType toSpark(String table, RowType rowType) {
        List<DataField> fields = rowType.getFields();
        StructField[] sparkFields = new StructField[fields.size()];
        for (int i = 0; i < sparkFields.length; i++) {
            DataField field = fields.get(i);
            sparkFields[i] =
                    new StructField(
                            field.name(),
                            toSpark(table, field.name(), field.type()),
                            field.type().isNullable(),
                            Metadata.empty());
        }
        return new StructType(sparkFields);
    }

    private static org.apache.spark.sql.types.DataType toSpark(
            String table, String column, DataType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return DataTypes.BooleanType;
            case TINYINT:
                return DataTypes.ByteType;
            case SMALLINT:
                return DataTypes.ShortType;
            case INTEGER:
                return DataTypes.IntegerType;
            case BIGINT:
                return DataTypes.LongType;
            case FLOAT:
                return DataTypes.FloatType;
            case DOUBLE:
                return DataTypes.DoubleType;
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                return DataTypes.createDecimalType(decimal.getPrecision(), decimal.getScale());
            case CHAR:
            case VARCHAR:
                return DataTypes.StringType;
            case BINARY:
            case VARBINARY:
                return DataTypes.BinaryType;
            case DATE:
                return DataTypes.DateType;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return DataTypes.TimestampNTZType;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return DataTypes.TimestampType;
            default:
                throw new UnsupportedOperationException(
                        String.format(
                                "Column '%s' of table %s has type %s, which the lake-stream Spark "
                                        + "read does not read yet (it reads numbers, strings, "
                                        + "binaries, dates and timestamps).",
                                column, table, type));
        }
    }
}
