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

import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.apache.fluss.bucketing.BucketingFunction;
import org.apache.fluss.metadata.DataLakeFormat;
import org.apache.fluss.row.encode.IndexedRowEncoder;
import org.apache.fluss.row.indexed.IndexedRow;
import org.apache.fluss.types.DataType;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The writer's own encoding of a Paimon row is byte for byte Fluss's encoding of the same row, for
 * every column type, null values, the row kind column and a column the Paimon schema lacks; and
 * every bucket's precomputed key lands in that bucket.
 */
class PaimonRowIndexedEncoderTest {

    private static final RowType ALL_TYPES =
            RowType.of(
                    new org.apache.paimon.types.DataType[] {
                        DataTypes.INT().notNull(),
                        DataTypes.BOOLEAN(),
                        DataTypes.TINYINT(),
                        DataTypes.SMALLINT(),
                        DataTypes.BIGINT(),
                        DataTypes.FLOAT(),
                        DataTypes.DOUBLE(),
                        DataTypes.DECIMAL(10, 2),
                        DataTypes.DECIMAL(30, 5),
                        DataTypes.CHAR(3),
                        DataTypes.VARCHAR(20),
                        DataTypes.BINARY(2),
                        DataTypes.VARBINARY(10),
                        DataTypes.DATE(),
                        DataTypes.TIME(),
                        DataTypes.TIMESTAMP(3),
                        DataTypes.TIMESTAMP(9),
                        DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3),
                        DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6),
                        DataTypes.STRING().notNull()
                    },
                    new String[] {
                        "id", "f_bool", "f_tiny", "f_small", "f_big", "f_float", "f_double",
                        "f_dec", "f_bigdec", "f_char", "f_varchar", "f_bin", "f_varbin", "f_date",
                        "f_time", "f_ts3", "f_ts9", "f_ltz3", "f_ltz6", "dt"
                    });

    private static GenericRow row(int id, boolean nulls) {
        GenericRow row =
                GenericRow.of(
                        id,
                        id % 2 == 0,
                        (byte) id,
                        (short) (id * 3),
                        id * 1_000_000_007L,
                        id / 3f,
                        id / 7d,
                        Decimal.fromBigDecimal(new BigDecimal(id + ".25"), 10, 2),
                        Decimal.fromBigDecimal(
                                new BigDecimal("1234567890123456789012345.0000" + (id % 10)),
                                30,
                                5),
                        BinaryString.fromString("äö" + (id % 10)),
                        BinaryString.fromString("name-" + id),
                        new byte[] {(byte) id, 7},
                        new byte[] {1, 2, (byte) id},
                        19_000 + id,
                        id * 1000,
                        Timestamp.fromEpochMillis(1_700_000_000_000L + id),
                        Timestamp.fromEpochMillis(-1_700_000_000_000L + id, 123_456),
                        Timestamp.fromEpochMillis(1_700_000_000_000L - id),
                        Timestamp.fromEpochMillis(1_700_000_000_000L + id, 999_000),
                        BinaryString.fromString("2026-01-0" + (id % 9)));
        if (nulls) {
            for (int i = 1; i < ALL_TYPES.getFieldCount() - 1; i++) {
                row.setField(i, null);
            }
        }
        return row;
    }

    @Test
    void appendTableEncodesAsFlussDoes() {
        assertSameEncoding(false);
    }

    @Test
    void primaryKeyTableWithAnAddedColumnEncodesAsFlussDoes() {
        assertSameEncoding(true);
    }

    private static void assertSameEncoding(boolean primaryKey) {
        StreamTableSpec spec =
                new StreamTableSpec(
                        Identifier.create("db", "t"),
                        ALL_TYPES,
                        Collections.singletonList("dt"),
                        Collections.singletonList("id"),
                        primaryKey ? Arrays.asList("id", "dt") : Collections.emptyList(),
                        4,
                        null,
                        // the append table's spec was not taken from a schema: a null schema id
                        primaryKey ? 7 : StreamTableSpec.UNKNOWN_SCHEMA_ID,
                        null);
        List<DataType> types = new ArrayList<>(FlussTypes.toFluss(spec));
        List<String> names = new ArrayList<>(spec.fieldNames());
        if (primaryKey) {
            names.add(FlussStreamTableLayout.ROW_KIND_COLUMN);
            types.add(org.apache.fluss.types.DataTypes.TINYINT().copy(false));
        }
        names.add(FlussStreamTableLayout.SCHEMA_ID_COLUMN);
        types.add(org.apache.fluss.types.DataTypes.BIGINT());
        if (primaryKey) {
            // a column added to the stream table after this writer's schema was planned
            names.add("added_later");
            types.add(org.apache.fluss.types.DataTypes.STRING());
        }
        org.apache.fluss.types.RowType flussType =
                org.apache.fluss.types.RowType.of(
                        types.toArray(new DataType[0]), names.toArray(new String[0]));
        FlussColumnMapping mapping = new FlussColumnMapping(spec, flussType);
        PaimonRowIndexedEncoder encoder = new PaimonRowIndexedEncoder(mapping, flussType);
        IndexedRowEncoder fluss = new IndexedRowEncoder(flussType);
        org.apache.fluss.row.InternalRow.FieldGetter[] getters =
                org.apache.fluss.row.InternalRow.createFieldGetters(flussType);
        PaimonRowAsFlussRow view = new PaimonRowAsFlussRow(mapping);
        InternalRowSerializer binary = new InternalRowSerializer(ALL_TYPES);
        RowKind[] kinds = RowKind.values();
        for (int id = 0; id < 40; id++) {
            GenericRow generic = row(id, id % 5 == 0);
            RowKind kind = primaryKey ? kinds[id % kinds.length] : RowKind.INSERT;
            // Paimon hands the writer binary rows; generic ones too, in other paths
            for (InternalRow paimonRow :
                    Arrays.<InternalRow>asList(generic, binary.toBinaryRow(generic).copy())) {
                fluss.startNewRow();
                view.replace(paimonRow, kind);
                for (int i = 0; i < getters.length; i++) {
                    fluss.encodeField(i, getters[i].getFieldOrNull(view));
                }
                byte[] expected = bytesOf(fluss.finishRow());
                assertThat(bytesOf(encoder.encode(paimonRow, kind)))
                        .as("row %d (%s)", id, paimonRow.getClass().getSimpleName())
                        .isEqualTo(expected);
            }
        }
    }

    private static byte[] bytesOf(IndexedRow row) {
        byte[] bytes = new byte[row.getSizeInBytes()];
        row.copyTo(bytes, 0);
        return bytes;
    }

    @Test
    void everyBucketKeyLandsInItsBucket() {
        for (DataLakeFormat format : Arrays.asList(DataLakeFormat.PAIMON, null)) {
            BucketingFunction function = BucketingFunction.of(format);
            for (int numBuckets : new int[] {1, 2, 3, 16, 128, 1000}) {
                PaimonBucketKeys keys = new PaimonBucketKeys(numBuckets, function, "db.t");
                for (int bucket = 0; bucket < numBuckets; bucket++) {
                    assertThat(function.bucketing(keys.keyOf(bucket), numBuckets))
                            .as("bucket %d of %d (%s)", bucket, numBuckets, format)
                            .isEqualTo(bucket);
                }
            }
        }
    }
}
