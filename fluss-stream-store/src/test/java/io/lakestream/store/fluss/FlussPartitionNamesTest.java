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

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.codegen.CodeGenUtils;
import org.apache.paimon.codegen.Projection;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Fluss partition name of every Paimon partition maps back to that partition, for every type
 * Fluss takes as a partition key: the reader and {@code listPartitions} only know a partition by
 * the name Fluss filed it under, so a lossy name would put records into the wrong partition.
 */
class FlussPartitionNamesTest {

    private static final Identifier TABLE = Identifier.create("names_db", "all_key_types");

    /** One partition key column per type, with the values its names must round-trip. */
    private static final class KeyColumn {
        final String name;
        final DataType type;
        final List<Object> values;

        KeyColumn(String name, DataType type, Object... values) {
            this.name = name;
            this.type = type;
            this.values = Arrays.asList(values);
        }
    }

    private static final List<KeyColumn> KEYS =
            Arrays.asList(
                    new KeyColumn(
                            "p_string",
                            DataTypes.STRING(),
                            str("2024-01-01"),
                            str("a"),
                            str("A_b-9"),
                            // longer than 7 bytes: kept outside the fixed part of the row
                            str("a-rather-long-partition-value_0123456789")),
                    new KeyColumn("p_char", DataTypes.CHAR(5), str("ab"), str("abcde")),
                    new KeyColumn("p_boolean", DataTypes.BOOLEAN(), true, false),
                    new KeyColumn(
                            "p_binary",
                            DataTypes.BINARY(3),
                            new byte[] {0, 1, 2},
                            new byte[] {-1, -128, 127},
                            new byte[] {0, 0, 0}),
                    new KeyColumn(
                            "p_varbinary",
                            DataTypes.VARBINARY(10),
                            new byte[] {(byte) 0xff},
                            new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                            new byte[] {0}),
                    new KeyColumn(
                            "p_tinyint",
                            DataTypes.TINYINT(),
                            Byte.MIN_VALUE,
                            (byte) -1,
                            (byte) 0,
                            Byte.MAX_VALUE),
                    new KeyColumn(
                            "p_smallint",
                            DataTypes.SMALLINT(),
                            Short.MIN_VALUE,
                            (short) -7,
                            (short) 0,
                            Short.MAX_VALUE),
                    new KeyColumn(
                            "p_int",
                            DataTypes.INT(),
                            Integer.MIN_VALUE,
                            -1,
                            0,
                            42,
                            Integer.MAX_VALUE),
                    new KeyColumn(
                            "p_bigint",
                            DataTypes.BIGINT(),
                            Long.MIN_VALUE,
                            -1L,
                            0L,
                            1_700_000_000_000L,
                            Long.MAX_VALUE),
                    new KeyColumn(
                            "p_date",
                            DataTypes.DATE(),
                            // Fluss writes years with "%04d": "-001-03-01" and "10000-01-01"
                            date(-1, 3, 1),
                            date(10000, 1, 1),
                            date(0, 1, 1),
                            date(1, 1, 1),
                            date(1900, 2, 28),
                            date(1969, 12, 31),
                            date(1970, 1, 1),
                            date(2024, 2, 29),
                            date(9999, 12, 31)),
                    new KeyColumn(
                            "p_time",
                            DataTypes.TIME(),
                            time(LocalTime.MIDNIGHT),
                            time(LocalTime.of(0, 0, 0, 1_000_000)),
                            time(LocalTime.NOON),
                            time(LocalTime.of(23, 59, 59, 999_000_000))),
                    new KeyColumn(
                            "p_float",
                            DataTypes.FLOAT(),
                            -1.5f,
                            0f,
                            -0f,
                            0.1f,
                            1.0E10f,
                            -1.0E-10f,
                            1 / 3f,
                            // the double nearest to "7.038531E-26" narrows to 7.0385313E-26f
                            7.038531E-26f,
                            Float.MIN_VALUE,
                            Float.MAX_VALUE,
                            Float.NaN,
                            Float.POSITIVE_INFINITY,
                            Float.NEGATIVE_INFINITY),
                    new KeyColumn(
                            "p_double",
                            DataTypes.DOUBLE(),
                            -1.5d,
                            0d,
                            -0d,
                            0.1d + 0.2d,
                            1.0E300d,
                            -1.0E-300d,
                            1 / 3d,
                            Double.MIN_VALUE,
                            Double.MAX_VALUE,
                            Double.NaN,
                            Double.POSITIVE_INFINITY,
                            Double.NEGATIVE_INFINITY),
                    new KeyColumn(
                            "p_ts3",
                            DataTypes.TIMESTAMP(3),
                            Timestamp.fromEpochMillis(0),
                            Timestamp.fromEpochMillis(-1),
                            Timestamp.fromEpochMillis(1_700_000_000_123L),
                            // sub-millisecond nanos that a TIMESTAMP(3) column drops
                            Timestamp.fromEpochMillis(1_700_000_000_123L, 456_789),
                            ts(LocalDateTime.of(2024, 1, 1, 0, 0)),
                            ts(LocalDateTime.of(1900, 1, 1, 12, 30, 15, 250_000_000)),
                            ts(LocalDateTime.of(1, 1, 1, 0, 0)),
                            ts(LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_000_000))),
                    new KeyColumn(
                            "p_ts9",
                            DataTypes.TIMESTAMP(9),
                            Timestamp.fromEpochMillis(0),
                            Timestamp.fromEpochMillis(1_700_000_000_123L, 456_789),
                            Timestamp.fromEpochMillis(-1, 999_999),
                            ts(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 123_456_789)),
                            ts(LocalDateTime.of(2024, 1, 1, 0, 0)),
                            ts(LocalDateTime.of(1900, 1, 1, 0, 0, 0, 1)),
                            ts(LocalDateTime.of(2024, 6, 30, 8, 0, 0, 100)),
                            ts(LocalDateTime.of(1, 1, 1, 0, 0, 0, 1)),
                            ts(LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_999))),
                    new KeyColumn(
                            "p_ltz6",
                            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
                            Timestamp.fromEpochMillis(0),
                            Timestamp.fromEpochMillis(1_700_000_000_123L, 456_000),
                            Timestamp.fromEpochMillis(-86_400_000L * 365 * 80, 1_000),
                            ts(LocalDateTime.of(2024, 1, 1, 0, 0)),
                            ts(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000))));

    private static BinaryString str(String value) {
        return BinaryString.fromString(value);
    }

    private static int date(int year, int month, int day) {
        return (int) LocalDate.of(year, month, day).toEpochDay();
    }

    private static int time(LocalTime time) {
        return (int) (time.toNanoOfDay() / 1_000_000);
    }

    private static Timestamp ts(LocalDateTime dateTime) {
        return Timestamp.fromLocalDateTime(dateTime);
    }

    /** The table: an id (the bucket key) followed by one partition key column per type. */
    private static StreamTableSpec spec() {
        List<DataField> fields = new ArrayList<>();
        fields.add(new DataField(0, "id", DataTypes.INT().notNull()));
        List<String> partitionKeys = new ArrayList<>();
        for (KeyColumn key : KEYS) {
            fields.add(new DataField(fields.size(), key.name, key.type));
            partitionKeys.add(key.name);
        }
        return new StreamTableSpec(
                TABLE,
                new RowType(fields),
                partitionKeys,
                Collections.singletonList("id"),
                Collections.emptyList(),
                2);
    }

    /**
     * The Paimon partition rows to name: row {@code i} takes value {@code i} (cyclically) of every
     * column, so every value of every column occurs. They are built by Paimon's own partition
     * projection, as Paimon's writer builds the partition of a written row.
     */
    private static List<BinaryRow> partitions(StreamTableSpec spec) {
        int count = KEYS.stream().mapToInt(k -> k.values.size()).max().getAsInt();
        Projection projection = CodeGenUtils.newProjection(spec.rowType(), spec.partitionKeys());
        List<BinaryRow> partitions = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            GenericRow row = new GenericRow(KEYS.size() + 1);
            row.setField(0, i);
            for (int k = 0; k < KEYS.size(); k++) {
                List<Object> values = KEYS.get(k).values;
                row.setField(k + 1, values.get(i % values.size()));
            }
            partitions.add(projection.apply(row).copy());
        }
        return partitions;
    }

    @Test
    void everyPartitionKeyTypeRoundTripsThroughItsFlussName() {
        StreamTableSpec spec = spec();
        FlussPartitionNames names = new FlussPartitionNames(spec);
        List<BinaryRow> partitions = partitions(spec);
        Map<String, BinaryRow> byName = new HashMap<>();
        for (BinaryRow partition : partitions) {
            String name = names.nameOf(partition);
            BinaryRow parsed = names.partitionOf(name);
            assertThat(render(spec, parsed))
                    .as("partition of name %s", name)
                    .isEqualTo(render(spec, partition));
            // the rows must be equal as bytes too: partition rows are map keys and hash inputs
            assertThat(parsed).as("partition of name %s", name).isEqualTo(partition);
            BinaryRow sameName = byName.put(name, partition);
            assertThat(sameName == null || sameName.equals(partition))
                    .as("two partitions named %s", name)
                    .isTrue();
        }
        assertThat(byName).hasSize(partitions.size());
    }

    /**
     * Each column on its own, so that a type that does not round-trip is named by the failure: one
     * partition per value, all other columns at their first value.
     */
    @Test
    void everyValueOfEveryTypeRoundTripsOnItsOwn() {
        StreamTableSpec spec = spec();
        FlussPartitionNames names = new FlussPartitionNames(spec);
        Projection projection = CodeGenUtils.newProjection(spec.rowType(), spec.partitionKeys());
        int checked = 0;
        for (int k = 0; k < KEYS.size(); k++) {
            for (Object value : KEYS.get(k).values) {
                GenericRow row = new GenericRow(KEYS.size() + 1);
                row.setField(0, 0);
                for (int other = 0; other < KEYS.size(); other++) {
                    row.setField(other + 1, KEYS.get(other).values.get(0));
                }
                row.setField(k + 1, value);
                BinaryRow partition = projection.apply(row).copy();
                String name = names.nameOf(partition);
                assertThat(names.partitionOf(name))
                        .as("%s = %s, named %s", KEYS.get(k).name, render(value), name)
                        .isEqualTo(partition);
                checked++;
            }
        }
        assertThat(checked).isEqualTo(KEYS.stream().mapToInt(k -> k.values.size()).sum());
    }

    @Test
    void aNullPartitionValueIsRefusedNamingTheColumnAndTheTable() {
        StreamTableSpec spec = spec();
        FlussPartitionNames names = new FlussPartitionNames(spec);
        Projection projection = CodeGenUtils.newProjection(spec.rowType(), spec.partitionKeys());
        for (int k = 0; k < KEYS.size(); k++) {
            GenericRow row = new GenericRow(KEYS.size() + 1);
            row.setField(0, 0);
            for (int other = 0; other < KEYS.size(); other++) {
                row.setField(other + 1, other == k ? null : KEYS.get(other).values.get(0));
            }
            BinaryRow partition = projection.apply(row).copy();
            assertThatThrownBy(() -> names.nameOf(partition))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("'" + KEYS.get(k).name + "'")
                    .hasMessageContaining(TABLE.getFullName())
                    .hasMessageContaining("null");
        }
    }

    /**
     * Fluss names timestamps by year of era without the era, so a timestamp in year 0 (1 BC, still
     * in Paimon's range) would be named, written and read back as one of year 1: refused instead.
     */
    @Test
    void aTimestampBeforeYearOneIsRefusedNamingTheColumnAndTheTable() {
        StreamTableSpec spec = spec();
        FlussPartitionNames names = new FlussPartitionNames(spec);
        Projection projection = CodeGenUtils.newProjection(spec.rowType(), spec.partitionKeys());
        for (String column : Arrays.asList("p_ts3", "p_ts9", "p_ltz6")) {
            GenericRow row = new GenericRow(KEYS.size() + 1);
            row.setField(0, 0);
            for (int k = 0; k < KEYS.size(); k++) {
                row.setField(
                        k + 1,
                        KEYS.get(k).name.equals(column)
                                ? ts(LocalDateTime.of(0, 12, 31, 23, 59, 59, 999_999_999))
                                : KEYS.get(k).values.get(0));
            }
            BinaryRow partition = projection.apply(row).copy();
            assertThatThrownBy(() -> names.nameOf(partition))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("'" + column + "'")
                    .hasMessageContaining(TABLE.getFullName())
                    .hasMessageContaining("before 0001-01-01");
        }
    }

    private static String render(StreamTableSpec spec, InternalRow partition) {
        RowType type = spec.partitionType();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < type.getFieldCount(); i++) {
            Object value =
                    InternalRow.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(partition);
            sb.append(type.getFieldNames().get(i)).append('=').append(render(value)).append(' ');
        }
        return sb.toString();
    }

    private static String render(Object value) {
        return value instanceof byte[] ? Arrays.toString((byte[]) value) : String.valueOf(value);
    }
}
