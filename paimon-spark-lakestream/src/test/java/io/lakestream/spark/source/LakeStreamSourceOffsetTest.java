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

package io.lakestream.spark.source;

import io.lakestream.offsets.OffsetsFileFormat;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The offsets a streaming read writes into Spark's checkpoint, and reads back on restart. */
class LakeStreamSourceOffsetTest {

    @TempDir Path warehouse;

    @Test
    void anOffsetReadsBackAsWrittenAndItsJsonIsStable() throws Exception {
        FileStoreTable table = partitioned();
        Map<PartitionBucket, Long> log = new HashMap<>();
        log.put(new PartitionBucket(partition("2026-12-06"), 0), 12L);
        log.put(new PartitionBucket(partition("2026-12-06"), 1), 7L);
        log.put(new PartitionBucket(partition("2026-12-07"), 0), 0L);
        LakeStreamSourceOffset offset =
                new LakeStreamSourceOffset(
                        4L, true, 9L, StreamOffsets.of(log), OffsetsFileFormat.of(table));

        assertThat(offset.json())
                .startsWith(
                        "{\"version\":1,\"snapshot\":4,\"snapshotRead\":true,\"nextSnapshot\":9,")
                .contains("{\"partition\":{\"dt\":\"2026-12-06\"},\"bucket\":1,\"offset\":7}");
        LakeStreamSourceOffset read = LakeStreamSourceOffset.fromJson(offset.json(), table);
        assertThat(read.snapshotId()).isEqualTo(4L);
        assertThat(read.snapshotRead()).isTrue();
        assertThat(read.nextSnapshotId()).isEqualTo(9L);
        assertThat(read.log().asMap()).isEqualTo(log);
        // Spark compares offsets by their JSON: the same offset must give the same text
        assertThat(read.json()).isEqualTo(offset.json());
        assertThat(read).isEqualTo(offset);
    }

    @Test
    void aPartitionWhoseNameDoesNotLeadBackIsKeptInTheBinaryForm() throws Exception {
        FileStoreTable table = partitioned();
        // Paimon names an empty value as it names a null: the JSON name would lead to null
        BinaryRow empty = partition("");
        Map<PartitionBucket, Long> log = new HashMap<>();
        log.put(new PartitionBucket(empty, 0), 3L);
        LakeStreamSourceOffset offset =
                new LakeStreamSourceOffset(
                        -1L, true, 1L, StreamOffsets.of(log), OffsetsFileFormat.of(table));

        assertThat(offset.json()).contains("\"log\":\"");
        assertThat(LakeStreamSourceOffset.fromJson(offset.json(), table).log().asMap())
                .isEqualTo(log);
    }

    @Test
    void anOffsetOfAnotherVersionOrNotAnOffsetIsRefusedNamingTheTable() throws Exception {
        FileStoreTable table = partitioned();
        assertThatThrownBy(
                        () ->
                                LakeStreamSourceOffset.fromJson(
                                        "{\"version\":2,\"snapshot\":1}", table))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table db.events")
                .hasMessageContaining("of version 2")
                .hasMessageContaining("new checkpoint location");
        assertThatThrownBy(() -> LakeStreamSourceOffset.fromJson("{\"version\":1}", table))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table db.events cannot read its offset");
    }

    private FileStoreTable partitioned() throws Exception {
        return LocalPaimonTables.create(
                warehouse,
                "events",
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("dt", DataTypes.STRING())
                        .partitionKeys("dt")
                        .option("bucket", "2")
                        .option("bucket-key", "id")
                        .build());
    }

    private static BinaryRow partition(String day) {
        BinaryRow row = new BinaryRow(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeString(0, BinaryString.fromString(day));
        writer.complete();
        return row;
    }
}
