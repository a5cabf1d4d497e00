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

package io.lakestream.embedded;

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.table.LakeStreamEnablement;
import io.lakestream.table.LakeStreamRefusedException;
import io.lakestream.table.StreamTableLookup;

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;

import java.util.HashMap;
import java.util.Map;

/**
 * A Paimon table in lake-stream mode, used from Java without Flink, in the shape of Paimon C++'s
 * real-time store (PIP-46): a {@link LakeStreamWriter} whose rows are readable at once by a {@link
 * LakeStreamScan} of the same process (or of any process, with a store that serves other
 * processes), and whose commits record the stream offsets in Paimon's snapshots exactly as the
 * Flink sink's do. The same protocol code serves both: fencing, sealing, the offsets map assigned
 * at commit, the writer lease and the union-read merge.
 *
 * <pre>{@code
 * Map<String, String> options = Map.of("lake-stream.store", "memory");
 * LakeStreamTable.enable(catalog, id, options);
 * try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
 *         LakeStreamWriter writer = table.newWriter("my-writer")) {
 *     writer.write(GenericRow.of(1, BinaryString.fromString("a")));
 *     List<InternalRow> rows = table.newScan().read(); // the row, before any commit
 *     writer.commit(); // a Paimon snapshot with the row and the store's offsets
 * }
 * }</pre>
 *
 * <p>{@code options} are the {@code lake-stream.*} options of a catalog: the store and its client
 * options, timeouts, the read isolation. They win over the table's own.
 */
@Experimental
public final class LakeStreamTable implements AutoCloseable {

    private final FileStoreTable table;
    private final Map<String, String> options;
    private final StreamStore store;
    private final StreamTable streamTable;

    private LakeStreamTable(
            FileStoreTable table,
            Map<String, String> options,
            StreamStore store,
            StreamTable streamTable) {
        this.table = table;
        this.options = options;
        this.store = store;
        this.streamTable = streamTable;
    }

    /**
     * Turns lake-stream mode on for {@code identifier} in place, as {@code ALTER TABLE ... SET
     * ('lake-stream.enabled' = 'true')} does: provisions the stream table and records its start in
     * a snapshot; idempotent. The {@code lake-stream.*} entries of {@code options} configure the
     * store and are not written into the table.
     *
     * @throws LakeStreamRefusedException naming the table and what stands in the way
     */
    public static void enable(Catalog catalog, Identifier identifier, Map<String, String> options) {
        new LakeStreamEnablement(catalog, options).enable(identifier, new HashMap<>());
    }

    /**
     * Opens {@code identifier}, which must be in lake-stream mode, with its stream table in the
     * store that {@code options} (over the table's own options) name.
     *
     * @throws LakeStreamRefusedException when the table does not exist, is a branch or is not in
     *     lake-stream mode, naming it and the way out
     * @throws StreamStoreException when the store cannot be reached or holds no stream table of it
     */
    public static LakeStreamTable open(
            Catalog catalog, Identifier identifier, Map<String, String> options) {
        FileStoreTable table =
                new LakeStreamEnablement(catalog, options).fileStoreTable(identifier);
        LakeStreamEnablement.checkInLakeStreamMode(
                table,
                String.format(
                        "enable it first (LakeStreamTable.enable, or '%s' = 'true' through the "
                                + "paimon-lakestream catalog)",
                        LakeStreamOptions.ENABLED.key()),
                "");
        Map<String, String> merged = LakeStreamOptions.forTable(table.options(), options);
        StreamTableSpec spec = StreamTableSpec.of(identifier, table);
        StreamTableLookup.Connected connected =
                StreamTableLookup.open(spec, merged, LakeStreamTable.class.getClassLoader());
        return new LakeStreamTable(table, merged, connected.store(), connected.table());
    }

    /**
     * A writer of the table: one per table at a time (the writer lease refuses a second one while
     * the first renews it). A writer started after another one stopped fences what that one wrote
     * and never committed.
     *
     * @param commitUser Paimon's commit user of the writer's snapshots, also the lease's owner
     */
    public LakeStreamWriter newWriter(String commitUser) {
        return new LakeStreamWriter(this, commitUser);
    }

    /** A bounded union read of the table: its latest snapshot and the store's records past it. */
    public LakeStreamScan newScan() {
        return new LakeStreamScan(this);
    }

    /** The Paimon table, as it was opened. */
    public FileStoreTable paimonTable() {
        return table;
    }

    Map<String, String> options() {
        return options;
    }

    StreamStore store() {
        return store;
    }

    StreamTable streamTable() {
        return streamTable;
    }

    @Override
    public void close() {
        store.close();
    }
}
