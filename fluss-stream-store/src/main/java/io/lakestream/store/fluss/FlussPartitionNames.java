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

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimestampType;

import org.apache.fluss.client.table.getter.PartitionGetter;
import org.apache.fluss.metadata.ResolvedPartitionSpec;
import org.apache.fluss.types.DataType;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;

/**
 * Names the Fluss partition of a Paimon partition, and finds the Paimon partition of a Fluss
 * partition name.
 *
 * <p>The name is computed by Fluss's own {@link PartitionGetter} on the Paimon partition row, so it
 * is by construction the name under which the Fluss writer files a row of that partition. Fluss has
 * no parser for its names, so the inverse is written here: it undoes Fluss's {@code
 * PartitionNameConverters} type by type, and a test round-trips every partition key type.
 */
final class FlussPartitionNames {

    /** Fluss's timestamp partition format: {@code yyyy-MM-dd-HH-mm-ss_<nanos>}. */
    private static final DateTimeFormatter TIMESTAMP_FORMAT =
            new DateTimeFormatterBuilder()
                    .appendPattern("yyyy-[MM]-[dd]")
                    .optionalStart()
                    .appendPattern("-[HH]-[mm]-[ss]_")
                    .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, false)
                    .optionalEnd()
                    .toFormatter();

    /**
     * 0001-01-01T00:00, the first instant Fluss can name: it formats timestamps by year of era
     * without the era, so year 0 (1 BC) is named like year 1, year -1 like year 2, and so on.
     */
    private static final long FIRST_NAMEABLE_TIMESTAMP_MILLIS =
            LocalDateTime.of(1, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC) * 1000;

    private final StreamTableSpec spec;
    private final RowType partitionType;
    private final PartitionGetter partitionGetter;
    private final PaimonRowAsFlussRow flussView;
    private final InternalRowSerializer partitionSerializer;

    FlussPartitionNames(StreamTableSpec spec) {
        this.spec = spec;
        this.partitionType = spec.partitionType();
        List<DataType> flussTypes = new ArrayList<>();
        for (DataField field : partitionType.getFields()) {
            flussTypes.add(FlussTypes.toFluss(spec, field));
        }
        this.partitionGetter =
                new PartitionGetter(
                        org.apache.fluss.types.RowType.of(
                                flussTypes.toArray(new DataType[0]),
                                spec.partitionKeys().toArray(new String[0])),
                        spec.partitionKeys());
        this.flussView = new PaimonRowAsFlussRow(FlussColumnMapping.identity(flussTypes));
        this.partitionSerializer = new InternalRowSerializer(partitionType);
    }

    /** The Fluss partition name of a Paimon partition row. */
    String nameOf(BinaryRow partition) {
        for (int i = 0; i < partition.getFieldCount(); i++) {
            if (partition.isNullAt(i)) {
                throw new StreamStoreException(
                        String.format(
                                "Partition column '%s' of table %s is null in a written row: the "
                                        + "Fluss stream store cannot hold a null partition value.",
                                spec.partitionKeys().get(i), spec.identifier().getFullName()));
            }
            checkNameable(partition, i);
        }
        // the partition columns have no row-kind column: the kind is never read
        return partitionGetter.getPartition(flussView.replace(partition, RowKind.INSERT));
    }

    /**
     * Refuses a timestamp before year 1: its Fluss name would be that of a partition in year 1 or
     * later, so its records would be filed into, and read back as, another partition.
     */
    private void checkNameable(BinaryRow partition, int pos) {
        org.apache.paimon.types.DataType type = partitionType.getTypeAt(pos);
        int precision;
        switch (type.getTypeRoot()) {
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                precision = ((TimestampType) type).getPrecision();
                break;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                precision = ((LocalZonedTimestampType) type).getPrecision();
                break;
            default:
                return;
        }
        Timestamp value = partition.getTimestamp(pos, precision);
        if (value.getMillisecond() < FIRST_NAMEABLE_TIMESTAMP_MILLIS) {
            throw new StreamStoreException(
                    String.format(
                            "Partition column '%s' of table %s is %s in a written row: the Fluss "
                                    + "stream store cannot hold a partition value before "
                                    + "0001-01-01, because Fluss names such a partition like one "
                                    + "of year 1 or later.",
                            spec.partitionKeys().get(pos), spec.identifier().getFullName(), value));
        }
    }

    /** The Paimon partition row of a Fluss partition name. */
    BinaryRow partitionOf(String partitionName) {
        List<String> values =
                ResolvedPartitionSpec.fromPartitionName(spec.partitionKeys(), partitionName)
                        .getPartitionValues();
        GenericRow row = new GenericRow(values.size());
        for (int i = 0; i < values.size(); i++) {
            row.setField(i, parse(partitionType.getTypeAt(i), values.get(i)));
        }
        return partitionSerializer.toBinaryRow(row).copy();
    }

    private static Object parse(org.apache.paimon.types.DataType type, String value) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString(value);
            case BOOLEAN:
                return Boolean.parseBoolean(value);
            case BINARY:
            case VARBINARY:
                return hexToBytes(value);
            case TINYINT:
                return Byte.parseByte(value);
            case SMALLINT:
                return Short.parseShort(value);
            case INTEGER:
                return Integer.parseInt(value);
            case BIGINT:
                return Long.parseLong(value);
            case FLOAT:
                // parsed as a float, not as a double narrowed to float: the double nearest to
                // Java's shortest float literal can round to the neighbouring float (7.038531E-26)
                return Float.parseFloat(javaFloatingPointLiteral(value));
            case DOUBLE:
                return Double.parseDouble(javaFloatingPointLiteral(value));
            case DATE:
                // yyyy-MM-dd with a year of at least four digits, signed when negative: parsed by
                // hand because the ISO parser wants a '+' before five-digit years and four digits
                // after a '-', which Fluss's "%04d" does not write
                int dayStart = value.length() - 2;
                int monthStart = value.length() - 5;
                return (int)
                        LocalDate.of(
                                        Integer.parseInt(value.substring(0, monthStart - 1)),
                                        Integer.parseInt(value.substring(monthStart, dayStart - 1)),
                                        Integer.parseInt(value.substring(dayStart)))
                                .toEpochDay();
            case TIME_WITHOUT_TIME_ZONE:
                // HH-mm-ss_SSS
                int hours = Integer.parseInt(value.substring(0, 2));
                int minutes = Integer.parseInt(value.substring(3, 5));
                int seconds = Integer.parseInt(value.substring(6, 8));
                int millis = Integer.parseInt(value.substring(9));
                return ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                LocalDateTime dateTime = LocalDateTime.parse(value, TIMESTAMP_FORMAT);
                long epochSecond = dateTime.toEpochSecond(ZoneOffset.UTC);
                int nanos = dateTime.getNano();
                return Timestamp.fromEpochMillis(
                        epochSecond * 1000 + nanos / 1_000_000, nanos % 1_000_000);
            default:
                throw new IllegalArgumentException(
                        "Unsupported partition key type " + type + " for value " + value);
        }
    }

    /** Undoes Fluss's spelling of a float or double: "NaN", "Inf", "-Inf", '_' for '.'. */
    private static String javaFloatingPointLiteral(String value) {
        switch (value) {
            case "Inf":
                return "Infinity";
            case "-Inf":
                return "-Infinity";
            default:
                return value.replace('_', '.');
        }
    }

    private static byte[] hexToBytes(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }
}
