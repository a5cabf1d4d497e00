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

package io.lakestream.store.fluss;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.SharedResourcePool;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.WriterLeaseLog;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.FlussConnection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.metadata.MetadataUpdater;
import org.apache.fluss.client.table.FlussTable;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.exception.PartitionNotExistException;
import org.apache.fluss.metadata.DatabaseDescriptor;
import org.apache.fluss.metadata.PartitionInfo;
import org.apache.fluss.metadata.PartitionSpec;
import org.apache.fluss.metadata.ResolvedPartitionSpec;
import org.apache.fluss.metadata.TableChange;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.metadata.TablePath;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The Fluss stream store: one Fluss log table per Paimon table, in a Fluss database of the Paimon
 * database's name (after the catalog's {@code lake-stream.store.database-prefix}), plus one-bucket
 * log tables of its fences and writer leases.
 *
 * <p>All three record the Paimon table that owns them as Fluss custom properties ({@link
 * StreamTableOwner#toProperties()}); every operation checks them against the spec's owner before it
 * acts, so that two Paimon tables of the same name in different warehouses never share records,
 * fences or leases, and never drop each other's.
 */
public final class FlussStreamStore implements StreamStore {

    private static final Logger LOG = LoggerFactory.getLogger(FlussStreamStore.class);

    /** The store's default of Fluss's {@code client.writer.batch-timeout} (Fluss: 100 ms). */
    static final Duration DEFAULT_WRITER_BATCH_TIMEOUT =
            FlussStoreOptions.CLIENT_WRITER_BATCH_TIMEOUT.defaultValue();

    /**
     * The store's default of Fluss's {@code client.scanner.log.fetch.wait-max-time} (Fluss: 500
     * ms).
     */
    static final Duration DEFAULT_FETCH_WAIT_MAX_TIME =
            FlussStoreOptions.CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME.defaultValue();

    private final Configuration clientConf;
    private final Duration writeTimeout;
    private final FlussAdminCalls calls;
    private final Duration connectionIdleTimeout;

    /** The connection this store uses now; guarded by {@code this}. */
    private Leased current;

    /** Whether {@link #current} was discarded and the next call takes a new one. */
    private boolean renew;

    /** Discarded connections, released when this store closes; guarded by {@code this}. */
    private final List<SharedResourcePool.Lease<FlussConnections.Opened>> discarded =
            new ArrayList<>();

    private final String databasePrefix;

    FlussStreamStore(
            Map<String, String> clientOptions,
            Duration requestTimeout,
            Duration writeTimeout,
            Duration connectionIdleTimeout,
            String databasePrefix) {
        // checked before connecting: a wrong option fails at once, with no cluster to wait for
        this.databasePrefix = checkedDatabasePrefix(databasePrefix);
        this.clientConf = clientConfiguration(clientOptions, writeTimeout);
        this.writeTimeout = writeTimeout;
        String servers = clientOptions.get(ConfigOptions.BOOTSTRAP_SERVERS.key());
        if (servers == null || servers.trim().isEmpty()) {
            throw new StreamStoreException(
                    String.format(
                            "Option '%sbootstrap.servers' is required by the Fluss stream store but "
                                    + "not provided.",
                            LakeStreamOptions.storeOptionsPrefix(
                                    FlussStreamStoreFactory.IDENTIFIER)));
        }
        this.calls = new FlussAdminCalls(servers, requestTimeout);
        this.connectionIdleTimeout = connectionIdleTimeout;
        this.current =
                new Leased(
                        FlussConnections.acquire(
                                clientConf, calls, writeTimeout, connectionIdleTimeout));
        calls.onGivingUp(this::discardConnection);
    }

    /**
     * The Fluss client's configuration: {@code clientOptions}, plus the store's defaults where they
     * set nothing.
     */
    static Configuration clientConfiguration(
            Map<String, String> clientOptions, Duration writeTimeout) {
        Configuration conf = Configuration.fromMap(FlussClassNames.atRuntime(clientOptions));
        // Fluss's writer otherwise waits for buffer space without end while the cluster is down
        if (!clientOptions.containsKey(ConfigOptions.CLIENT_WRITER_BUFFER_WAIT_TIMEOUT.key())) {
            conf.set(ConfigOptions.CLIENT_WRITER_BUFFER_WAIT_TIMEOUT, writeTimeout);
        }
        // freshness first: Fluss's defaults (a 100 ms linger, a fetch that waits up to 500 ms on
        // the server) put about 300 ms on the median write-to-read latency (docs/performance.md)
        if (!clientOptions.containsKey(ConfigOptions.CLIENT_WRITER_BATCH_TIMEOUT.key())) {
            conf.set(ConfigOptions.CLIENT_WRITER_BATCH_TIMEOUT, DEFAULT_WRITER_BATCH_TIMEOUT);
        }
        if (!clientOptions.containsKey(
                ConfigOptions.CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME.key())) {
            conf.set(
                    ConfigOptions.CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME,
                    DEFAULT_FETCH_WAIT_MAX_TIME);
        }
        return conf;
    }

    /**
     * The connection to use now: after a {@link #discardConnection discard}, a new one. A discarded
     * connection may know a server's old address, which a Fluss 0.9.1 client never corrects; the
     * store's next call (and an admin call's next retry) bootstraps again instead.
     */
    private synchronized Leased leased() {
        if (renew) {
            renew = false;
            discarded.add(current.lease);
            current =
                    new Leased(
                            FlussConnections.acquire(
                                    clientConf, calls, writeTimeout, connectionIdleTimeout));
        }
        return current;
    }

    private Admin admin() {
        return leased().admin;
    }

    /**
     * Checks that {@code prefix} can start a Fluss database name: ASCII letters, digits, '_' and
     * '-', not starting with Fluss's reserved '__'.
     *
     * @throws StreamStoreException naming the option and the value
     */
    static String checkedDatabasePrefix(String prefix) {
        if (prefix.isEmpty()) {
            return prefix;
        }
        String error = TablePath.detectInvalidName(prefix);
        if (error == null) {
            error = TablePath.validatePrefix(prefix);
        }
        if (error != null) {
            throw new StreamStoreException(
                    String.format(
                            "Option '%s' = '%s' cannot start a Fluss database name: %s.",
                            LakeStreamOptions.STORE_DATABASE_PREFIX.key(), prefix, error));
        }
        return prefix;
    }

    private FlussStreamTableLayout layout(StreamTableSpec spec) {
        return new FlussStreamTableLayout(spec, databasePrefix);
    }

    @Override
    public StreamTable provision(StreamTableSpec spec) {
        FlussStreamTableLayout layout = layout(spec);
        TablePath path = layout.tablePath();
        Map<String, String> owner = FlussStreamTableLayout.ownerProperties(spec);
        calls.await(
                admin().createDatabase(path.getDatabaseName(), DatabaseDescriptor.EMPTY, true),
                "create database " + path.getDatabaseName());
        FlussTableCreation.create(admin(), calls, path, layout.descriptor());
        // the stream table first: a foreign one is refused before anything else is created
        TableInfo info = describe(path);
        checkNotForeign(spec, info, false);
        TablePath fences = FlussFenceLog.fenceTablePath(path);
        FlussFenceLog.provision(admin(), calls, fences, owner);
        checkNotForeign(spec, describe(fences), false);
        TablePath leases = FlussWriterLeaseLog.writerTablePath(path);
        FlussWriterLeaseLog.provision(admin(), calls, leases, owner);
        checkNotForeign(spec, describe(leases), false);
        StreamTable table = checked(layout, withAddedColumns(layout, info));
        // adopted only once it is known to fit: a stream table of another shape is left unclaimed
        for (TablePath next : Arrays.asList(path, fences, leases)) {
            claim(spec, describe(next));
        }
        return table;
    }

    @Override
    public void checkEvolution(StreamTableSpec from, StreamTableSpec to) {
        FlussStreamTableLayout.checkEvolution(from, to);
    }

    /**
     * Checks that the Fluss table {@code info} belongs to the owner of {@code spec}; one that
     * records no owner is adopted.
     *
     * @throws StreamStoreException when it belongs to another Paimon table
     */
    private void claim(StreamTableSpec spec, TableInfo info) {
        TablePath path = info.getTablePath();
        StreamTableOwner own = spec.owner().orElse(null);
        boolean adopted =
                StreamTableOwner.claimOrRefuse(
                        own,
                        () -> recordedOwner(describe(path)),
                        properties -> {
                            List<TableChange> changes = new ArrayList<>();
                            properties.forEach(
                                    (key, value) -> changes.add(TableChange.set(key, value)));
                            calls.awaitRetrying(
                                    () -> admin().alterTable(path, changes, false),
                                    "record the owner of table " + path);
                        },
                        recorded -> foreign(spec.identifier(), own, path, recorded));
        if (adopted) {
            LOG.info(
                    "Fluss table {} recorded no owner (it was created before stream tables "
                            + "recorded their Paimon table); it now belongs to Paimon table {}, {}.",
                    path,
                    spec.identifier().getFullName(),
                    own.describe());
        }
    }

    /**
     * Refuses a Fluss table that belongs to another Paimon table, and logs the use of one that
     * records no owner (served as before owners were recorded, until provisioning claims it; the
     * warning is for the stream table, not for each of its logs).
     */
    private void checkNotForeign(StreamTableSpec spec, TableInfo info, boolean warnIfUnclaimed) {
        StreamTableOwner own = spec.owner().orElse(null);
        StreamTableOwner recorded = recordedOwner(info);
        StreamTableOwner.Claim claim = StreamTableOwner.claim(own, recorded);
        if (claim == StreamTableOwner.Claim.FOREIGN) {
            throw foreign(spec.identifier(), own, info.getTablePath(), recorded);
        }
        if (claim == StreamTableOwner.Claim.UNCLAIMED && warnIfUnclaimed) {
            LOG.warn(
                    "Fluss table {} records no Paimon table that owns it, so it may be shared with "
                            + "another table named {}. Enable lake-stream mode on the table again "
                            + "(ALTER TABLE {} SET ('{}' = 'true')) to claim it.",
                    info.getTablePath(),
                    spec.identifier().getFullName(),
                    spec.identifier().getFullName(),
                    LakeStreamOptions.ENABLED.key());
        }
    }

    private StreamTableOwner recordedOwner(TableInfo info) {
        return StreamTableOwner.fromProperties(
                info.getCustomProperties().toMap(),
                "The Fluss table " + info.getTablePath() + " at " + calls.bootstrapServers());
    }

    private StreamStoreException foreign(
            Identifier paimonTable,
            StreamTableOwner own,
            TablePath flussTable,
            StreamTableOwner recorded) {
        TablePath streamTable = FlussStreamTableLayout.tablePath(databasePrefix, paimonTable);
        return StreamTableOwner.foreign(
                String.format(
                        "%s in the Fluss cluster at %s", flussTable, calls.bootstrapServers()),
                paimonTable.getFullName(),
                own,
                recorded,
                String.format(
                        "Catalogs whose Paimon tables have the same names need Fluss databases of "
                                + "their own: give each catalog that shares this Fluss cluster its "
                                + "own '%s' (this one has '%s'). If %s no longer exists, drop the "
                                + "Fluss tables %s, %s and %s with Fluss's own tools.",
                        LakeStreamOptions.STORE_DATABASE_PREFIX.key(),
                        databasePrefix,
                        recorded == null ? "the Paimon table that uses it" : recorded.describe(),
                        streamTable,
                        FlussFenceLog.fenceTablePath(streamTable),
                        FlussWriterLeaseLog.writerTablePath(streamTable)));
    }

    @Override
    public StreamTable get(StreamTableSpec spec) {
        FlussStreamTableLayout layout = layout(spec);
        TablePath path = layout.tablePath();
        TableInfo info;
        try {
            // described without asking first whether it exists: one round trip, not two
            info = calls.awaitRetrying(() -> admin().getTableInfo(path), "describe table " + path);
        } catch (StreamStoreException e) {
            if (FlussAdminCalls.causedBy(
                    e, org.apache.fluss.exception.TableNotExistException.class)) {
                throw new StreamStoreException(
                        String.format(
                                "The stream table %s of Paimon table %s does not exist in the "
                                        + "Fluss cluster at %s. Enabling lake-stream mode on the "
                                        + "table provisions it.",
                                path, spec.identifier().getFullName(), calls.bootstrapServers()),
                        e);
            }
            throw e;
        }
        checkNotForeign(spec, info, true);
        return checked(layout, withAddedColumns(layout, info));
    }

    /**
     * Adds to the stream table the columns that the Paimon table gained since it was created or
     * last looked up, whichever catalog or engine added them (Paimon's schema is the truth): a job
     * or a fresh read that finds them missing adds them, nullable, at the end. Several may find
     * them missing at once; a column another added in between counts as added.
     */
    private TableInfo withAddedColumns(FlussStreamTableLayout layout, TableInfo info) {
        info = withPinnedFieldIds(layout, info);
        List<TableChange> missing = layout.missingColumns(info);
        if (missing.isEmpty()) {
            return info;
        }
        TablePath path = info.getTablePath();
        try {
            calls.awaitRetrying(
                    () -> admin().alterTable(path, missing, false), "add columns to table " + path);
        } catch (RuntimeException e) {
            TableInfo now = describe(path);
            if (!layout.missingColumns(now).isEmpty()) {
                throw e;
            }
            return now;
        }
        LOG.info(
                "Added {} columns of Paimon table {} to its stream table {}.",
                missing.size(),
                layout.spec().identifier().getFullName(),
                path);
        return describe(path);
    }

    /**
     * Pins the field ids of the columns of a stream table created before columns recorded them,
     * matched by name against the spec that first finds them unpinned, so that a later rename or
     * drop of a Paimon field does not move its values to another field. Several jobs pinning at
     * once write the same ids.
     */
    private TableInfo withPinnedFieldIds(FlussStreamTableLayout layout, TableInfo info) {
        Map<String, String> pins =
                FlussColumnIds.unpinned(
                        layout.spec(),
                        info.getSchema().getColumns(),
                        info.getCustomProperties().toMap());
        if (pins.isEmpty()) {
            return info;
        }
        TablePath path = info.getTablePath();
        List<TableChange> changes = new ArrayList<>();
        pins.forEach((key, value) -> changes.add(TableChange.set(key, value)));
        calls.awaitRetrying(
                () -> admin().alterTable(path, changes, false),
                "record the Paimon field ids of the columns of table " + path);
        LOG.info(
                "Recorded the Paimon field ids of {} columns of stream table {} (created before "
                        + "columns recorded them), matched by name with Paimon table {}.",
                pins.size(),
                path,
                layout.spec().identifier().getFullName());
        return describe(path);
    }

    private StreamTable checked(FlussStreamTableLayout layout, TableInfo info) {
        List<String> differences = layout.differences(info);
        if (!differences.isEmpty()) {
            boolean columnsMissing = differences.stream().anyMatch(d -> d.endsWith("is missing"));
            throw new StreamStoreException(
                    String.format(
                            "The Fluss table %s exists but does not match Paimon table %s: %s.%s",
                            info.getTablePath(),
                            layout.spec().identifier().getFullName(),
                            String.join("; ", differences),
                            columnsMissing
                                    ? " Enabling lake-stream mode on the table again adds columns "
                                            + "that were added to the Paimon table."
                                    : ""));
        }
        return new StreamTable(layout.spec(), info.getTablePath().toString(), info.getTableId());
    }

    /**
     * Drops the stream table and its logs only when all of them belong to {@code owner}: the checks
     * come first, so that a refused drop leaves all three as they were.
     */
    @Override
    public boolean drop(Identifier paimonTable, @Nullable StreamTableOwner owner) {
        TablePath path = FlussStreamTableLayout.tablePath(databasePrefix, paimonTable);
        List<TablePath> existing = new ArrayList<>();
        for (TablePath next :
                Arrays.asList(
                        path,
                        FlussFenceLog.fenceTablePath(path),
                        FlussWriterLeaseLog.writerTablePath(path))) {
            if (!calls.awaitRetrying(() -> admin().tableExists(next), "look up table " + next)) {
                continue;
            }
            StreamTableOwner recorded = recordedOwner(describe(next));
            switch (StreamTableOwner.claim(owner, recorded)) {
                case OWN:
                    existing.add(next);
                    break;
                case FOREIGN:
                    throw foreign(paimonTable, owner, next, recorded);
                default:
                    throw new StreamStoreException(
                            String.format(
                                    "The Fluss table %s at %s records no Paimon table that owns "
                                            + "it (it was created before stream tables recorded "
                                            + "their owner), so it may hold the records of another "
                                            + "Paimon table named %s and was not dropped. To drop "
                                            + "it, claim it first by enabling lake-stream mode on "
                                            + "the table again, or drop it with Fluss's own "
                                            + "tools.",
                                    next, calls.bootstrapServers(), paimonTable.getFullName()));
            }
        }
        for (TablePath next : existing) {
            calls.awaitRetrying(() -> admin().dropTable(next, true), "drop table " + next);
        }
        return existing.contains(path);
    }

    @Override
    public StreamWriter createWriter(StreamTable table) {
        return openChecked(table, FlussStreamWriter::new);
    }

    @Override
    public StreamReader createReader(StreamTable table) {
        return openChecked(table, FlussStreamReader::new);
    }

    /** What a reader or a writer is made of: the store, the table, its layout and Fluss handle. */
    @FunctionalInterface
    private interface HandleUser<T> {
        T create(
                FlussStreamStore store,
                StreamTable table,
                FlussStreamTableLayout layout,
                Table handle);
    }

    /**
     * Makes a reader or writer of {@code table} after checking that its stream table is still the
     * one {@code table} names, with a Fluss handle made from the description that was checked.
     */
    private <T> T openChecked(StreamTable table, HandleUser<T> user) {
        FlussStreamTableLayout layout = layout(table.spec());
        TableInfo info = describe(layout.tablePath());
        checkCurrent(table, layout, info);
        return user.create(this, table, layout, openTable(info));
    }

    @Override
    public FenceLog openFenceLog(StreamTable table) {
        return new FlussFenceLog(
                openLogNextTo(table, FlussFenceLog::fenceTablePath),
                new FlussPartitionNames(table.spec()));
    }

    @Override
    public WriterLeaseLog openWriterLeaseLog(StreamTable table) {
        return new FlussWriterLeaseLog(openLogNextTo(table, FlussWriterLeaseLog::writerTablePath));
    }

    /**
     * Opens the one-bucket log kept next to the stream table of {@code table}, after checking that
     * the stream table is still the one {@code table} names and that the log belongs to its owner.
     * Both tables are described with one wait: their descriptions travel together.
     */
    private FlussSingleBucketLog openLogNextTo(
            StreamTable table, Function<TablePath, TablePath> logPath) {
        FlussStreamTableLayout layout = layout(table.spec());
        TablePath path = logPath.apply(layout.tablePath());
        Supplier<TableInfo> streamInfo = describeSent(layout.tablePath());
        Supplier<TableInfo> logInfo = describeSent(path);
        checkCurrent(table, layout, streamInfo.get());
        TableInfo info = logInfo.get();
        checkNotForeign(table.spec(), info, false);
        // no metadata refresh of its own: the log's reads refresh it before they list its end,
        // and its scanner and writer learn a table their client does not know yet
        return new FlussSingleBucketLog(
                this, new FlussTable(flussConnection(), info.getTablePath(), info));
    }

    /**
     * Fluss's handle of a table described as {@code info}: what Fluss 0.9.1's {@code
     * FlussConnection#getTable} does (a refresh of the table's metadata, then a handle on its
     * description) without describing the table a second time, one round trip less.
     */
    private Table openTable(TableInfo info) {
        FlussConnection connection = flussConnection();
        connection.getMetadataUpdater().updateTableOrPartitionMetadata(info.getTablePath(), null);
        return new FlussTable(connection, info.getTablePath(), info);
    }

    private FlussConnection flussConnection() {
        return (FlussConnection) connection();
    }

    @Override
    public List<BinaryRow> listPartitions(StreamTable table) {
        if (!table.spec().isPartitioned()) {
            // its one partition, known without a round trip: a call that reads it checks the
            // table's incarnation itself
            return Collections.singletonList(BinaryRow.EMPTY_ROW);
        }
        FlussStreamTableLayout layout = layoutOf(table);
        FlussPartitionNames names = new FlussPartitionNames(table.spec());
        List<BinaryRow> partitions = new ArrayList<>();
        for (PartitionInfo info : partitionInfos(layout.tablePath())) {
            partitions.add(names.partitionOf(info.getPartitionName()));
        }
        return partitions;
    }

    @Override
    public void dropPartition(StreamTable table, BinaryRow partition) {
        FlussStreamTableLayout layout = layoutOf(table);
        if (!table.spec().isPartitioned()) {
            throw new IllegalArgumentException(
                    "Stream table " + table.storeTableName() + " has no partitions to drop.");
        }
        TablePath path = layout.tablePath();
        String name = new FlussPartitionNames(table.spec()).nameOf(partition);
        PartitionSpec spec =
                ResolvedPartitionSpec.fromPartitionName(table.spec().partitionKeys(), name)
                        .toPartitionSpec();
        // ignoring a missing one: another committer or a retry of this call dropped it already
        calls.awaitRetrying(
                () -> admin().dropPartition(path, spec, true),
                "drop partition " + name + " of table " + path);
        LOG.info("Dropped partition {} of stream table {}.", name, path);
    }

    @Override
    public Map<PartitionBucket, Long> listOffsets(
            StreamTable table,
            Collection<PartitionBucket> partitionBuckets,
            OffsetPosition position) {
        FlussStreamTableLayout layout = layout(table.spec());
        // the check that the stream table is still the one the handle names travels with the
        // listings, and is waited for before them: offsets of a table dropped and created again
        // are never returned, and a dropped one fails at once
        Supplier<TableInfo> info = describeSent(layout.tablePath());
        return listOffsets(
                        layout,
                        partitionBuckets,
                        Collections.singletonList(position),
                        () -> checkCurrent(table, layout, info.get()))
                .get(0);
    }

    /**
     * Asks for the offsets of all partitions at once and then waits: one metadata round trip and
     * then one round trip per partition leader, all in flight together. A partition the store does
     * not have yet holds no records, so its buckets are at offset 0.
     */
    Map<PartitionBucket, Long> listOffsets(
            FlussStreamTableLayout layout,
            Collection<PartitionBucket> partitionBuckets,
            OffsetPosition position) {
        return listOffsets(layout, partitionBuckets, Collections.singletonList(position)).get(0);
    }

    /**
     * The offsets of {@code partitionBuckets} at each of {@code positions}, in their order; the
     * listings of all positions travel together.
     */
    List<Map<PartitionBucket, Long>> listOffsets(
            FlussStreamTableLayout layout,
            Collection<PartitionBucket> partitionBuckets,
            List<OffsetPosition> positions) {
        return listOffsets(layout, partitionBuckets, positions, () -> {});
    }

    /**
     * As {@link #listOffsets(FlussStreamTableLayout, Collection, List)}, running {@code
     * beforeWaiting} once the listings are sent and before they are waited for.
     */
    private List<Map<PartitionBucket, Long>> listOffsets(
            FlussStreamTableLayout layout,
            Collection<PartitionBucket> partitionBuckets,
            List<OffsetPosition> positions,
            Runnable beforeWaiting) {
        List<OffsetSpec> specs = new ArrayList<>();
        List<Map<PartitionBucket, Long>> offsets = new ArrayList<>();
        for (OffsetPosition position : positions) {
            specs.add(
                    position == OffsetPosition.EARLIEST
                            ? new OffsetSpec.EarliestSpec()
                            : new OffsetSpec.LatestSpec());
            offsets.add(new HashMap<>());
        }
        FlussPartitionNames names =
                layout.spec().isPartitioned() ? new FlussPartitionNames(layout.spec()) : null;
        Map<BinaryRow, List<Integer>> bucketsPerPartition = new LinkedHashMap<>();
        for (PartitionBucket pb : partitionBuckets) {
            bucketsPerPartition
                    .computeIfAbsent(pb.partition(), p -> new ArrayList<>())
                    .add(pb.bucket());
        }
        // the partitions the cluster has, asked at most once and only when one is missing
        AtomicReference<Set<String>> knownPartitions = new AtomicReference<>();
        Supplier<Set<String>> existing =
                () -> knownPartitions.updateAndGet(known -> existing(layout, known));
        MetadataUpdater metadata = ((FlussConnection) connection()).getMetadataUpdater();
        Map<BinaryRow, List<CompletableFuture<Map<Integer, Long>>>> pending =
                FlussOffsetRequests.send(
                        metadata,
                        layout.tablePath(),
                        names,
                        bucketsPerPartition,
                        specs,
                        existing,
                        false);
        beforeWaiting.run();
        long deadline = System.currentTimeMillis() + calls.timeout().toMillis();
        while (!pending.isEmpty()) {
            // partitions whose listing failed are asked again together, after one pause for all
            // of them, not one pause each: many partitions a writer has just created would
            // otherwise cost a pause apiece
            Map<BinaryRow, List<Integer>> retry = new LinkedHashMap<>();
            for (Map.Entry<BinaryRow, List<CompletableFuture<Map<Integer, Long>>>> entry :
                    pending.entrySet()) {
                BinaryRow partition = entry.getKey();
                List<Integer> buckets = bucketsPerPartition.get(partition);
                List<Map<Integer, Long>> perPosition = new ArrayList<>();
                try {
                    for (CompletableFuture<Map<Integer, Long>> listing : entry.getValue()) {
                        perPosition.add(
                                calls.await(
                                        listing, "list offsets of table " + layout.tablePath()));
                    }
                } catch (StreamStoreException e) {
                    boolean notExisting =
                            FlussAdminCalls.causedBy(e, PartitionNotExistException.class);
                    boolean known =
                            notExisting
                                    && names != null
                                    && (System.currentTimeMillis() < deadline
                                            || knownPartitions.get() != null)
                                    && existing.get().contains(names.nameOf(partition));
                    if (known) {
                        // the partition exists (the cluster's metadata says so): the server that
                        // answered did not know it yet, e.g. a tablet server just restarted; a
                        // 0 here would hide its records from a read and a seal
                        if (System.currentTimeMillis() >= deadline) {
                            throw e;
                        }
                        retry.put(partition, buckets);
                        continue;
                    } else if (notExisting) {
                        perPosition.clear();
                        Map<Integer, Long> empty = new HashMap<>();
                        for (int bucket : buckets) {
                            empty.put(bucket, 0L);
                        }
                        for (int i = 0; i < specs.size(); i++) {
                            perPosition.add(empty);
                        }
                    } else if (System.currentTimeMillis() < deadline) {
                        // a partition the writer has just created may not have bucket leaders in
                        // the client's metadata yet; the next listing refreshes it
                        retry.put(partition, buckets);
                        continue;
                    } else {
                        throw e;
                    }
                }
                for (int i = 0; i < specs.size(); i++) {
                    for (Map.Entry<Integer, Long> bucketOffset : perPosition.get(i).entrySet()) {
                        offsets.get(i)
                                .put(
                                        new PartitionBucket(partition, bucketOffset.getKey()),
                                        bucketOffset.getValue());
                    }
                }
            }
            if (!retry.isEmpty()) {
                sleepBriefly();
                pending =
                        FlussOffsetRequests.send(
                                metadata, layout.tablePath(), names, retry, specs, existing, true);
            } else {
                pending = Collections.emptyMap();
            }
        }
        return offsets;
    }

    /**
     * {@code known}, or the names of the partitions of the table as the cluster's metadata (not a
     * tablet server's cache) has them.
     */
    private Set<String> existing(FlussStreamTableLayout layout, Set<String> known) {
        if (known != null) {
            return known;
        }
        Set<String> partitions = new HashSet<>();
        for (PartitionInfo info :
                calls.awaitRetrying(
                        () -> admin().listPartitionInfos(layout.tablePath()),
                        "list partitions of table " + layout.tablePath())) {
            partitions.add(info.getPartitionName());
        }
        return partitions;
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamStoreException("Interrupted while listing offsets", e);
        }
    }

    List<PartitionInfo> partitionInfos(TablePath path) {
        return calls.awaitRetrying(
                () -> admin().listPartitionInfos(path), "list partitions of table " + path);
    }

    /**
     * Checks that the handle still names the current incarnation of the table, and that the table
     * still belongs to the handle's owner.
     */
    FlussStreamTableLayout layoutOf(StreamTable table) {
        FlussStreamTableLayout layout = layout(table.spec());
        checkCurrent(table, layout, describe(layout.tablePath()));
        return layout;
    }

    /**
     * Checks that {@code info}, the description of the stream table at {@code layout}, is the
     * incarnation {@code table} names and still belongs to its owner.
     */
    private void checkCurrent(StreamTable table, FlussStreamTableLayout layout, TableInfo info) {
        if (info.getTableId() != table.storeTableId()) {
            throw new StreamStoreException(
                    String.format(
                            "The stream table %s of Paimon table %s was dropped and created again "
                                    + "(table id %d is now %d): offsets recorded against the old "
                                    + "table do not apply to the new one.",
                            layout.tablePath(),
                            table.spec().identifier().getFullName(),
                            table.storeTableId(),
                            info.getTableId()));
        }
        StreamTableOwner own = table.spec().owner().orElse(null);
        StreamTableOwner recorded = recordedOwner(info);
        if (StreamTableOwner.claim(own, recorded) == StreamTableOwner.Claim.FOREIGN) {
            throw foreign(table.spec().identifier(), own, layout.tablePath(), recorded);
        }
    }

    private TableInfo describe(TablePath path) {
        return describeSent(path).get();
    }

    /** Sends the description of {@code path} now; the supplier waits for it. */
    private Supplier<TableInfo> describeSent(TablePath path) {
        Supplier<TableInfo> sent =
                calls.sendRetrying(() -> admin().getTableInfo(path), "describe table " + path);
        return () -> described(path, sent);
    }

    private TableInfo described(TablePath path, Supplier<TableInfo> sent) {
        try {
            return sent.get();
        } catch (StreamStoreException e) {
            if (FlussAdminCalls.causedBy(
                    e, org.apache.fluss.exception.TableNotExistException.class)) {
                throw new StreamStoreException(
                        String.format(
                                "The stream table %s does not exist in the Fluss cluster at %s.",
                                path, calls.bootstrapServers()),
                        e);
            }
            throw e;
        }
    }

    Connection connection() {
        return leased().connection;
    }

    Duration writeTimeout() {
        return writeTimeout;
    }

    FlussAdminCalls calls() {
        return calls;
    }

    /**
     * Takes this store's connection out of use for everyone: a writer whose records failed or were
     * not flushed leaves batches in the connection's writer that a restarted attempt must not find
     * there (they would land after its fences), and a connection whose calls time out may know a
     * server's old address. The connection is closed, dropping pending batches, when its last user
     * closes its store; the next store opens a new one, and so does this store's next call.
     */
    synchronized void discardConnection() {
        if (!renew) {
            current.lease.invalidate();
            renew = true;
        }
    }

    /**
     * Releases this store's share of the process's connection ({@link FlussConnections}): it
     * returns at once, and the connection is closed in the background once nobody has used it for
     * the idle timeout. A {@link #discardConnection discarded} connection is closed at once by its
     * last user, within the write timeout.
     */
    @Override
    public synchronized void close() {
        current.lease.close();
        discarded.forEach(SharedResourcePool.Lease::close);
        discarded.clear();
    }

    /** A lease of a pooled connection, with the connection's admin client. */
    private static final class Leased {
        final SharedResourcePool.Lease<FlussConnections.Opened> lease;
        final Connection connection;
        final Admin admin;

        Leased(SharedResourcePool.Lease<FlussConnections.Opened> lease) {
            this.lease = lease;
            this.connection = lease.resource().connection;
            this.admin = connection.getAdmin();
        }
    }
}
