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
import io.lakestream.offsets.StreamOffsets;

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.JsonSerdeUtil;

import org.apache.spark.sql.connector.read.streaming.Offset;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Where a streaming read of a table stands, as Spark writes it into the query's checkpoint: the
 * snapshot the read started from and whether its rows were read, the next snapshot id to look at
 * for other writers' commits, and the log offset of every partition-bucket known. Versioned JSON:
 *
 * <pre>{@code
 * {"version":1,"snapshot":12,"snapshotRead":true,"nextSnapshot":15,
 *  "log":{"version":1,"offsets":[{"partition":{"dt":"2026-12-06"},"bucket":0,"offset":1234}]}}
 * }</pre>
 *
 * <p>{@code log} is the offsets file format of the table's snapshots (Paimon C++'s JSON, see {@link
 * OffsetsFileFormat}), or, for partitions whose names do not lead back to them, that format's
 * binary form in Base64. {@code snapshot} is -1 when the table had no snapshot at the start.
 */
@Experimental
public final class LakeStreamSourceOffset extends Offset {

    static final int VERSION = 1;

    private final long snapshotId;
    private final boolean snapshotRead;
    private final long nextSnapshotId;
    private final StreamOffsets log;
    private final String json;

    LakeStreamSourceOffset(
            long snapshotId,
            boolean snapshotRead,
            long nextSnapshotId,
            StreamOffsets log,
            OffsetsFileFormat format) {
        this.snapshotId = snapshotId;
        this.snapshotRead = snapshotRead;
        this.nextSnapshotId = nextSnapshotId;
        this.log = log;
        this.json = toJson(format);
    }

    /** The snapshot the read started from; -1 for none. */
    long snapshotId() {
        return snapshotId;
    }

    /** Whether the rows of the start snapshot were read (by a batch up to this offset). */
    boolean snapshotRead() {
        return snapshotRead;
    }

    /** The id of the next snapshot to look at for commits of other writers. */
    long nextSnapshotId() {
        return nextSnapshotId;
    }

    /** The log offset of each partition-bucket: what a batch up to this offset read to. */
    StreamOffsets log() {
        return log;
    }

    @Override
    public String json() {
        return json;
    }

    private String toJson(OffsetsFileFormat format) {
        ObjectNode node = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.createObjectNode();
        node.put("version", VERSION);
        node.put("snapshot", snapshotId);
        node.put("snapshotRead", snapshotRead);
        node.put("nextSnapshot", nextSnapshotId);
        byte[] encoded = format.encode(log);
        try {
            if (encoded.length > 0 && encoded[0] == '{') {
                node.set(
                        "log",
                        JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(
                                new String(encoded, StandardCharsets.UTF_8)));
            } else {
                node.put("log", Base64.getEncoder().encodeToString(encoded));
            }
            return JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The offset {@code json} describes, of {@code table}.
     *
     * @throws IllegalArgumentException naming the table when the JSON is not an offset of this
     *     version
     */
    static LakeStreamSourceOffset fromJson(String json, FileStoreTable table) {
        JsonNode node = parse(json, table);
        int version = node.path("version").asInt(-1);
        if (version != VERSION) {
            throw new IllegalArgumentException(
                    String.format(
                            "The streaming read of table %s cannot resume from offset %s of "
                                    + "version %d: this version reads version %d. Start the "
                                    + "query with a new checkpoint location.",
                            table.fullName(), json, version, VERSION));
        }
        OffsetsFileFormat format = OffsetsFileFormat.of(table);
        try {
            JsonNode log = node.get("log");
            byte[] encoded =
                    log.isTextual()
                            ? Base64.getDecoder().decode(log.asText())
                            : JsonSerdeUtil.OBJECT_MAPPER_INSTANCE
                                    .writeValueAsString(log)
                                    .getBytes(StandardCharsets.UTF_8);
            return new LakeStreamSourceOffset(
                    node.get("snapshot").asLong(),
                    node.get("snapshotRead").asBoolean(),
                    node.get("nextSnapshot").asLong(),
                    format.decode(encoded),
                    format);
        } catch (IOException | RuntimeException e) {
            throw unreadable(json, table, e);
        }
    }

    private static JsonNode parse(String json, FileStoreTable table) {
        try {
            return JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(json);
        } catch (IOException e) {
            throw unreadable(json, table, e);
        }
    }

    private static IllegalArgumentException unreadable(
            String json, FileStoreTable table, Exception cause) {
        return new IllegalArgumentException(
                String.format(
                        "The streaming read of table %s cannot read its offset %s: %s",
                        table.fullName(), json, cause.getMessage()),
                cause);
    }
}
