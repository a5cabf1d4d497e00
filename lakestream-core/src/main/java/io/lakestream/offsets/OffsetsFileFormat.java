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

import io.lakestream.offsets.RealtimeOffsetsJson.Entry;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.InternalRowPartitionComputer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The content of an offsets file. A map is written in Paimon C++'s JSON format ({@link
 * RealtimeOffsetsJson}, compact) with each partition as its values by key, the strings Paimon's own {@link
 * InternalRowPartitionComputer} makes of them (the table's {@code partition.default-name} for
 * null, its {@code partition.legacy-name} rule for dates). Those strings do not always lead back to
 * the same partition: Paimon names a null, an empty and a blank value alike, and a legacy date
 * name does not parse back as a date. A map whose partitions do not all come back exactly, byte
 * for byte, is therefore written in the project's binary form ({@link StreamOffsetsSerializer}),
 * which holds any partition; an offset is never filed under another partition. Reading tells the
 * two apart by the first byte: {@code '{'} opens the JSON, the binary form starts with its version
 * byte, {@code 1}.
 */
public final class OffsetsFileFormat {

    private final RowType partitionType;
    private final Set<String> partitionKeys;
    private final String defaultPartitionName;
    private final InternalRowPartitionComputer partitionComputer;
    private final InternalRowSerializer partitionSerializer;

    OffsetsFileFormat(RowType partitionType, String defaultPartitionName, boolean legacyName) {
        this.partitionType = partitionType;
        this.partitionKeys = new HashSet<>(partitionType.getFieldNames());
        this.defaultPartitionName = defaultPartitionName;
        this.partitionComputer =
                new InternalRowPartitionComputer(
                        defaultPartitionName,
                        partitionType,
                        partitionType.getFieldNames().toArray(new String[0]),
                        legacyName);
        this.partitionSerializer = new InternalRowSerializer(partitionType);
    }

    /** The format of the offsets files of {@code table} (or of the branch it is). */
    public static OffsetsFileFormat of(FileStoreTable table) {
        CoreOptions options = table.coreOptions();
        return new OffsetsFileFormat(
                table.schema().logicalPartitionType(),
                options.partitionDefaultName(),
                options.legacyPartitionName());
    }

    /**
     * What the map decoded from a file depends on besides its bytes: the partition type and the
     * name that stands for null (the legacy date rule shapes only what is written).
     */
    String decodingKey() {
        return partitionType.asSQLString() + "\n" + defaultPartitionName;
    }

    /** The file content of {@code offsets}: Paimon C++'s JSON where it holds them exactly. */
    public byte[] encode(StreamOffsets offsets) {
        Map<BinaryRow, Map<String, String>> names = new HashMap<>();
        List<Entry> entries = new ArrayList<>(offsets.size());
        for (Map.Entry<PartitionBucket, Long> offset : offsets.asMap().entrySet()) {
            BinaryRow partition = offset.getKey().partition();
            Map<String, String> name = names.get(partition);
            if (name == null) {
                name = nameOf(partition);
                if (name == null) {
                    return StreamOffsetsSerializer.serialize(offsets);
                }
                names.put(partition, name);
            }
            entries.add(new Entry(name, offset.getKey().bucket(), offset.getValue()));
        }
        return RealtimeOffsetsJson.write(entries, false).getBytes(StandardCharsets.UTF_8);
    }

    /** The offsets of a file's content, in either form. */
    public StreamOffsets decode(byte[] content) {
        if (content.length == 0 || content[0] != '{') {
            return StreamOffsetsSerializer.deserialize(content);
        }
        Map<Map<String, String>, BinaryRow> partitions = new HashMap<>();
        Map<PartitionBucket, Long> offsets = new HashMap<>();
        for (Entry entry : RealtimeOffsetsJson.read(new String(content, StandardCharsets.UTF_8))) {
            BinaryRow partition = partitions.computeIfAbsent(entry.partition(), this::partitionOf);
            offsets.put(new PartitionBucket(partition, entry.bucket()), entry.offset());
        }
        return StreamOffsets.of(offsets);
    }

    /** The values by key of {@code partition}, or null when they would not lead back to it. */
    private Map<String, String> nameOf(BinaryRow partition) {
        if (partitionType.getFieldCount() == 0) {
            return partition.getFieldCount() == 0 ? Collections.emptyMap() : null;
        }
        if (partition.getFieldCount() != partitionType.getFieldCount()) {
            return null;
        }
        Map<String, String> name = partitionComputer.generatePartValues(partition);
        try {
            return partitionOf(name).equals(partition) ? name : null;
        } catch (RuntimeException e) {
            return null; // a name that does not parse back, such as a legacy date name
        }
    }

    private BinaryRow partitionOf(Map<String, String> name) {
        if (partitionType.getFieldCount() == 0) {
            if (!name.isEmpty()) {
                throw new IllegalArgumentException(
                        "Offsets JSON: partition " + name + " of a table without partition keys");
            }
            return BinaryRow.EMPTY_ROW;
        }
        if (!name.keySet().equals(partitionKeys)) {
            throw new IllegalArgumentException(
                    String.format(
                            "Offsets JSON: partition %s does not hold the partition keys %s",
                            name, partitionType.getFieldNames()));
        }
        return partitionSerializer
                .toBinaryRow(
                        InternalRowPartitionComputer.convertSpecToInternalRow(
                                name, partitionType, defaultPartitionName))
                .copy();
    }
}
