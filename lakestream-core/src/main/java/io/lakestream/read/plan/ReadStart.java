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

package io.lakestream.read.plan;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.CoreOptions.StartupMode;
import org.apache.paimon.Snapshot;
import org.apache.paimon.options.ConfigOption;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.snapshot.FullCompactedStartingScanner;
import org.apache.paimon.table.source.snapshot.TimeTravelUtil;
import org.apache.paimon.utils.SnapshotManager;

import javax.annotation.Nullable;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a read of a lake-stream table starts, resolved from Paimon's scan options the way Paimon
 * 1.3.1's own starting scanners resolve them (see {@code AbstractDataTableScan
 * #createStartingScanner}): the snapshot, whether its state is read (the lake part) or only the
 * changes after it, where each partition-bucket's log starts, and whether the log stops at the
 * snapshot's own offsets.
 *
 * <ul>
 *   <li>Bounded with {@code scan.snapshot-id}, {@code scan.timestamp-millis}, {@code
 *       scan.timestamp}, {@code scan.tag-name}, {@code scan.watermark} or {@code scan.version}:
 *       exactly that snapshot's state, as Paimon's time travel picks it; nothing from the store.
 *   <li>Bounded otherwise: the latest snapshot, and the store from its offsets (the freshest read).
 *   <li>Unbounded {@code latest-full} (the default) and {@code from-snapshot-full}: the snapshot's
 *       state, then the store from its offsets.
 *   <li>Unbounded {@code latest}, {@code from-snapshot} and {@code from-timestamp}: no state, the
 *       store from the offsets of the snapshot before the first delta Paimon would return.
 * </ul>
 *
 * <p>The changes after a snapshot are in the store from its offsets if the snapshot records
 * offsets. An unbounded read from a snapshot taken before the table was enabled starts the store at
 * the offsets the chain starts from, and returns what Paimon alone committed between the snapshot
 * and the enablement by following those commits ({@link ForeignCommits}), as it follows every
 * commit of another writer; a table whose chain has not started yet is refused.
 */
public final class ReadStart {

    /** The options of Paimon's time travel, which pick one snapshot. */
    private static final List<ConfigOption<?>> TIME_TRAVEL =
            Arrays.asList(
                    CoreOptions.SCAN_SNAPSHOT_ID,
                    CoreOptions.SCAN_TAG_NAME,
                    CoreOptions.SCAN_WATERMARK,
                    CoreOptions.SCAN_TIMESTAMP,
                    CoreOptions.SCAN_TIMESTAMP_MILLIS,
                    CoreOptions.SCAN_VERSION);

    /** Every option that picks where Paimon's scan starts; the lake scan gets its own. */
    private static final List<ConfigOption<?>> STARTING_OPTIONS =
            Arrays.asList(
                    CoreOptions.SCAN_MODE,
                    CoreOptions.SCAN_SNAPSHOT_ID,
                    CoreOptions.SCAN_TAG_NAME,
                    CoreOptions.SCAN_WATERMARK,
                    CoreOptions.SCAN_TIMESTAMP,
                    CoreOptions.SCAN_TIMESTAMP_MILLIS,
                    CoreOptions.SCAN_VERSION,
                    CoreOptions.SCAN_FILE_CREATION_TIME_MILLIS,
                    CoreOptions.SCAN_CREATION_TIME_MILLIS,
                    CoreOptions.INCREMENTAL_BETWEEN,
                    CoreOptions.INCREMENTAL_BETWEEN_TIMESTAMP,
                    CoreOptions.INCREMENTAL_TO_AUTO_TAG);

    @Nullable private final Snapshot snapshot;
    private final boolean readsState;
    private final boolean exact;
    private final StreamOffsets logOffsets;
    private final Map<String, String> scanOptions;
    @Nullable private final Long filesCreatedSince;
    private final long changesAfter;

    private ReadStart(
            @Nullable Snapshot snapshot,
            boolean readsState,
            boolean exact,
            StreamOffsets logOffsets,
            Map<String, String> scanOptions) {
        this(
                snapshot,
                readsState,
                exact,
                logOffsets,
                scanOptions,
                null,
                snapshot == null ? 0 : snapshot.id());
    }

    private ReadStart(
            @Nullable Snapshot snapshot,
            boolean readsState,
            boolean exact,
            StreamOffsets logOffsets,
            Map<String, String> scanOptions,
            @Nullable Long filesCreatedSince,
            long changesAfter) {
        this.changesAfter = changesAfter;
        this.snapshot = snapshot;
        this.readsState = readsState;
        this.exact = exact;
        this.logOffsets = logOffsets;
        this.scanOptions = scanOptions;
        this.filesCreatedSince = filesCreatedSince;
    }

    /**
     * Whether a bounded read with these table options returns one snapshot's state exactly: one of
     * Paimon's time travel options is set.
     */
    public static boolean travelsInTime(Map<String, String> tableOptions) {
        for (ConfigOption<?> option : TIME_TRAVEL) {
            if (tableOptions.containsKey(option.key())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Resolves the start of a read of {@code table} from its (dynamic) options.
     *
     * @throws IllegalArgumentException naming the table and the option when the start does not
     *     exist or the changes after it are not all in the store
     */
    public static ReadStart resolve(FileStoreTable table, boolean bounded) {
        if (bounded) {
            if (travelsInTime(table.options())) {
                return snapshotState(table);
            }
            // no change after the latest snapshot is followed: whether the mode was off since it
            // does not matter. It can have been only after a rollback behind the enabling
            // snapshot, and what the store holds past its offsets is then no snapshot's: a writer
            // fences it when it starts, and with no writer the read stops at the offsets.
            Snapshot latest = table.snapshotManager().latestSnapshot();
            if (latest == null) {
                return full(table, null, "the latest snapshot");
            }
            return new ReadStart(
                    latest,
                    true,
                    false,
                    SnapshotOffsets.ofSnapshot(table, latest.id()).orElse(StreamOffsets.empty()),
                    scanOptions(CoreOptions.SCAN_SNAPSHOT_ID, String.valueOf(latest.id())));
        }
        CoreOptions options = table.coreOptions();
        SnapshotManager snapshots = table.snapshotManager();
        StartupMode mode = options.startupMode();
        switch (mode) {
            case LATEST_FULL:
                return full(table, snapshots.latestSnapshot(), "the latest snapshot");
            case LATEST:
                return changesAfter(
                        table, snapshots.latestSnapshotId(), option(CoreOptions.SCAN_MODE, mode));
            case FROM_TIMESTAMP:
                {
                    Long millis = TimeTravelUtil.scanTimestampMills(options.toConfiguration());
                    // strictly earlier: a snapshot committed at the time is a change to read
                    Long before =
                            TimeTravelUtil.earlierThanTimeMills(
                                    snapshots,
                                    table.changelogManager(),
                                    millis,
                                    options.changelogLifecycleDecoupled(),
                                    false);
                    return changesAfter(table, before, timestampOption(table));
                }
            case FROM_SNAPSHOT:
                if (options.scanSnapshotId() == null) {
                    // a tag, a watermark, or a 'scan.version' that names no snapshot
                    throw new IllegalArgumentException(
                            String.format(
                                    "Table %s: an unbounded read starts from '%s' only (or a "
                                            + "'%s' that names an existing snapshot id), as "
                                            + "Paimon's streaming read does: Paimon refuses a tag "
                                            + "or a watermark in streaming mode too (\"Cannot "
                                            + "scan from tag in streaming mode\"). Read the tag or "
                                            + "watermark bounded, or follow its snapshot with "
                                            + "'%s' = 'from-snapshot-full' and '%s'.",
                                    table.fullName(),
                                    CoreOptions.SCAN_SNAPSHOT_ID.key(),
                                    CoreOptions.SCAN_VERSION.key(),
                                    CoreOptions.SCAN_MODE.key(),
                                    CoreOptions.SCAN_SNAPSHOT_ID.key()));
                }
                return changesFrom(table, options.scanSnapshotId());
            case FROM_SNAPSHOT_FULL:
                return fullFrom(table, options.scanSnapshotId());
            case COMPACTED_FULL:
                return compactedFull(table);
            case FROM_FILE_CREATION_TIME:
                {
                    long millis = required(table, mode, CoreOptions.SCAN_FILE_CREATION_TIME_MILLIS);
                    return filesCreatedSince(
                            table,
                            millis,
                            option(CoreOptions.SCAN_FILE_CREATION_TIME_MILLIS, millis));
                }
            case FROM_CREATION_TIMESTAMP:
                return createdSince(
                        table, required(table, mode, CoreOptions.SCAN_CREATION_TIME_MILLIS));
            default:
                throw new IllegalArgumentException(
                        String.format(
                                "Table %s: '%s' = '%s' is not supported by lake-stream reads.",
                                table.fullName(), CoreOptions.SCAN_MODE.key(), mode));
        }
    }

    /**
     * Where an unbounded read of a Paimon consumer starts when the consumer exists: the changes of
     * snapshot {@code nextSnapshot} and later, as Paimon's streaming read of a consumer starts
     * ({@code ContinuousFromSnapshotStartingScanner} from the consumer's next snapshot).
     *
     * @throws IllegalArgumentException naming the table when snapshot {@code nextSnapshot - 1} is
     *     not committed or the changes after it cannot be followed
     */
    public static ReadStart consumerResume(FileStoreTable table, long nextSnapshot) {
        return changesFrom(table, nextSnapshot, "the consumer's next snapshot " + nextSnapshot);
    }

    /** Bounded time travel: exactly the snapshot Paimon's time travel picks, nothing stored. */
    private static ReadStart snapshotState(FileStoreTable table) {
        // a copy: resolving 'scan.version' rewrites it into the option it stands for
        Options options = Options.fromMap(table.options());
        Snapshot snapshot;
        try {
            snapshot =
                    TimeTravelUtil.tryTravelToSnapshot(
                                    options, table.snapshotManager(), table.tagManager())
                            .orElseThrow(IllegalStateException::new);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table %s: cannot read the snapshot that %s picks: %s",
                            table.fullName(), timeTravelOptions(table), e.getMessage()),
                    e);
        }
        String tag = options.get(CoreOptions.SCAN_TAG_NAME);
        // a tag keeps its snapshot after Paimon expired it: its offsets come with it
        StreamOffsets offsets =
                SnapshotOffsets.ofSnapshot(table, snapshot).orElse(StreamOffsets.empty());
        return new ReadStart(
                snapshot,
                true,
                true,
                offsets,
                tag != null
                        ? scanOptions(CoreOptions.SCAN_TAG_NAME, tag)
                        : scanOptions(CoreOptions.SCAN_SNAPSHOT_ID, String.valueOf(snapshot.id())));
    }

    /** Unbounded {@code from-snapshot-full}: snapshot max(id, earliest), then its changes. */
    private static ReadStart fullFrom(FileStoreTable table, long snapshotId) {
        SnapshotManager snapshots = table.snapshotManager();
        Long earliest = snapshots.earliestSnapshotId();
        long id = earliest == null ? snapshotId : Math.max(snapshotId, earliest);
        if (!snapshots.snapshotExists(id)) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table %s has no snapshot %d (%s); its latest snapshot is %s.",
                            table.fullName(),
                            id,
                            option(CoreOptions.SCAN_SNAPSHOT_ID, snapshotId),
                            snapshots.latestSnapshotId()));
        }
        return full(
                table, snapshots.snapshot(id), option(CoreOptions.SCAN_SNAPSHOT_ID, snapshotId));
    }

    /**
     * Unbounded {@code from-snapshot}: the changes of snapshot max(id, earliest) and later, as
     * Paimon's {@code ContinuousFromSnapshotStartingScanner} returns them.
     */
    private static ReadStart changesFrom(FileStoreTable table, long snapshotId) {
        return changesFrom(table, snapshotId, option(CoreOptions.SCAN_SNAPSHOT_ID, snapshotId));
    }

    private static ReadStart changesFrom(FileStoreTable table, long snapshotId, String chosenBy) {
        SnapshotManager snapshots = table.snapshotManager();
        boolean decoupled = table.coreOptions().changelogLifecycleDecoupled();
        Long earliestChangelog =
                decoupled ? table.changelogManager().earliestLongLivedChangelogId() : null;
        Long earliest =
                earliestChangelog != null ? earliestChangelog : snapshots.earliestSnapshotId();
        Long latest = snapshots.latestSnapshotId();
        long first = earliest == null ? snapshotId : Math.max(snapshotId, earliest);
        long before = first - 1;
        if (before > (latest == null ? 0 : latest)) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table %s: snapshot %d (%s) is not committed yet, so where its changes "
                                    + "start in the stream store is unknown; the latest snapshot "
                                    + "is %s. Start at snapshot %d at most.",
                            table.fullName(),
                            before,
                            chosenBy,
                            latest,
                            (latest == null ? 0 : latest) + 1));
        }
        return changesAfter(table, before < 1 ? null : before, chosenBy);
    }

    /** The time a mode that starts from a time needs, refused when it is not set. */
    private static long required(FileStoreTable table, StartupMode mode, ConfigOption<Long> time) {
        Long millis = table.coreOptions().toConfiguration().get(time);
        if (millis == null) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table %s: '%s' = '%s' needs '%s'.",
                            table.fullName(), CoreOptions.SCAN_MODE.key(), mode, time.key()));
        }
        return millis;
    }

    /**
     * Unbounded {@code compacted-full}: the snapshot Paimon's {@code CompactedStartingScanner}
     * picks (the latest {@code COMPACT} snapshot), or with {@code full-compaction.delta-commits} or
     * {@code 'changelog-producer' = 'full-compaction'} its {@code FullCompactedStartingScanner}'s
     * (the latest full compaction); the latest snapshot when there is none. Its state, then the
     * changes after it, as for {@code latest-full}.
     */
    private static ReadStart compactedFull(FileStoreTable table) {
        CoreOptions options = table.coreOptions();
        Options conf = options.toConfiguration();
        Long picked;
        if (options.changelogProducer() == CoreOptions.ChangelogProducer.FULL_COMPACTION
                || conf.contains(CoreOptions.FULL_COMPACTION_DELTA_COMMITS)) {
            int deltaCommits =
                    conf.getOptional(CoreOptions.FULL_COMPACTION_DELTA_COMMITS).orElse(1);
            picked =
                    table.snapshotManager()
                            .pickOrLatest(
                                    s ->
                                            s.commitKind() == Snapshot.CommitKind.COMPACT
                                                    && FullCompactedStartingScanner
                                                            .isFullCompactedIdentifier(
                                                                    s.commitIdentifier(),
                                                                    deltaCommits));
        } else {
            picked =
                    table.snapshotManager()
                            .pickOrLatest(s -> s.commitKind() == Snapshot.CommitKind.COMPACT);
        }
        String chosenBy = option(CoreOptions.SCAN_MODE, StartupMode.COMPACTED_FULL);
        return full(
                table, picked == null ? null : table.snapshotManager().snapshot(picked), chosenBy);
    }

    /**
     * Unbounded {@code from-creation-timestamp}, as Paimon's {@code
     * createCreationTimestampStartingScanner}: the changes of the first snapshot committed at or
     * after the time when it exists (as {@code from-snapshot}); otherwise (every snapshot was
     * committed at or after the time, or none after it) the latest snapshot's files created at or
     * after the time, then the changes after it.
     */
    private static ReadStart createdSince(FileStoreTable table, long millis) {
        SnapshotManager snapshots = table.snapshotManager();
        String chosenBy = option(CoreOptions.SCAN_CREATION_TIME_MILLIS, millis);
        boolean decoupled = table.coreOptions().changelogLifecycleDecoupled();
        Long before =
                TimeTravelUtil.earlierThanTimeMills(
                        snapshots, table.changelogManager(), millis, decoupled, true);
        if (before != null
                && (snapshots.snapshotExists(before + 1)
                        || table.changelogManager().longLivedChangelogExists(before + 1))) {
            return changesFrom(table, before + 1, chosenBy);
        }
        return filesCreatedSince(table, millis, chosenBy);
    }

    /**
     * Paimon's {@code FileCreationTimeStartingScanner}: the files of the latest snapshot created at
     * or after {@code millis} (the lake part, filtered by {@link LakePartPlanner}), then the
     * changes after that snapshot from its offsets.
     */
    private static ReadStart filesCreatedSince(FileStoreTable table, long millis, String chosenBy) {
        Snapshot latest = table.snapshotManager().latestSnapshot();
        if (latest == null) {
            return full(table, null, chosenBy);
        }
        return new ReadStart(
                latest,
                true,
                false,
                logStartAfter(table, latest.id(), chosenBy),
                scanOptions(CoreOptions.SCAN_SNAPSHOT_ID, String.valueOf(latest.id())),
                millis,
                latest.id());
    }

    /**
     * The file filter of a lake part of {@code table} planned again from the snapshot a read of its
     * state recorded: the time of {@code from-file-creation-time}, and of {@code
     * from-creation-timestamp}, whose reads have a lake part only when they filter files; null for
     * every other start.
     */
    @Nullable
    static Long filesCreatedSince(FileStoreTable table) {
        CoreOptions options = table.coreOptions();
        StartupMode mode = options.startupMode();
        if (mode == StartupMode.FROM_FILE_CREATION_TIME) {
            return options.scanFileCreationTimeMills();
        } else if (mode == StartupMode.FROM_CREATION_TIMESTAMP) {
            return options.scanCreationTimeMills();
        }
        return null;
    }

    /** The state of {@code snapshot} (none for a table without snapshots), then its changes. */
    private static ReadStart full(
            FileStoreTable table, @Nullable Snapshot snapshot, String chosenBy) {
        if (snapshot == null) {
            return new ReadStart(null, false, false, StreamOffsets.empty(), new HashMap<>());
        }
        return new ReadStart(
                snapshot,
                true,
                false,
                logStartAfter(table, snapshot.id(), chosenBy),
                scanOptions(CoreOptions.SCAN_SNAPSHOT_ID, String.valueOf(snapshot.id())));
    }

    /** No state: the changes after snapshot {@code before} (all changes when null). */
    private static ReadStart changesAfter(
            FileStoreTable table, @Nullable Long before, String chosenBy) {
        StreamOffsets offsets =
                before == null
                        ? logStartAfter(table, 0, chosenBy)
                        : logStartAfter(table, before, chosenBy);
        Snapshot snapshot =
                before != null && table.snapshotManager().snapshotExists(before)
                        ? table.snapshotManager().snapshot(before)
                        : null;
        return new ReadStart(
                snapshot,
                false,
                false,
                offsets,
                new HashMap<>(),
                null,
                before == null ? 0L : before);
    }

    /**
     * Where the store holds every change committed after snapshot {@code snapshotId} (0: before the
     * first snapshot): its offsets; when it records none, offset 0 if nothing was committed after
     * it, else where the chain starts: the offsets of the first later snapshot with a map when it
     * is the data-free commit that enabled the table, offset 0 when it is the sink's first commit.
     * What Paimon alone committed in between is not in the store: the read follows those commits. A
     * table whose chain has not started is refused.
     */
    private static StreamOffsets logStartAfter(
            FileStoreTable table, long snapshotId, String chosenBy) {
        if (snapshotId >= 1 && table.snapshotManager().snapshotExists(snapshotId)) {
            requireEnabledSince(table, table.snapshotManager().snapshot(snapshotId), chosenBy);
        }
        if (snapshotId >= 1) {
            Optional<StreamOffsets> own = SnapshotOffsets.ofSnapshot(table, snapshotId);
            if (own.isPresent()) {
                return own.get();
            }
        }
        SnapshotManager snapshots = table.snapshotManager();
        Long latest = snapshots.latestSnapshotId();
        if (latest == null || snapshotId >= latest) {
            return StreamOffsets.empty();
        }
        Long chainStart = null;
        for (long id = snapshotId + 1; id <= latest && chainStart == null; id++) {
            if (snapshots.snapshotExists(id)
                    && SnapshotOffsets.ownOffsetsFile(snapshots.snapshot(id)).isPresent()) {
                chainStart = id;
            }
        }
        if (chainStart != null) {
            // the first snapshot with a map: the data-free commit that enabled the table (the
            // store's changes start at its offsets), or the lake-stream sink's first commit, whose
            // data the store holds from its first record; the snapshots between this one and it
            // name no map, and the read follows them (ForeignCommits)
            Long delta = snapshots.snapshot(chainStart).deltaRecordCount();
            return delta != null && delta == 0
                    ? SnapshotOffsets.ofSnapshot(table, chainStart).orElse(StreamOffsets.empty())
                    : StreamOffsets.empty();
        }
        throw new IllegalArgumentException(
                String.format(
                        "Table %s cannot be followed from %s (%s): lake-stream mode records no "
                                + "stream offsets up to it or after it, so where the stream "
                                + "store's changes start is unknown. Read it bounded, or enable "
                                + "lake-stream mode again to record them.",
                        table.fullName(),
                        snapshotId < 1 ? "its first snapshot" : "snapshot " + snapshotId,
                        chosenBy));
    }

    /**
     * Refuses to follow the table from {@code snapshot} when lake-stream mode was turned off after
     * it: a snapshot committed while it was off inherits the offsets map of the last one before,
     * yet what Paimon alone committed then is not in the stream store. Each ALTER of the mode is a
     * new schema, so a schema later than the snapshot's without the mode shows such a gap; what
     * lies before the snapshot does not matter.
     */
    private static void requireEnabledSince(
            FileStoreTable table, Snapshot snapshot, String chosenBy) {
        for (TableSchema schema : table.schemaManager().listAll()) {
            if (schema.id() > snapshot.schemaId()
                    && !Boolean.parseBoolean(
                            schema.options()
                                    .getOrDefault(LakeStreamOptions.ENABLED.key(), "false"))) {
                throw new IllegalArgumentException(
                        String.format(
                                "Table %s cannot be followed from snapshot %d (%s): lake-stream "
                                        + "mode was turned off after it (schema %d sets '%s' to "
                                        + "'%s'), and what Paimon committed meanwhile is not in "
                                        + "the stream store. Read it bounded, or start from a "
                                        + "snapshot committed after lake-stream mode was last "
                                        + "enabled.",
                                table.fullName(),
                                snapshot.id(),
                                chosenBy,
                                schema.id(),
                                LakeStreamOptions.ENABLED.key(),
                                schema.options()
                                        .getOrDefault(LakeStreamOptions.ENABLED.key(), "false")));
            }
        }
    }

    /** Options of a lake scan of snapshot {@code snapshotId}, every other starting one off. */
    static Map<String, String> snapshotScanOptions(long snapshotId) {
        return scanOptions(CoreOptions.SCAN_SNAPSHOT_ID, String.valueOf(snapshotId));
    }

    /** Options of the lake scan: the one that picks the snapshot, every other starting one off. */
    private static Map<String, String> scanOptions(ConfigOption<?> option, String value) {
        Map<String, String> options = new HashMap<>();
        for (ConfigOption<?> starting : STARTING_OPTIONS) {
            options.put(starting.key(), null); // a null dynamic option removes the table's
        }
        options.put(option.key(), value);
        return options;
    }

    private static String option(ConfigOption<?> option, Object value) {
        return String.format("'%s' = '%s'", option.key(), value);
    }

    private static String timestampOption(FileStoreTable table) {
        Map<String, String> options = table.options();
        ConfigOption<?> set =
                options.containsKey(CoreOptions.SCAN_TIMESTAMP_MILLIS.key())
                        ? CoreOptions.SCAN_TIMESTAMP_MILLIS
                        : CoreOptions.SCAN_TIMESTAMP;
        return option(set, options.get(set.key()));
    }

    private static String timeTravelOptions(FileStoreTable table) {
        StringBuilder described = new StringBuilder();
        for (ConfigOption<?> option : TIME_TRAVEL) {
            String value = table.options().get(option.key());
            if (value != null) {
                described.append(described.length() == 0 ? "" : ", ").append(option(option, value));
            }
        }
        return described.toString();
    }

    /**
     * The snapshot whose state the read returns, or after whose changes it starts; null when the
     * read starts before the first snapshot.
     */
    @Nullable
    public Snapshot snapshot() {
        return snapshot;
    }

    /** Whether the read returns the snapshot's state (its lake part) before the changes. */
    public boolean readsState() {
        return readsState;
    }

    /**
     * Whether a bounded read returns exactly the snapshot's state: its logs stop at its offsets.
     */
    public boolean exact() {
        return exact;
    }

    /** Where each partition-bucket's log starts; absent ones start at 0. */
    public StreamOffsets logOffsets() {
        return logOffsets;
    }

    /**
     * The dynamic options with which Paimon's batch scan plans the snapshot's state: its id (or
     * tag), every other starting option removed.
     */
    public Map<String, String> scanOptions() {
        return scanOptions;
    }

    /**
     * The lake part holds only the snapshot's files created at or after this time (epoch
     * milliseconds), as Paimon's {@code FileCreationTimeStartingScanner} filters them; null for no
     * such filter.
     */
    @Nullable
    public Long filesCreatedSince() {
        return filesCreatedSince;
    }

    /**
     * The last snapshot whose changes the read does not return as changes: the snapshot whose state
     * it reads, or the one after which its changes start; 0 before the first snapshot. An unbounded
     * read follows the commits of other writers from the next one on.
     */
    public long changesAfter() {
        return changesAfter;
    }
}
