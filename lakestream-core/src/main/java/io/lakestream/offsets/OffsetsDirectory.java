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

import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.BranchManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The files of the offsets chain under a table's location, in folder {@value #DIR}: the offsets
 * files (one full map each, named by the property {@link SnapshotOffsets#OFFSETS_PROPERTY} of the
 * snapshot that committed it) and the anchors, one per snapshot that names an offsets file.
 *
 * <p>Why anchors: Paimon does not carry snapshot properties forward, and compaction jobs, other
 * engines, overwrites and deletes commit snapshots without the property. Once Paimon expires the
 * last snapshot that names a map, nothing in the retained snapshots leads to it; the anchor {@code
 * anchors/<snapshot id>} (its content is the offsets file's name) does. Anchors are written after
 * the commit that created the snapshot, because only then is its id known.
 *
 * <p>An offsets file holds its map as {@link OffsetsFileFormat} writes it: Paimon C++'s JSON format
 * where the partitions' names lead back to them, the binary form otherwise.
 *
 * <p>Anchors of branch {@code b} live under {@code branch-b/anchors}, those of the main branch
 * under {@code anchors}; offsets files are shared, their names are unique.
 */
public final class OffsetsDirectory {

    /** The folder of the offsets chain, under the table's location. */
    public static final String DIR = "lake-stream";

    static final String OFFSETS_FILE_PREFIX = "offsets-";

    private final FileIO fileIO;
    private final Path root;
    private final String tableName;
    private final FileStoreTable table;
    private OffsetsFileFormat format;

    private OffsetsDirectory(FileStoreTable table) {
        this.fileIO = table.fileIO();
        this.root = new Path(table.location(), DIR);
        this.tableName = table.fullName();
        this.table = table;
    }

    public static OffsetsDirectory of(FileStoreTable table) {
        return new OffsetsDirectory(table);
    }

    /** Made on first use: most uses of a directory read anchors and list files only. */
    private OffsetsFileFormat format() {
        if (format == null) {
            format = OffsetsFileFormat.of(table);
        }
        return format;
    }

    /** Writes {@code offsets} into a new offsets file and returns its name. */
    public String writeOffsets(StreamOffsets offsets) {
        String name = OFFSETS_FILE_PREFIX + UUID.randomUUID();
        Path path = new Path(root, name);
        try (PositionOutputStream out = fileIO.newOutputStream(path, false)) {
            out.write(format().encode(offsets));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot write the stream offsets of table " + tableName + " to " + path, e);
        }
        return name;
    }

    /**
     * Reads the offsets file {@code name}; a file this process decoded lately is not read again
     * ({@link DecodedOffsetsCache}: offsets files never change).
     */
    public StreamOffsets readOffsets(String name) {
        Path path = new Path(root, name);
        return DecodedOffsetsCache.get(
                path + "\n" + format().decodingKey(), () -> readOffsets(path));
    }

    private StreamOffsets readOffsets(Path path) {
        try (SeekableInputStream in = fileIO.newInputStream(path)) {
            return format().decode(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot read the stream offsets of table " + tableName + " from " + path, e);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(
                    String.format(
                            "The stream offsets file %s of table %s is not valid: %s",
                            path, tableName, e.getMessage()),
                    e);
        }
    }

    /** Records that snapshot {@code snapshotId} of {@code branch} names {@code offsetsFile}. */
    public void writeAnchor(String branch, long snapshotId, String offsetsFile) {
        Path path = new Path(anchorDir(branch), String.valueOf(snapshotId));
        try {
            fileIO.overwriteFileUtf8(path, offsetsFile);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot write the offsets anchor of table " + tableName + " to " + path, e);
        }
    }

    /** The snapshot ids of the anchors of {@code branch}. */
    public NavigableSet<Long> anchorIds(String branch) {
        NavigableSet<Long> ids = new TreeSet<>();
        for (FileStatus status : list(anchorDir(branch))) {
            try {
                ids.add(Long.parseLong(status.getPath().getName()));
            } catch (NumberFormatException e) {
                // not an anchor (a temporary file of an atomic write, say)
            }
        }
        return ids;
    }

    /** The offsets file name that the anchor of snapshot {@code snapshotId} of branch names. */
    public String readAnchor(String branch, long snapshotId) {
        Path path = new Path(anchorDir(branch), String.valueOf(snapshotId));
        try {
            return fileIO.readFileUtf8(path).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot read the offsets anchor " + path + " of table " + tableName, e);
        }
    }

    /** Every offsets file, with its modification time. */
    public List<FileStatus> offsetsFiles() {
        List<FileStatus> files = new ArrayList<>();
        for (FileStatus status : list(root)) {
            if (!status.isDir() && status.getPath().getName().startsWith(OFFSETS_FILE_PREFIX)) {
                files.add(status);
            }
        }
        return files;
    }

    /** Whether any offsets file exists, that is whether the chain was ever started. */
    public boolean hasOffsetsFiles() {
        return !offsetsFiles().isEmpty();
    }

    public void deleteOffsetsFile(String name) {
        fileIO.deleteQuietly(new Path(root, name));
    }

    public void deleteAnchor(String branch, long snapshotId) {
        fileIO.deleteQuietly(new Path(anchorDir(branch), String.valueOf(snapshotId)));
    }

    private Path anchorDir(String branch) {
        return BranchManager.isMainBranch(branch)
                ? new Path(root, "anchors")
                : new Path(new Path(root, "branch-" + branch), "anchors");
    }

    private List<FileStatus> list(Path dir) {
        try {
            if (!fileIO.exists(dir)) {
                return new ArrayList<>();
            }
            List<FileStatus> all = new ArrayList<>();
            for (FileStatus status : fileIO.listStatus(dir)) {
                all.add(status);
            }
            return all;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Cannot list " + dir + " of lake-stream table " + tableName, e);
        }
    }
}
