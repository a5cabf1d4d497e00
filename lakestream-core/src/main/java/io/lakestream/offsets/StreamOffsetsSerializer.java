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
import org.apache.paimon.utils.SerializationUtils;
import org.apache.paimon.utils.VarLengthIntUtils;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The versioned binary form of {@link StreamOffsets}, kept compact because a snapshot's map may
 * hold 10,000 partition-buckets: every partition's row is written once, followed by its buckets and
 * offsets as variable-length integers, so a bucket costs two to ten bytes.
 *
 * <p>Version 1 layout: {@code byte version, varint partitionCount, then per partition: int
 * rowLength, row bytes (Paimon's BinaryRow serialization), varint bucketCount, then per bucket:
 * varint bucket, varlong offset}. Partitions and buckets are written in a stable order, so equal
 * maps serialize to equal bytes.
 */
public final class StreamOffsetsSerializer {

    public static final int VERSION_1 = 1;
    public static final int CURRENT_VERSION = VERSION_1;

    private StreamOffsetsSerializer() {}

    public static byte[] serialize(StreamOffsets offsets) {
        Map<BinaryRow, TreeMap<Integer, Long>> perPartition = new HashMap<>();
        offsets.asMap()
                .forEach(
                        (pb, offset) ->
                                perPartition
                                        .computeIfAbsent(pb.partition(), p -> new TreeMap<>())
                                        .put(pb.bucket(), offset));
        List<Map.Entry<byte[], TreeMap<Integer, Long>>> partitions =
                new ArrayList<>(perPartition.size());
        perPartition.forEach(
                (partition, buckets) ->
                        partitions.add(
                                Map.entry(
                                        SerializationUtils.serializeBinaryRow(partition),
                                        buckets)));
        partitions.sort((a, b) -> Arrays.compare(a.getKey(), b.getKey()));

        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + offsets.size() * 6);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(CURRENT_VERSION);
            VarLengthIntUtils.encodeInt(out, partitions.size());
            for (Map.Entry<byte[], TreeMap<Integer, Long>> partition : partitions) {
                out.writeInt(partition.getKey().length);
                out.write(partition.getKey());
                VarLengthIntUtils.encodeInt(out, partition.getValue().size());
                for (Map.Entry<Integer, Long> bucket : partition.getValue().entrySet()) {
                    VarLengthIntUtils.encodeInt(out, bucket.getKey());
                    VarLengthIntUtils.encodeLong(out, bucket.getValue());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static StreamOffsets deserialize(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int version = in.readUnsignedByte();
            if (version != VERSION_1) {
                throw new IOException(
                        String.format(
                                "The stream offsets are serialized with version %d, while this "
                                        + "reader only supports versions up to %d.",
                                version, CURRENT_VERSION));
            }
            int partitionCount = VarLengthIntUtils.decodeInt(in);
            Map<PartitionBucket, Long> offsets = new HashMap<>();
            for (int p = 0; p < partitionCount; p++) {
                byte[] rowBytes = new byte[in.readInt()];
                in.readFully(rowBytes);
                BinaryRow partition = SerializationUtils.deserializeBinaryRow(rowBytes);
                int bucketCount = VarLengthIntUtils.decodeInt(in);
                for (int b = 0; b < bucketCount; b++) {
                    int bucket = VarLengthIntUtils.decodeInt(in);
                    long offset = VarLengthIntUtils.decodeLong(in);
                    offsets.put(new PartitionBucket(partition, bucket), offset);
                }
            }
            return StreamOffsets.of(offsets);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read stream offsets: " + e.getMessage(), e);
        }
    }
}
