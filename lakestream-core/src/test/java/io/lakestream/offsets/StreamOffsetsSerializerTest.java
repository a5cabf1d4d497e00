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
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.utils.SerializationUtils;
import org.apache.paimon.utils.VarLengthIntUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests for {@link StreamOffsetsSerializer}. */
class StreamOffsetsSerializerTest {

    /** Partition keys (id INT, region STRING, dt DATE), as Paimon lays them out in a BinaryRow. */
    private static final InternalRowSerializer PARTITION_SERIALIZER =
            new InternalRowSerializer(DataTypes.INT(), DataTypes.STRING(), DataTypes.DATE());

    @Test
    void emptyOffsetsAreTheVersionAndAZeroPartitionCount() {
        byte[] bytes = StreamOffsetsSerializer.serialize(StreamOffsets.empty());

        assertThat(bytes).containsExactly(StreamOffsetsSerializer.CURRENT_VERSION, 0);
        StreamOffsets restored = StreamOffsetsSerializer.deserialize(bytes);
        assertThat(restored.isEmpty()).isTrue();
        assertThat(restored).isEqualTo(StreamOffsets.empty());
    }

    @Test
    void unpartitionedOffsetsRoundTrip() {
        Map<PartitionBucket, Long> map = new HashMap<>();
        map.put(PartitionBucket.ofUnpartitioned(0), 0L);
        map.put(PartitionBucket.ofUnpartitioned(1), 42L);
        map.put(PartitionBucket.ofUnpartitioned(1023), 7_000_000_000L);
        map.put(PartitionBucket.ofUnpartitioned(5), Long.MAX_VALUE);
        StreamOffsets offsets = StreamOffsets.of(map);

        StreamOffsets restored =
                StreamOffsetsSerializer.deserialize(StreamOffsetsSerializer.serialize(offsets));

        assertThat(restored.asMap()).isEqualTo(map);
        assertThat(restored.offsetOr(PartitionBucket.ofUnpartitioned(1023), -1))
                .isEqualTo(7_000_000_000L);
        assertThat(restored.offsetOr(PartitionBucket.ofUnpartitioned(5), -1))
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void partitionedOffsetsRoundTripWithTheirPartitionValues() {
        BinaryRow eu = partition(1, "eu-west", LocalDate.of(2024, 1, 31));
        BinaryRow us = partition(2, "us", LocalDate.of(1970, 1, 1));
        BinaryRow nullRegion = partition(3, null, LocalDate.of(2024, 2, 29));
        BinaryRow allNull = partition(null, null, null);
        Map<PartitionBucket, Long> map = new HashMap<>();
        map.put(new PartitionBucket(eu, 0), 10L);
        map.put(new PartitionBucket(eu, 3), 3_000_000L);
        map.put(new PartitionBucket(us, 0), 0L);
        map.put(new PartitionBucket(nullRegion, 7), 77L);
        map.put(new PartitionBucket(allNull, 1), 1L);

        StreamOffsets restored =
                StreamOffsetsSerializer.deserialize(
                        StreamOffsetsSerializer.serialize(StreamOffsets.of(map)));

        assertThat(restored.asMap()).isEqualTo(map);
        BinaryRow restoredNullRegion = partitionOfBucket(restored, 7);
        assertThat(restoredNullRegion.getFieldCount()).isEqualTo(3);
        assertThat(restoredNullRegion.getInt(0)).isEqualTo(3);
        assertThat(restoredNullRegion.isNullAt(1)).isTrue();
        assertThat(restoredNullRegion.getInt(2))
                .isEqualTo((int) LocalDate.of(2024, 2, 29).toEpochDay());
        BinaryRow restoredAllNull = partitionOfBucket(restored, 1);
        assertThat(restoredAllNull.isNullAt(0)).isTrue();
        assertThat(restoredAllNull.isNullAt(1)).isTrue();
        assertThat(restoredAllNull.isNullAt(2)).isTrue();
        BinaryRow restoredEu = partitionOfBucket(restored, 3);
        assertThat(restoredEu.getString(1).toString()).isEqualTo("eu-west");
        assertThat(restoredEu.getInt(2)).isEqualTo((int) LocalDate.of(2024, 1, 31).toEpochDay());
    }

    @Test
    void equalOffsetsGiveEqualBytesWhateverTheInsertionOrder() {
        List<Map.Entry<PartitionBucket, Long>> entries = new ArrayList<>();
        for (int p = 0; p < 200; p++) {
            BinaryRow partition = partition(p, "region-" + (p % 7), LocalDate.of(2024, 1, 1));
            for (int bucket = 0; bucket < 5; bucket++) {
                entries.add(Map.entry(new PartitionBucket(partition, bucket), p * 1000L + bucket));
            }
        }
        Map<PartitionBucket, Long> forward = new LinkedHashMap<>();
        entries.forEach(e -> forward.put(e.getKey(), e.getValue()));
        List<Map.Entry<PartitionBucket, Long>> reversed = new ArrayList<>(entries);
        Collections.reverse(reversed);
        Map<PartitionBucket, Long> backward = new LinkedHashMap<>();
        reversed.forEach(e -> backward.put(e.getKey(), e.getValue()));
        StreamOffsets first = StreamOffsets.of(forward);
        StreamOffsets second = StreamOffsets.of(backward);
        // the two maps must iterate differently, or equal bytes would show nothing here
        assertThat(new ArrayList<>(first.asMap().keySet()))
                .isNotEqualTo(new ArrayList<>(second.asMap().keySet()));

        assertThat(StreamOffsetsSerializer.serialize(first))
                .isEqualTo(StreamOffsetsSerializer.serialize(second));
    }

    @Test
    void partitionsAreWrittenInTheOrderOfTheirBytesAndBucketsInAscendingOrder() throws IOException {
        // ids 8 down to 1: the rows differ only in the id's byte, so byte order is id order,
        // while the map's hash order is unrelated to it
        Map<PartitionBucket, Long> map = new LinkedHashMap<>();
        for (int id = 8; id >= 1; id--) {
            BinaryRow partition = partition(id, "eu", LocalDate.of(2024, 1, 1));
            map.put(new PartitionBucket(partition, 3), id * 1_000_000L + 3);
            map.put(new PartitionBucket(partition, 0), id * 1_000_000L);
        }

        // the version 1 layout, as documented on StreamOffsetsSerializer
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(expected)) {
            out.writeByte(1);
            VarLengthIntUtils.encodeInt(out, 8);
            for (int id = 1; id <= 8; id++) {
                byte[] row =
                        SerializationUtils.serializeBinaryRow(
                                partition(id, "eu", LocalDate.of(2024, 1, 1)));
                out.writeInt(row.length);
                out.write(row);
                VarLengthIntUtils.encodeInt(out, 2);
                VarLengthIntUtils.encodeInt(out, 0);
                VarLengthIntUtils.encodeLong(out, id * 1_000_000L);
                VarLengthIntUtils.encodeInt(out, 3);
                VarLengthIntUtils.encodeLong(out, id * 1_000_000L + 3);
            }
        }

        assertThat(StreamOffsetsSerializer.serialize(StreamOffsets.of(map)))
                .isEqualTo(expected.toByteArray());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2, 255})
    void unknownVersionFailsNamingTheVersion(int version) {
        byte[] bytes =
                StreamOffsetsSerializer.serialize(
                        StreamOffsets.of(Map.of(PartitionBucket.ofUnpartitioned(0), 5L)));
        bytes[0] = (byte) version;

        assertThatThrownBy(() -> StreamOffsetsSerializer.deserialize(bytes))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("version " + version + ",")
                .hasMessageContaining("up to " + StreamOffsetsSerializer.CURRENT_VERSION);
    }

    @Test
    void tenThousandPartitionBucketsStayCompact() {
        int partitions = 1_000;
        int bucketsPerPartition = 10;
        Random random = new Random(42);
        Map<PartitionBucket, Long> map = new HashMap<>();
        Set<BinaryRow> partitionRows = new HashSet<>();
        LocalDate firstDay = LocalDate.of(2024, 1, 1);
        for (int p = 0; p < partitions; p++) {
            BinaryRow partition =
                    partition(p % 50, "region-" + (p / 50), firstDay.plusDays(p % 365));
            assertThat(partitionRows.add(partition)).isTrue();
            for (int bucket = 0; bucket < bucketsPerPartition; bucket++) {
                map.put(
                        new PartitionBucket(partition, bucket),
                        1_000_000L + random.nextInt(9_000_000));
            }
        }
        StreamOffsets offsets = StreamOffsets.of(map);
        assertThat(offsets.size()).isEqualTo(10_000);

        byte[] bytes = StreamOffsetsSerializer.serialize(offsets);

        // each partition row is written once, with its int length; everything else (version,
        // counts, buckets and offsets) must average under 12 bytes per partition-bucket
        long partitionRowBytes = 0;
        for (BinaryRow partition : partitionRows) {
            partitionRowBytes += 4 + SerializationUtils.serializeBinaryRow(partition).length;
        }
        long bound = partitionRowBytes + 12L * offsets.size();
        System.out.printf(
                "Stream offsets of %,d partition-buckets (%,d partitions x %d buckets, offsets in"
                        + " the millions): %,d bytes = %,d bytes of partition rows + %.2f bytes"
                        + " per partition-bucket (bound %,d bytes)%n",
                offsets.size(),
                partitions,
                bucketsPerPartition,
                bytes.length,
                partitionRowBytes,
                (double) (bytes.length - partitionRowBytes) / offsets.size(),
                bound);
        assertThat((long) bytes.length).isLessThan(bound);
        assertThat(StreamOffsetsSerializer.deserialize(bytes)).isEqualTo(offsets);
    }

    private static BinaryRow partition(Integer id, String region, LocalDate day) {
        return PARTITION_SERIALIZER
                .toBinaryRow(
                        GenericRow.of(
                                id,
                                region == null ? null : BinaryString.fromString(region),
                                day == null ? null : (int) day.toEpochDay()))
                // the serializer reuses its row
                .copy();
    }

    private static BinaryRow partitionOfBucket(StreamOffsets offsets, int bucket) {
        return offsets.asMap().keySet().stream()
                .filter(pb -> pb.bucket() == bucket)
                .findFirst()
                .orElseThrow()
                .partition();
    }
}
