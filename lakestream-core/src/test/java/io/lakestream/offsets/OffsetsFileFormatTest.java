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

package io.lakestream.offsets;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Offsets files in Paimon C++'s JSON where the partition names lead back to the same partitions,
 * byte for byte, and in the binary form where they do not; both read back to the map written, and
 * files of the binary form written before keep being read.
 */
class OffsetsFileFormatTest {

    private static final String DEFAULT = "__DEFAULT_PARTITION__";

    private static final RowType DT_HR =
            RowType.of(
                    new org.apache.paimon.types.DataType[] {DataTypes.STRING(), DataTypes.INT()},
                    new String[] {"dt", "hr"});

    private static BinaryRow row(RowType type, Object... values) {
        return new InternalRowSerializer(type).toBinaryRow(GenericRow.of(values)).copy();
    }

    private static StreamOffsets offsets(BinaryRow... partitions) {
        Map<PartitionBucket, Long> map = new HashMap<>();
        for (int i = 0; i < partitions.length; i++) {
            map.put(new PartitionBucket(partitions[i], i % 3), 100L * i + 7);
        }
        return StreamOffsets.of(map);
    }

    private static String text(byte[] content) {
        return new String(content, StandardCharsets.UTF_8);
    }

    @Test
    void stringAndIntegerPartitionsAreWrittenAsPaimonCppsJson() {
        OffsetsFileFormat format = new OffsetsFileFormat(DT_HR, DEFAULT, true);
        StreamOffsets offsets =
                offsets(
                        row(DT_HR, BinaryString.fromString("2026-12-05"), 7),
                        row(DT_HR, BinaryString.fromString("a/b=c d"), -1),
                        row(DT_HR, null, null));
        byte[] content = format.encode(offsets);
        assertThat(text(content))
                .startsWith("{\"version\":1,\"offsets\":[")
                .contains("{\"partition\":{\"dt\":\"2026-12-05\",\"hr\":\"7\"},\"bucket\":0,")
                .contains("\"dt\":\"a/b=c d\"")
                .contains("\"dt\":\"" + DEFAULT + "\"");
        assertThat(RealtimeOffsetsJson.read(text(content)))
                .as("Paimon C++'s pretty form holds the same entries")
                .containsExactlyElementsOf(
                        RealtimeOffsetsJson.read(
                                RealtimeOffsetsJson.write(
                                        RealtimeOffsetsJson.read(text(content)))));
        assertThat(format.decode(content)).isEqualTo(offsets);
    }

    @Test
    void anUnpartitionedTableHasEmptyPartitions() {
        OffsetsFileFormat format = new OffsetsFileFormat(RowType.of(), DEFAULT, true);
        StreamOffsets offsets =
                StreamOffsets.of(
                        Map.of(
                                PartitionBucket.ofUnpartitioned(0), 3L,
                                PartitionBucket.ofUnpartitioned(1), 0L));
        byte[] content = format.encode(offsets);
        assertThat(text(content)).contains("\"partition\":{},");
        assertThat(format.decode(content)).isEqualTo(offsets);
    }

    @Test
    void anEmptyValueBesideANullOneIsKeptApartInTheBinaryForm() {
        OffsetsFileFormat format = new OffsetsFileFormat(DT_HR, DEFAULT, true);
        // Paimon names both the default partition; the JSON would file one under the other
        StreamOffsets offsets =
                offsets(row(DT_HR, BinaryString.fromString(""), 1), row(DT_HR, null, 1));
        byte[] content = format.encode(offsets);
        assertThat(content[0]).isEqualTo((byte) StreamOffsetsSerializer.VERSION_1);
        assertThat(format.decode(content)).isEqualTo(offsets);
    }

    @Test
    void typedPartitionsComeBackExactlyInOneFormOrTheOther() {
        RowType types =
                RowType.of(
                        new org.apache.paimon.types.DataType[] {
                            DataTypes.DATE(),
                            DataTypes.TIMESTAMP(3),
                            DataTypes.DECIMAL(10, 2),
                            DataTypes.BOOLEAN(),
                            DataTypes.BIGINT()
                        },
                        new String[] {"d", "ts", "amount", "flag", "id"});
        StreamOffsets offsets =
                offsets(
                        row(
                                types,
                                20427,
                                Timestamp.fromEpochMillis(1764892800123L),
                                Decimal.fromBigDecimal(new BigDecimal("12.30"), 10, 2),
                                true,
                                Long.MIN_VALUE),
                        row(types, null, null, null, null, null));
        for (boolean legacyName : new boolean[] {true, false}) {
            OffsetsFileFormat format = new OffsetsFileFormat(types, DEFAULT, legacyName);
            byte[] content = format.encode(offsets);
            // a legacy date name (the day number) does not parse back as a date
            assertThat(content[0])
                    .as("legacy partition names: %s", legacyName)
                    .isEqualTo(legacyName ? (byte) StreamOffsetsSerializer.VERSION_1 : (byte) '{');
            assertThat(format.decode(content))
                    .as("legacy partition names: %s", legacyName)
                    .isEqualTo(offsets);
        }
    }

    @Test
    void filesOfTheBinaryFormWrittenBeforeAreRead() {
        OffsetsFileFormat format = new OffsetsFileFormat(DT_HR, DEFAULT, true);
        StreamOffsets offsets = offsets(row(DT_HR, BinaryString.fromString("x"), 1));
        assertThat(format.decode(StreamOffsetsSerializer.serialize(offsets))).isEqualTo(offsets);
    }

    @Test
    void aJsonPartitionOfOtherKeysIsRefusedNamingThem() {
        OffsetsFileFormat format = new OffsetsFileFormat(DT_HR, DEFAULT, true);
        String json =
                "{\"version\":1,\"offsets\":[{\"partition\":{\"dt\":\"x\"},\"bucket\":0,"
                        + "\"offset\":1}]}";
        assertThatThrownBy(() -> format.decode(json.getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("partition {dt=x} does not hold the partition keys [dt, hr]");
    }
}
