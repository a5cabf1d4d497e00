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

package io.lakestream.store.memory;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.WriterLeaseLog;

import org.apache.paimon.casting.CastExecutors;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.types.DataField;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code memory} stream store: the records Paimon has not committed yet, kept in the writer's
 * process, in the shape of the real-time store of Paimon C++ (PIP-46). Each partition-bucket's log
 * continues at the offset the table's snapshots committed; records below the offset of the latest
 * committed snapshot are evicted when a write needs room and no reader of the process reads them; a
 * limit on the bytes held back-pressures writers and never drops an uncommitted record.
 *
 * <p>Durability is the upstream's: when the process dies, the records go with it, and the job
 * restored from its checkpoint writes them again (a log of a new process starts where Paimon's
 * snapshots end, see {@link #isProcessLocal()}). Readers must run in the writer's process: a reader
 * elsewhere finds no records and says so.
 *
 * <p>Every instance of one process is a view of the same tables (in {@link MemoryStreamTables}),
 * named {@code <database prefix><database>.<table>}.
 */
public final class MemoryStreamStore implements StreamStore {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryStreamStore.class);

    private final MemoryStreamTables tables;
    private final String databasePrefix;
    private final long maxBytes;
    private final Duration writeTimeout;

    /** A view of {@code tables}: {@link MemoryStreamTables#PROCESS} but in tests. */
    MemoryStreamStore(
            MemoryStreamTables tables,
            String databasePrefix,
            long maxBytes,
            Duration writeTimeout) {
        this.tables = tables;
        this.databasePrefix = databasePrefix;
        this.maxBytes = maxBytes;
        this.writeTimeout = writeTimeout;
    }

    @Override
    public boolean isProcessLocal() {
        return true;
    }

    private String nameOf(Identifier identifier) {
        return databasePrefix + identifier.getDatabaseName() + "." + identifier.getObjectName();
    }

    @Override
    public StreamTable provision(StreamTableSpec spec) {
        String name = nameOf(spec.identifier());
        MemoryStreamTable table =
                tables.getOrCreate(name, id -> new MemoryStreamTable(name, id, spec));
        synchronized (table) {
            StreamTableOwner own = spec.owner().orElse(null);
            boolean adopted =
                    StreamTableOwner.claimOrRefuse(
                            own,
                            table::owner,
                            properties -> table.setOwner(own),
                            recorded -> foreign(spec, table));
            if (adopted) {
                LOG.info(
                        "Memory stream table {} recorded no owner; it now belongs to Paimon "
                                + "table {}, {}.",
                        name,
                        spec.identifier().getFullName(),
                        own.describe());
            }
            if (!table.spec().equals(spec)) {
                checkEvolution(table.spec(), spec);
                table.setSpec(spec);
            }
        }
        return new StreamTable(spec, name, table.id);
    }

    /**
     * Follows every change of columns that Paimon can read its older files under: added fields, and
     * type changes that Paimon casts ({@link CastExecutors}); readers convert records by field id.
     * Keys and buckets cannot change: the logs are laid out by them.
     */
    @Override
    public void checkEvolution(StreamTableSpec from, StreamTableSpec to) {
        String table = to.identifier().getFullName();
        if (!from.hasSameLayout(to)) {
            throw new StreamStoreException(
                    String.format(
                            "The change would alter the partition keys, bucket keys, primary keys "
                                    + "or bucket count of table %s, which its memory stream table "
                                    + "cannot follow.",
                            table));
        }
        for (DataField before : from.rowType().getFields()) {
            if (!to.rowType().containsField(before.id())) {
                continue;
            }
            DataField after = to.rowType().getField(before.id());
            if (!before.type().equalsIgnoreNullable(after.type())
                    && CastExecutors.resolve(before.type(), after.type()) == null) {
                throw new StreamStoreException(
                        String.format(
                                "The change would turn column '%s' of table %s from %s into %s, "
                                        + "which Paimon cannot cast.",
                                before.name(), table, before.type(), after.type()));
            }
        }
    }

    @Override
    public StreamTable get(StreamTableSpec spec) {
        String name = nameOf(spec.identifier());
        MemoryStreamTable table = tables.get(name);
        if (table == null) {
            throw new StreamStoreException(
                    String.format(
                            "The memory stream table %s of Paimon table %s does not exist in this "
                                    + "process. The memory store keeps a table's records in the "
                                    + "process that writes it and serves readers of that process "
                                    + "only: enable lake-stream mode on the table, or start its "
                                    + "writing job, in this process, or use the fluss store to "
                                    + "read from other processes.",
                            name, spec.identifier().getFullName()));
        }
        synchronized (table) {
            if (StreamTableOwner.claim(spec.owner().orElse(null), table.owner())
                    == StreamTableOwner.Claim.FOREIGN) {
                throw foreign(spec, table);
            }
            if (!table.spec().hasSameLayout(spec)) {
                throw new StreamStoreException(
                        String.format(
                                "The memory stream table %s has other keys or buckets than Paimon "
                                        + "table %s: %s against %s.",
                                name, spec.identifier().getFullName(), table.spec(), spec));
            }
        }
        return new StreamTable(spec, name, table.id);
    }

    private StreamStoreException foreign(StreamTableSpec spec, MemoryStreamTable table) {
        return StreamTableOwner.foreign(
                "memory stream table " + table.name + " of this process",
                spec.identifier().getFullName(),
                spec.owner().orElse(null),
                table.owner(),
                String.format(
                        "Catalogs whose Paimon tables have the same names need prefixes of their "
                                + "own: give each catalog of this process its own '%s' (this one "
                                + "has '%s').",
                        LakeStreamOptions.STORE_DATABASE_PREFIX.key(), databasePrefix));
    }

    @Override
    public boolean drop(Identifier paimonTable, @Nullable StreamTableOwner owner) {
        String name = nameOf(paimonTable);
        MemoryStreamTable table = tables.get(name);
        if (table == null) {
            return false;
        }
        StreamTableOwner recorded = table.owner();
        switch (StreamTableOwner.claim(owner, recorded)) {
            case OWN:
                break;
            case FOREIGN:
                throw StreamTableOwner.foreign(
                        "memory stream table " + name + " of this process",
                        paimonTable.getFullName(),
                        owner,
                        recorded,
                        "It was not dropped.");
            default:
                throw new StreamStoreException(
                        String.format(
                                "The memory stream table %s records no Paimon table that owns it, "
                                        + "so it may hold the records of another Paimon table "
                                        + "named %s and was not dropped.",
                                name, paimonTable.getFullName()));
        }
        if (tables.remove(name) == null) {
            return false;
        }
        tables.budget.release(table.dropAll());
        return true;
    }

    /** The table of a handle, refused when the handle is of another incarnation. */
    MemoryStreamTable tableOf(StreamTable handle) {
        MemoryStreamTable table = tables.ofHandle(handle);
        if (table == null || table.isDropped()) {
            throw new StreamStoreException(
                    String.format(
                            "The memory stream table %s (id %d) of Paimon table %s was dropped%s; "
                                    + "plan the job or read again.",
                            handle.storeTableName(),
                            handle.storeTableId(),
                            handle.spec().identifier().getFullName(),
                            table == null && tables.get(handle.storeTableName()) != null
                                    ? " and provisioned again"
                                    : ""));
        }
        return table;
    }

    @Override
    public StreamWriter createWriter(StreamTable table) {
        return new MemoryStreamWriter(
                table.spec(), tableOf(table), tables.budget, maxBytes, writeTimeout);
    }

    @Override
    public StreamReader createReader(StreamTable table) {
        return new MemoryStreamReader(table.spec(), tableOf(table), writeTimeout);
    }

    @Override
    public FenceLog openFenceLog(StreamTable table) {
        return new MemoryFenceLog(tableOf(table));
    }

    @Override
    public WriterLeaseLog openWriterLeaseLog(StreamTable table) {
        return new MemoryWriterLeaseLog(tableOf(table));
    }

    @Override
    public List<BinaryRow> listPartitions(StreamTable table) {
        return tableOf(table).partitions();
    }

    @Override
    public void dropPartition(StreamTable table, BinaryRow partition) {
        tables.budget.release(tableOf(table).dropPartition(partition));
    }

    /**
     * The earliest and latest offsets of logs this process holds; a log it does not hold, or that
     * is not established in this process yet, reports 0 for both.
     */
    @Override
    public Map<PartitionBucket, Long> listOffsets(
            StreamTable table,
            Collection<PartitionBucket> partitionBuckets,
            OffsetPosition position) {
        MemoryStreamTable memory = tableOf(table);
        Map<PartitionBucket, Long> offsets = new HashMap<>();
        synchronized (memory) {
            for (PartitionBucket pb : partitionBuckets) {
                MemoryLog log = memory.log(pb, false);
                long offset = 0;
                if (log != null && log.isEstablished()) {
                    offset = position == OffsetPosition.EARLIEST ? log.start() : log.end();
                }
                offsets.put(pb, offset);
            }
        }
        return offsets;
    }

    /**
     * Marks the records below {@code committed} evictable: they stay while the store has room (a
     * reader restored from an older checkpoint still reads them) and go when a write needs it.
     */
    @Override
    public void advanceCommittedOffsets(StreamTable table, Map<PartitionBucket, Long> committed) {
        MemoryStreamTable memory = tableOf(table);
        synchronized (memory) {
            for (Map.Entry<PartitionBucket, Long> entry : committed.entrySet()) {
                MemoryLog log = memory.log(entry.getKey(), false);
                if (log != null) {
                    log.commitUpTo(entry.getValue());
                }
            }
        }
        tables.budget.committed();
    }

    /** The bytes of records the memory stream tables of this process hold. */
    public long usedBytes() {
        return tables.budget.used();
    }

    @Override
    public void close() {
        // the tables belong to the process, not to this view of them
    }
}
