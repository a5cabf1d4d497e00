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

package io.lakestream.flink.offsets;

import org.apache.paimon.Snapshot;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;

import org.apache.flink.annotation.Internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The tiered offsets of Paimon snapshots (invariant "the boundary"): snapshot S carries, per
 * partition-bucket, the stream offset T below which every store record is in S and at or above
 * which none is.
 *
 * <p>Why a file and a property pointing at it: a snapshot's properties are written into every
 * snapshot file, and the full map can hold 10,000 partition-buckets; the file is written once per
 * commit and the property is one short name. Paimon does not carry properties forward, so a
 * snapshot without the property inherits the map of the nearest earlier snapshot that has one.
 */
@Internal
public final class SnapshotOffsets {

    /** The snapshot property that names the offsets file of the snapshot. */
    public static final String OFFSETS_PROPERTY = "lake-stream.offsets";

    /** The folder of the offsets files, under the table's location. */
    public static final String OFFSETS_DIR = "lake-stream";

    private SnapshotOffsets() {}

    /** Writes {@code offsets} into a new file of the table and returns the file's name. */
    public static String write(FileStoreTable table, StreamOffsets offsets) {
        String name = "offsets-" + UUID.randomUUID();
        Path path = new Path(new Path(table.location(), OFFSETS_DIR), name);
        FileIO fileIO = table.fileIO();
        try (PositionOutputStream out = fileIO.newOutputStream(path, false)) {
            out.write(StreamOffsetsSerializer.serialize(offsets));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot write the stream offsets of table " + table.fullName() + " to " + path,
                    e);
        }
        return name;
    }

    /** Reads the offsets file {@code name} of the table. */
    public static StreamOffsets read(FileStoreTable table, String name) {
        Path path = new Path(new Path(table.location(), OFFSETS_DIR), name);
        try {
            return StreamOffsetsSerializer.deserialize(readAll(table.fileIO(), path));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot read the stream offsets of table " + table.fullName() + " from " + path,
                    e);
        }
    }

    private static byte[] readAll(FileIO fileIO, Path path) throws IOException {
        try (org.apache.paimon.fs.SeekableInputStream in = fileIO.newInputStream(path)) {
            return in.readAllBytes();
        }
    }

    /**
     * The tiered offsets of snapshot {@code snapshotId}: those recorded in it, or in the nearest
     * earlier snapshot that records any; empty when no snapshot up to it does.
     */
    public static Optional<StreamOffsets> ofSnapshot(FileStoreTable table, long snapshotId) {
        SnapshotManager snapshots = table.snapshotManager();
        Long earliest = snapshots.earliestSnapshotId();
        if (earliest == null) {
            return Optional.empty();
        }
        for (long id = snapshotId; id >= earliest; id--) {
            if (!snapshots.snapshotExists(id)) {
                continue;
            }
            Snapshot snapshot = snapshots.snapshot(id);
            Map<String, String> properties = snapshot.properties();
            if (properties != null && properties.containsKey(OFFSETS_PROPERTY)) {
                return Optional.of(read(table, properties.get(OFFSETS_PROPERTY)));
            }
        }
        return Optional.empty();
    }

    /** The tiered offsets of the table's latest snapshot; empty when it has none. */
    public static Optional<StreamOffsets> ofLatestSnapshot(FileStoreTable table) {
        Long latest = table.snapshotManager().latestSnapshotId();
        return latest == null ? Optional.empty() : ofSnapshot(table, latest);
    }
}
