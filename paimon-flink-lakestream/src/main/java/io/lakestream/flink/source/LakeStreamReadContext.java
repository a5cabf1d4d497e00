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

package io.lakestream.flink.source;

import io.lakestream.LakeStreamOptions;
import io.lakestream.read.plan.ReadFilter;
import io.lakestream.read.plan.ReadStart;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.PartitionPredicateVisitor;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowType;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Everything a lake-stream read is, resolved once from the builder's settings and the options (the
 * table's, the catalog's, the statement's, in {@link LakeStreamOptions#forStatement}'s order) and
 * checked when the job is built, as Iceberg's {@code ScanContext} is: the table with the Paimon
 * scan options the read honours applied (and the others refused, {@link UnsupportedScanOptions}),
 * its stream table and the options that open the store, boundedness, isolation, lake-only, the
 * partition-discovery interval, the writer lease timeout, filter, projection and limit. The
 * enumerator, the readers and the metadata count take it whole instead of an option map, so that an
 * option means the same to each of them.
 */
@Internal
public final class LakeStreamReadContext implements Serializable {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;
    private final StreamTable streamTable;
    private final Map<String, String> storeOptions;
    private final boolean bounded;
    private final boolean lakeOnly;
    private final boolean readCommitted;
    private final Duration partitionDiscoveryInterval;
    private final Duration writerLeaseTimeout;
    @Nullable private final Predicate filter;
    @Nullable private final int[] projection;
    private final long limit;

    /** Paimon's {@code consumer-id} of an unbounded read; null for none or a bounded read. */
    @Nullable private final String consumerId;

    /** Paimon's {@code consumer.ignore-progress}. */
    private final boolean consumerIgnoreProgress;

    private LakeStreamReadContext(
            FileStoreTable table,
            StreamTable streamTable,
            Map<String, String> storeOptions,
            boolean bounded,
            @Nullable Predicate filter,
            @Nullable int[] projection,
            long limit) {
        Options conf = Options.fromMap(storeOptions);
        this.table = table;
        this.streamTable = streamTable;
        this.storeOptions = storeOptions;
        this.bounded = bounded;
        this.lakeOnly = conf.get(LakeStreamOptions.READ_LAKE_ONLY);
        this.readCommitted =
                conf.get(LakeStreamOptions.READ_ISOLATION)
                        == LakeStreamOptions.ReadIsolation.READ_COMMITTED;
        this.partitionDiscoveryInterval =
                conf.get(LakeStreamOptions.READ_PARTITION_DISCOVERY_INTERVAL);
        this.writerLeaseTimeout = conf.get(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT);
        this.filter = filter;
        this.projection = projection;
        this.limit = limit;
        CoreOptions paimon = table.coreOptions();
        // Paimon's batch read ignores the consumer too
        this.consumerId = bounded ? null : paimon.consumerId();
        this.consumerIgnoreProgress = paimon.consumerIgnoreProgress();
    }

    /**
     * Resolves and checks a read of {@code table}.
     *
     * @param options the read's {@code lake-stream.*} options, merged over the table's
     * @param paimonOptions Paimon read options (such as {@code scan.snapshot-id}) that win over the
     *     table's
     * @param streamTable finds the stream table of the table as the read reads it
     * @param limit the rows a bounded read may stop after; {@link Long#MAX_VALUE} for all
     * @throws IllegalArgumentException naming the table and the setting, for a read that cannot be
     *     made: lake-only or a limit unbounded, a projection out of the columns, a scan option the
     *     read does not honour, a start that does not exist
     */
    public static LakeStreamReadContext resolve(
            FileStoreTable table,
            Map<String, String> options,
            Map<String, String> paimonOptions,
            Function<FileStoreTable, StreamTable> streamTable,
            boolean bounded,
            @Nullable Predicate filter,
            @Nullable int[] projection,
            long limit) {
        String name = table.fullName();
        Options conf = Options.fromMap(options);
        boolean lakeOnly = conf.get(LakeStreamOptions.READ_LAKE_ONLY);
        // parsed here, so that a wrong value fails the job's construction naming the option
        conf.get(LakeStreamOptions.READ_ISOLATION);
        conf.get(LakeStreamOptions.READ_PARTITION_DISCOVERY_INTERVAL);
        if (lakeOnly && !bounded) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table %s: '%s' = 'true' reads one Paimon snapshot and ends; it "
                                    + "needs a bounded read. Read the table with Paimon's own "
                                    + "source to follow its snapshots.",
                            name, LakeStreamOptions.READ_LAKE_ONLY.key()));
        }
        if (projection != null) {
            for (int index : projection) {
                if (index < 0 || index >= table.rowType().getFieldCount()) {
                    throw new IllegalArgumentException(
                            String.format(
                                    "Projection index %d is out of the %d columns of table %s.",
                                    index, table.rowType().getFieldCount(), name));
                }
            }
        }
        if (limit != Long.MAX_VALUE && !bounded) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table %s: a limit (%d) needs a bounded read; an unbounded read "
                                    + "never ends its splits.",
                            name, limit));
        }
        Map<String, String> scanOptions = new HashMap<>(table.options());
        scanOptions.putAll(paimonOptions);
        refuseCommittedSnapshotRead(name, scanOptions, bounded);
        UnsupportedScanOptions.check(name, scanOptions, bounded, !table.primaryKeys().isEmpty());
        requireConsumerExpiration(name, scanOptions);
        FileStoreTable read = paimonOptions.isEmpty() ? table : table.copy(paimonOptions);
        // resolved again when the job plans; resolved here, a start that does not exist or cannot
        // be followed fails the job's construction, not its enumerator
        ReadStart.resolve(read, bounded);
        return new LakeStreamReadContext(
                read,
                streamTable.apply(read),
                options,
                bounded,
                filter,
                projection,
                // a filter on other columns drops rows after the readers count them
                filtersPartitionsOnly(read, filter) ? limit : Long.MAX_VALUE);
    }

    /**
     * Refuses a read of committed snapshots only ({@link CommittedSnapshotReads}): in SQL the
     * catalog hands it to Paimon's own source, which a source of this type cannot be.
     */
    private static void refuseCommittedSnapshotRead(
            String name, Map<String, String> scanOptions, boolean bounded) {
        CommittedSnapshotReads.optionOf(name, scanOptions, bounded)
                .ifPresent(
                        option -> {
                            throw new IllegalArgumentException(
                                    String.format(
                                            "Table %s: %s makes a read bounded by committed "
                                                    + "snapshots, which the stream store has "
                                                    + "nothing to add to; build it with Paimon's "
                                                    + "own FlinkSourceBuilder (the "
                                                    + "paimon-lakestream catalog hands such a SQL "
                                                    + "read to Paimon's source).",
                                            name, option));
                        });
    }

    /**
     * Refuses a {@code consumer-id} without {@code consumer.expiration-time}, as Paimon's source
     * does: a consumer that is never expired keeps every snapshot from its next one on.
     */
    private static void requireConsumerExpiration(String table, Map<String, String> options) {
        if (options.containsKey(CoreOptions.CONSUMER_ID.key())
                && !options.containsKey(CoreOptions.CONSUMER_EXPIRATION_TIME.key())) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table %s: '%s' needs '%s' on the table (ALTER TABLE, then restart "
                                    + "its writing job), as Paimon's source does: a consumer that "
                                    + "is never expired keeps every snapshot from its next one on.",
                            table,
                            CoreOptions.CONSUMER_ID.key(),
                            CoreOptions.CONSUMER_EXPIRATION_TIME.key()));
        }
    }

    /**
     * Paimon's {@code consumer-id} of an unbounded read, whose position the read records in the
     * table's consumer files at each completed checkpoint; null for none, and for a bounded read
     * (Paimon's batch read ignores it too).
     */
    @Nullable
    public String consumerId() {
        return consumerId;
    }

    /** Paimon's {@code consumer.ignore-progress}: a new job starts as its scan options say. */
    public boolean consumerIgnoreProgress() {
        return consumerIgnoreProgress;
    }

    /** The table, with the Paimon scan options of the read applied. */
    public FileStoreTable table() {
        return table;
    }

    public StreamTable streamTable() {
        return streamTable;
    }

    /** The options that open the store, and the read's own: what a task opens the store with. */
    public Map<String, String> storeOptions() {
        return storeOptions;
    }

    /** Opens the stream store, in the task that calls it. */
    public Supplier<StreamStore> storeFactory() {
        Map<String, String> options = storeOptions;
        return () ->
                StreamStoreLoader.create(options, LakeStreamReadContext.class.getClassLoader());
    }

    public boolean bounded() {
        return bounded;
    }

    /** {@code 'lake-stream.read.lake-only'}: one Paimon snapshot, never the store. */
    public boolean lakeOnly() {
        return lakeOnly;
    }

    /** {@code 'lake-stream.read.isolation' = 'read-committed'}. */
    public boolean readCommitted() {
        return readCommitted;
    }

    public Duration partitionDiscoveryInterval() {
        return partitionDiscoveryInterval;
    }

    public Duration writerLeaseTimeout() {
        return writerLeaseTimeout;
    }

    /** The filter on the table's columns, or null. */
    @Nullable
    public Predicate filter() {
        return filter;
    }

    /** The filter, split by what may be tested before a primary-key merge. */
    public ReadFilter readFilter() {
        return ReadFilter.of(table, filter);
    }

    /** Whether the filter (if any) tests partition columns only. */
    public boolean filtersPartitionsOnly() {
        return filtersPartitionsOnly(table, filter);
    }

    /** The indexes of the columns the read emits, or null for all. */
    @Nullable
    public int[] projection() {
        return projection;
    }

    /** The rows a bounded read may stop after: {@link Long#MAX_VALUE} for all. */
    public long limit() {
        return limit;
    }

    /** The type of the rows the read emits: the table's columns, projected. */
    public RowType producedRowType() {
        return projection == null ? table.rowType() : table.rowType().project(projection);
    }

    /** This read, emitting whole rows. */
    LakeStreamReadContext withoutProjection() {
        return new LakeStreamReadContext(
                table, streamTable, storeOptions, bounded, filter, null, limit);
    }

    private static boolean filtersPartitionsOnly(FileStoreTable table, @Nullable Predicate filter) {
        return filter == null || filter.visit(new PartitionPredicateVisitor(table.partitionKeys()));
    }
}
