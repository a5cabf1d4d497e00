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

package io.lakestream.testutils;

import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.TableCommitImpl;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Real Paimon tables on a local warehouse for the unit tests of this module, and the two kinds of
 * commit the offsets chain meets: one that names an offsets map, as the lake-stream committer makes
 * it, and one of another writer that names none.
 */
public final class LocalPaimonTables {

    private LocalPaimonTables() {}

    /** A filesystem catalog of {@code warehouse}, with database {@code db}. */
    public static Catalog catalog(java.nio.file.Path warehouse) throws Exception {
        Catalog catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(new Path(warehouse.toUri().toString())));
        catalog.createDatabase("db", true);
        return catalog;
    }

    /**
     * Lake-stream options of the {@code memory} store with a database prefix of their own (the
     * memory store's tables live as long as the test JVM) and a short writer lease.
     */
    public static Map<String, String> memoryStoreOptions() {
        Map<String, String> options = new HashMap<>();
        options.put("lake-stream.store", "memory");
        options.put("lake-stream.store.database-prefix", "t" + UUID.randomUUID() + "_");
        options.put("lake-stream.sink.writer-lease-timeout", "2 s");
        return options;
    }

    /** Creates table {@code db.<name>} with {@code schema} in a filesystem catalog. */
    public static FileStoreTable create(java.nio.file.Path warehouse, String name, Schema schema)
            throws Exception {
        Catalog catalog = catalog(warehouse);
        Identifier identifier = Identifier.create("db", name);
        catalog.createTable(identifier, schema, false);
        return (FileStoreTable) catalog.getTable(identifier);
    }

    /**
     * The stream table of {@code table} as the catalog would name it: the store table has the
     * Paimon table's full name and id 1.
     */
    public static StreamTable streamTable(FileStoreTable table) {
        return new StreamTable(
                StreamTableSpec.of(Identifier.fromString(table.fullName()), table),
                table.fullName(),
                1L);
    }

    /** Commits {@code rows} as another writer would (a batch job, another engine): no offsets. */
    public static void commitWithoutOffsets(FileStoreTable table, List<? extends InternalRow> rows)
            throws Exception {
        BatchWriteBuilder builder = table.newBatchWriteBuilder();
        try (BatchTableWrite write = builder.newWrite();
                BatchTableCommit commit = builder.newCommit()) {
            for (InternalRow row : rows) {
                write.write(row);
            }
            commit.commit(write.prepareCommit());
        }
    }

    /**
     * Commits {@code rows} and a snapshot that names {@code offsets}, as {@code commitUser} with
     * checkpoint {@code identifier}; anchors it as the lake-stream committer does when {@code
     * anchor}, else leaves it as an earlier version of the committer did.
     */
    public static void commitWithOffsets(
            FileStoreTable table,
            String commitUser,
            long identifier,
            StreamOffsets offsets,
            List<? extends InternalRow> rows,
            boolean anchor)
            throws Exception {
        Long before = table.snapshotManager().latestSnapshotId();
        ManifestCommittable committable = new ManifestCommittable(identifier);
        // without compaction: an asynchronous one could write files after the test closed
        try (StreamTableWrite write =
                        table.copy(Collections.singletonMap("write-only", "true"))
                                .newStreamWriteBuilder()
                                .withCommitUser(commitUser)
                                .newWrite();
                TableCommitImpl commit = table.newCommit(commitUser).ignoreEmptyCommit(false)) {
            for (InternalRow row : rows) {
                write.write(row);
            }
            write.prepareCommit(false, identifier).forEach(committable::addFileCommittable);
            committable.addProperty(
                    SnapshotOffsets.OFFSETS_PROPERTY, SnapshotOffsets.write(table, offsets));
            commit.commit(committable);
        }
        if (anchor) {
            SnapshotOffsets.anchorSnapshotsAfter(table, before == null ? 0 : before);
        }
    }
}
