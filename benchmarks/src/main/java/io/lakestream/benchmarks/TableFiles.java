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

package io.lakestream.benchmarks;

import io.lakestream.offsets.OffsetsDirectory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The sizes of a table's metadata files in the local warehouse: its latest Paimon snapshot file,
 * which every reader and committer reads, and the newest offsets file of lake-stream mode, which
 * the snapshot points at.
 */
final class TableFiles {

    private final Path location;

    TableFiles(Path warehouse, String table) {
        this.location = warehouse.resolve(Sessions.DATABASE + ".db").resolve(table);
    }

    /** The bytes of the latest snapshot file. */
    long latestSnapshotBytes() throws IOException {
        Path snapshots = location.resolve("snapshot");
        String latest =
                new String(Files.readAllBytes(snapshots.resolve("LATEST")), StandardCharsets.UTF_8)
                        .trim();
        return Files.size(snapshots.resolve("snapshot-" + latest));
    }

    /** The bytes of the newest offsets file, if the table has one. */
    Optional<Long> newestOffsetsBytes() throws IOException {
        Path dir = location.resolve(OffsetsDirectory.DIR);
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.list(dir)) {
            Optional<Path> newest =
                    files.filter(f -> f.getFileName().toString().startsWith("offsets-"))
                            .max(Comparator.comparing(TableFiles::modified));
            return newest.isPresent() ? Optional.of(Files.size(newest.get())) : Optional.empty();
        }
    }

    private static FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return FileTime.fromMillis(0);
        }
    }
}
