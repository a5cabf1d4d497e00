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

package io.lakestream.table;

import io.lakestream.LakeStreamOptions;
import io.lakestream.StatementErrors;
import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.offsets.StreamOffsetsUnknownException;
import io.lakestream.protocol.WriterLeases;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.WriterLeaseEntry;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.utils.TimeUtils;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Turns lake-stream mode on and off for a Paimon table, in place, in steps that are each safe to
 * repeat, so that an enablement that stopped halfway is completed by running it again:
 *
 * <ol>
 *   <li>{@link #provision}: create (or check) the stream table;
 *   <li>{@link #recordStartOffsets}: commit a Paimon snapshot, without data, whose offsets map is
 *       the stream table's current end of every partition-bucket (zero for a new stream table), so
 *       that every later snapshot's offsets belong to this stream table; under the table's writer
 *       lease, so it is refused while a sink job writes the table, and after fencing what a stopped
 *       job left uncommitted;
 *   <li>set {@code 'lake-stream.enabled' = 'true'} on the table, the switch writers and readers
 *       look at, last.
 * </ol>
 *
 * <p>Disabling only sets the option to {@code false}: new writes go to Paimon alone and reads read
 * Paimon alone; the stream table stays unless it is dropped through the procedure.
 */
public final class LakeStreamEnablement {

    private static final Logger LOG = LoggerFactory.getLogger(LakeStreamEnablement.class);

    private final Catalog catalog;
    private final Map<String, String> catalogOptions;
    private final Class<? extends RuntimeException> refusalType;
    private final Function<String, ? extends RuntimeException> refusal;
    private final StreamTableCache streamTables = new StreamTableCache();

    /**
     * Refuses with {@link LakeStreamRefusedException}.
     *
     * @param catalog the Paimon catalog that holds the tables (not a lake-stream wrapper of it)
     * @param catalogOptions the catalog's options, whose {@code lake-stream.*} entries configure
     *     the store
     */
    public LakeStreamEnablement(Catalog catalog, Map<String, String> catalogOptions) {
        this(
                catalog,
                catalogOptions,
                LakeStreamRefusedException.class,
                LakeStreamRefusedException::new);
    }

    /**
     * @param refusalType the engine's error of a refused statement, with which every refusal of
     *     this class is thrown: Flink's {@code ValidationException}, so that the SQL client shows
     *     it as Flink's own. A failure of this type from a step is passed on as it is; any other
     *     one becomes a refusal that names the table.
     * @param refusal makes a refusal of {@code refusalType} with a message
     */
    public <E extends RuntimeException> LakeStreamEnablement(
            Catalog catalog,
            Map<String, String> catalogOptions,
            Class<E> refusalType,
            Function<String, E> refusal) {
        this.catalog = catalog;
        this.catalogOptions = catalogOptions;
        this.refusalType = refusalType;
        this.refusal = refusal;
    }

    /**
     * Checks that {@code table} is in lake-stream mode, as a writer or reader of its tail needs:
     * the main branch of a table whose {@code 'lake-stream.enabled'} is {@code true}.
     *
     * @param howToEnable what the caller's user does to enable it, for the error
     * @param remedy what to do instead, appended to either error; empty for none
     * @throws LakeStreamRefusedException naming the table, when it is a branch or not enabled
     */
    public static void checkInLakeStreamMode(
            FileStoreTable table, String howToEnable, String remedy) {
        if (MainBranchOnly.isBranch(table)) {
            throw new LakeStreamRefusedException(
                    String.format(
                            "Table %s is branch '%s' of a table: only the main branch of a table "
                                    + "is in lake-stream mode%s.",
                            table.fullName(), table.coreOptions().branch(), remedy));
        }
        if (!isEnabled(table.options())) {
            throw new LakeStreamRefusedException(
                    String.format(
                            "Table %s is not in lake-stream mode: %s%s.",
                            table.fullName(), howToEnable, remedy));
        }
    }

    /** The catalog's options; its {@code lake-stream.*} entries win over a table's. */
    public Map<String, String> catalogOptions() {
        return catalogOptions;
    }

    /** The stream tables this catalog knows, which planning takes without asking the store. */
    public StreamTableCache streamTables() {
        return streamTables;
    }

    /** Whether the table's options turn lake-stream mode on. */
    public static boolean isEnabled(Map<String, String> tableOptions) {
        return Boolean.parseBoolean(
                tableOptions.getOrDefault(LakeStreamOptions.ENABLED.key(), "false"));
    }

    /**
     * Enables lake-stream mode on {@code identifier} with {@code options} (more {@code
     * lake-stream.*} table options, may be empty). Idempotent.
     *
     * @throws RuntimeException of the refusal type naming the table and what stands in the way
     */
    public void enable(Identifier identifier, Map<String, String> options) {
        CredentialOptions.refuse(
                identifier.getFullName(), options.keySet(), "as table options", refusal);
        OptionValues.refuseUnreadable(identifier.getFullName(), options, refusal);
        MainBranchOnly.checkEnablingAllowed(identifier, refusal);
        FileStoreTable before = fileStoreTable(identifier);
        FileStoreTable table = before.copy(options);
        provisionAndRecordStart(identifier, table);
        List<SchemaChange> changes = new ArrayList<>();
        options.forEach((k, v) -> changes.add(SchemaChange.setOption(k, v)));
        firstEnableDefaults(before.options(), options)
                .forEach((k, v) -> changes.add(SchemaChange.setOption(k, v)));
        changes.add(SchemaChange.setOption(LakeStreamOptions.ENABLED.key(), "true"));
        alter(identifier, changes);
    }

    /**
     * The options that enabling writes, beside {@code 'lake-stream.enabled'}, into a table that has
     * never been in lake-stream mode (its options have no {@code 'lake-stream.enabled'} at all):
     * {@code 'lake-stream.sink.store-writer-chaining' = 'false'}, unless the statement or the
     * catalog sets it. Its option's default stays {@code true} for the tables enabled before, whose
     * running jobs' savepoints hold the chained writer's graph (the other graph restores only by
     * dropping their state); a table enabled now has no such job yet, and its sinks write the store
     * from a task of their own, which a checkpoint does not stop (see {@link
     * LakeStreamOptions#SINK_STORE_WRITER_CHAINING}).
     *
     * @param tableOptions the table's options before this enabling
     * @param given the options the enabling statement sets
     */
    public Map<String, String> firstEnableDefaults(
            Map<String, String> tableOptions, Map<String, String> given) {
        String chaining = LakeStreamOptions.SINK_STORE_WRITER_CHAINING.key();
        if (tableOptions.containsKey(LakeStreamOptions.ENABLED.key())
                || tableOptions.containsKey(chaining)
                || given.containsKey(chaining)
                || catalogOptions.containsKey(chaining)) {
            return Collections.emptyMap();
        }
        return Collections.singletonMap(chaining, "false");
    }

    /** Disables lake-stream mode; drops the stream table too when asked. Idempotent. */
    public void disable(Identifier identifier, boolean dropStreamTable) {
        streamTables.forget(identifier);
        FileStoreTable table = fileStoreTable(identifier);
        if (isEnabled(table.options())) {
            List<SchemaChange> changes = new ArrayList<>();
            changes.add(SchemaChange.setOption(LakeStreamOptions.ENABLED.key(), "false"));
            alter(identifier, changes);
        }
        if (dropStreamTable) {
            try (StreamStore store = openStore(table.options())) {
                store.drop(identifier, StreamTableOwner.of(table));
            } catch (StreamStoreException e) {
                throw StatementErrors.rootOf(
                        refusal,
                        String.format(
                                "Lake-stream mode is disabled on table %s, but its stream table "
                                        + "was not dropped: %s",
                                identifier.getFullName(), e.getMessage()),
                        e);
            }
        }
    }

    /** Steps 1 and 2 with one store client (closing one takes a while). */
    public void provisionAndRecordStart(Identifier identifier, FileStoreTable table) {
        streamTables.forget(identifier);
        StreamTableSpec spec = validatedSpec(identifier, table);
        enabling(
                identifier,
                () -> {
                    try (StreamStore store = openStore(table.options())) {
                        recordStartOffsets(
                                identifier, table, provision(identifier, spec, store), store);
                    }
                    return null;
                });
    }

    /** Step 1 alone. */
    public StreamTable provision(Identifier identifier, FileStoreTable table) {
        streamTables.forget(identifier);
        StreamTableSpec spec = validatedSpec(identifier, table);
        return enabling(
                identifier,
                () -> {
                    try (StreamStore store = openStore(table.options())) {
                        return provision(identifier, spec, store);
                    }
                });
    }

    /** Step 2 alone. */
    public void recordStartOffsets(
            Identifier identifier, FileStoreTable table, StreamTable streamTable) {
        enabling(
                identifier,
                () -> {
                    try (StreamStore store = openStore(table.options())) {
                        recordStartOffsets(identifier, table, streamTable, store);
                    }
                    return null;
                });
    }

    /**
     * Runs a step of enabling {@code identifier}: a failure that is not already one of ours (the
     * store cannot be opened or reached, a store option is malformed) becomes a {@link refusal}
     * that names the table, as the root of its chain (see {@link StatementErrors}); the store's own
     * message names its address.
     */
    private <T> T enabling(Identifier identifier, Supplier<T> step) {
        try {
            return step.get();
        } catch (RuntimeException e) {
            if (refusalType.isInstance(e)) {
                throw e;
            }
            throw StatementErrors.rootOf(
                    refusal,
                    String.format(
                            "Cannot enable lake-stream mode on table %s: %s",
                            identifier.getFullName(), e.getMessage()),
                    e);
        }
    }

    private StreamTableSpec validatedSpec(Identifier identifier, FileStoreTable table) {
        checkFixedBucket(identifier, table);
        StreamTableSpec spec = enabling(identifier, () -> StreamTableSpec.of(identifier, table));
        if (bucketFunction(table) != CoreOptions.BucketFunctionType.DEFAULT) {
            throw refusal.apply(
                    String.format(
                            "Cannot enable lake-stream mode on table %s: it has '%s' = '%s', but "
                                    + "the stream store buckets rows with Paimon's default bucket "
                                    + "function only.",
                            identifier.getFullName(),
                            CoreOptions.BUCKET_FUNCTION_TYPE.key(),
                            bucketFunction(table)));
        }
        return spec;
    }

    private StreamTable provision(Identifier identifier, StreamTableSpec spec, StreamStore store) {
        try {
            return store.provision(spec);
        } catch (RuntimeException e) {
            throw StatementErrors.rootOf(
                    refusal,
                    String.format(
                            "Cannot enable lake-stream mode on table %s: %s",
                            identifier.getFullName(), e.getMessage()),
                    e);
        }
    }

    /**
     * Step 2: a snapshot that records the stream table's current ends as its offsets, taken under
     * the table's writer lease and refused while a sink job holds it.
     *
     * <p>Why the lease: a job started while the table was enabled keeps dual-writing after a
     * disable. Its store records past its last commit are not in Paimon yet; recording the store's
     * end now would put them below the new snapshot's offsets, so that readers starting there read
     * them from neither part, and the job's later commits would build on offsets it did not seal.
     * Holding the lease while the ends are read and recorded also keeps a job that restarts in the
     * meantime from writing before they are recorded, and releasing it retires the claims of every
     * job seen before: a job whose lease expired while it was only paused fails at its next barrier
     * instead of writing on past the recorded offsets, and claims the table anew.
     *
     * <p>Why the fences: what a stopped job (cancelled, or failed for good) left in the store past
     * the table's tiered offsets will never be committed. Enabling records offsets above it, so it
     * is fenced first, as the next writer would fence it: a {@code read-committed} reader or one
     * that reads on from an earlier snapshot must never take it for committed data.
     */
    private void recordStartOffsets(
            Identifier identifier,
            FileStoreTable table,
            StreamTable streamTable,
            StreamStore store) {
        String commitUser = "lake-stream-enable-" + UUID.randomUUID();
        Duration timeout =
                Options.fromMap(LakeStreamOptions.forTable(table.options(), catalogOptions))
                        .get(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT);
        try {
            WriterLeases.runExclusively(
                    store,
                    streamTable,
                    "enabling lake-stream mode on table " + identifier.getFullName(),
                    timeout,
                    () -> {
                        StreamOffsets ends =
                                StreamOffsets.of(
                                        store.listOffsets(
                                                streamTable,
                                                store.listPartitionBuckets(streamTable),
                                                OffsetPosition.LATEST));
                        fenceUncommittedTails(identifier, table, streamTable, store, ends);
                        commitOffsets(identifier, table, commitUser, ends, refusal);
                        return null;
                    });
        } catch (WriterLeases.LeaseHeldException e) {
            WriterLeaseEntry holder = e.holder();
            // the message tells all the lease's refusal does: it is kept, not repeated
            throw StatementErrors.withSuppressed(
                    refusal,
                    String.format(
                            "Cannot enable lake-stream mode on table %s: a sink job still holds "
                                    + "the table's writer lease: %s (commit user %s), which last "
                                    + "claimed or renewed it at %s. Enabling now would record its "
                                    + "records not yet committed to Paimon as the start of the "
                                    + "stream. Stop that job (a job keeps dual-writing after a "
                                    + "disable until it is stopped), or, if it has stopped, enable "
                                    + "again after its lease expires, %d ms after that time ('%s' "
                                    + "= '%s').",
                            identifier.getFullName(),
                            holder.description(),
                            holder.owner(),
                            Instant.ofEpochMilli(holder.timestamp()),
                            e.timeout().toMillis(),
                            LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT.key(),
                            TimeUtils.formatWithHighestUnit(e.timeout())),
                    e);
        }
    }

    /**
     * Fences, per partition-bucket, the store's records from the latest snapshot's offset to the
     * store's end: a stopped job's records that no snapshot committed. Nothing is fenced when no
     * snapshot records offsets (a first enablement: the stream table was just created).
     */
    private static void fenceUncommittedTails(
            Identifier identifier,
            FileStoreTable table,
            StreamTable streamTable,
            StreamStore store,
            StreamOffsets ends) {
        Optional<StreamOffsets> tiered;
        try {
            tiered = SnapshotOffsets.ofLatestSnapshot(table);
        } catch (StreamOffsetsUnknownException e) {
            // enabling is the way out of a lost chain: what was committed is unknown, so nothing
            // can be told apart as a tail; the recorded ends become the start of the stream
            LOG.warn(
                    "Enabling {}: its stream offsets were lost, so no uncommitted tail is fenced; "
                            + "the store's current ends become the start of the stream.",
                    identifier.getFullName());
            return;
        }
        if (!tiered.isPresent()) {
            return;
        }
        List<AbortedRange> tails = new ArrayList<>();
        for (Map.Entry<PartitionBucket, Long> end : ends.asMap().entrySet()) {
            long base = tiered.get().offsetOr(end.getKey(), 0L);
            if (end.getValue() > base) {
                tails.add(new AbortedRange(end.getKey(), base, end.getValue()));
                LOG.info(
                        "Enabling {}: fencing offsets [{}, {}) of {}, written by a stopped job "
                                + "and never committed.",
                        identifier.getFullName(),
                        base,
                        end.getValue(),
                        streamTable.spec().describe(end.getKey()));
            }
        }
        if (tails.isEmpty()) {
            return;
        }
        try (FenceLog fences = store.openFenceLog(streamTable)) {
            fences.recordAll(tails);
        }
    }

    /**
     * Commits a Paimon snapshot without data whose offsets map is {@code ends}, and anchors it; a
     * failure is thrown as {@code refusal}.
     */
    public static void commitOffsets(
            Identifier identifier,
            FileStoreTable table,
            String commitUser,
            StreamOffsets ends,
            Function<String, ? extends RuntimeException> refusal) {
        Long latestBefore = table.snapshotManager().latestSnapshotId();
        try (TableCommitImpl commit = table.newCommit(commitUser).ignoreEmptyCommit(false)) {
            ManifestCommittable committable = new ManifestCommittable(System.currentTimeMillis());
            committable.addProperty(
                    SnapshotOffsets.OFFSETS_PROPERTY, SnapshotOffsets.write(table, ends));
            commit.commit(committable);
            // the anchor keeps the map findable after Paimon expires the snapshot
            SnapshotOffsets.anchorSnapshotsAfter(table, latestBefore == null ? 0L : latestBefore);
        } catch (Exception e) {
            throw StatementErrors.rootOf(
                    refusal,
                    "Cannot record the offsets of lake-stream table " + identifier.getFullName(),
                    e);
        }
    }

    /** The store of a table: the catalog's {@code lake-stream.*} options over the table's. */
    public StreamStore openStore(Map<String, String> tableOptions) {
        return StreamStoreLoader.create(
                LakeStreamOptions.forTable(tableOptions, catalogOptions),
                LakeStreamEnablement.class.getClassLoader());
    }

    /**
     * The data table {@code identifier}.
     *
     * @throws RuntimeException of the refusal type when it does not exist or is not a data table
     */
    public FileStoreTable fileStoreTable(Identifier identifier) {
        Table table;
        try {
            table = catalog.getTable(identifier);
        } catch (Catalog.TableNotExistException e) {
            throw StatementErrors.rootOf(
                    refusal,
                    String.format("Table %s does not exist.", identifier.getFullName()),
                    e);
        }
        if (!(table instanceof FileStoreTable)) {
            throw refusal.apply(
                    String.format(
                            "Table %s is not a Paimon data table; lake-stream mode needs one.",
                            identifier.getFullName()));
        }
        return (FileStoreTable) table;
    }

    private void alter(Identifier identifier, List<SchemaChange> changes) {
        try {
            catalog.alterTable(identifier, changes, false);
        } catch (Catalog.TableNotExistException
                | Catalog.ColumnAlreadyExistException
                | Catalog.ColumnNotExistException e) {
            throw StatementErrors.rootOf(
                    refusal, "Cannot change the options of table " + identifier.getFullName(), e);
        }
    }

    /**
     * Refuses a table without a fixed number of buckets, naming the mode it has and the way out:
     * Paimon changes the bucket number of neither a dynamic nor a postpone bucket table in place.
     */
    private void checkFixedBucket(Identifier identifier, FileStoreTable table) {
        int buckets = table.schema().numBuckets();
        if (buckets >= 1) {
            return;
        }
        boolean primaryKey = !table.schema().primaryKeys().isEmpty();
        String mode;
        if (buckets == BucketMode.POSTPONE_BUCKET) {
            mode = "postpone bucket mode";
        } else if (primaryKey) {
            mode = "dynamic bucket mode, which a primary-key table has without a 'bucket' option";
        } else {
            mode =
                    "bucket-unaware mode, which a table without a primary key has without a "
                            + "'bucket' option";
        }
        throw refusal.apply(
                String.format(
                        "Cannot enable lake-stream mode on table %s: it has '%s' = '%d' (%s), but "
                                + "lake-stream mode needs a fixed bucket count ('%s' >= 1) "
                                + "to align the stream table's buckets with Paimon's. Paimon "
                                + "cannot change the bucket number of this table in place: "
                                + "create a table with a fixed number of buckets, for example "
                                + "WITH ('%s' = '4'%s), copy the data into it with INSERT INTO "
                                + "... SELECT, and enable lake-stream mode on that table.",
                        identifier.getFullName(),
                        CoreOptions.BUCKET.key(),
                        buckets,
                        mode,
                        CoreOptions.BUCKET.key(),
                        CoreOptions.BUCKET.key(),
                        primaryKey
                                ? ""
                                : ", '" + CoreOptions.BUCKET_KEY.key() + "' = '<columns>'"));
    }

    private static CoreOptions.BucketFunctionType bucketFunction(FileStoreTable table) {
        return org.apache.paimon.options.Options.fromMap(table.options())
                .get(CoreOptions.BUCKET_FUNCTION_TYPE);
    }
}
