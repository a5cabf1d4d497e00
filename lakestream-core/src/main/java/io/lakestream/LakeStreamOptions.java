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

package io.lakestream;

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.options.ConfigOption;
import org.apache.paimon.options.ConfigOptions;
import org.apache.paimon.options.MemorySize;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The options of lake-stream mode. Every key starts with {@code lake-stream.}; the options of a
 * store's own client are passed as {@code lake-stream.<store>.<client option>}, for example {@code
 * lake-stream.fluss.bootstrap.servers}.
 */
@Experimental
public final class LakeStreamOptions {

    /** The prefix of every lake-stream option. */
    public static final String PREFIX = "lake-stream.";

    public static final ConfigOption<Boolean> ENABLED =
            ConfigOptions.key("lake-stream.enabled")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Table option: whether the table runs in lake-stream mode, writing every "
                                    + "record to the stream store as well as to Paimon and reading "
                                    + "the store's records that Paimon has not committed yet.");

    public static final ConfigOption<String> STORE =
            ConfigOptions.key("lake-stream.store")
                    .stringType()
                    .defaultValue("fluss")
                    .withDescription(
                            "The stream store that holds the records not yet committed to Paimon. "
                                    + "Its client options are given as "
                                    + "'lake-stream.<store>.<client option>'.");

    public static final ConfigOption<Duration> STORE_REQUEST_TIMEOUT =
            ConfigOptions.key("lake-stream.store.request-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "How long one metadata operation of the stream store (connecting, "
                                    + "creating or describing a table, listing offsets, recording "
                                    + "a fence) may take before it fails with an error that names "
                                    + "the store's address.");

    public static final ConfigOption<Duration> STORE_WRITE_TIMEOUT =
            ConfigOptions.key("lake-stream.store.write-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "How long the stream store may take to make written records durable: "
                                    + "a flush at a checkpoint barrier, or a write that waits for "
                                    + "buffer space. When it runs out the job fails and restarts "
                                    + "from its last checkpoint, instead of waiting without end "
                                    + "for a store that cannot be reached.");

    public static final ConfigOption<Duration> STORE_CONNECTION_IDLE_TIMEOUT =
            ConfigOptions.key("lake-stream.store.connection-idle-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription(
                            "How long the stream store's connection stays open after its last "
                                    + "user let it go. A process keeps one connection per store "
                                    + "configuration (and Flink job), shared by planning and "
                                    + "every operator; a statement planned within this time "
                                    + "reuses it. The connection is closed in the background, "
                                    + "so neither the last user nor the next one waits for it.");

    /**
     * Under {@code lake-stream.store.}, with the other options of ours that every store reads, and
     * not under {@code lake-stream.fluss.}, whose keys go to the Fluss client as they are.
     */
    public static final ConfigOption<String> STORE_DATABASE_PREFIX =
            ConfigOptions.key("lake-stream.store.database-prefix")
                    .stringType()
                    .defaultValue("")
                    .withDescription(
                            "Catalog option: a prefix of the stream store's database names. The "
                                    + "stream table of Paimon table 'db.t', with its fence and "
                                    + "writer-lease logs, lives in the store's database "
                                    + "'<prefix>db'. Give every catalog (warehouse) that shares "
                                    + "one stream store a prefix of its own, such as 'prod_' and "
                                    + "'dev_': a stream table belongs to one Paimon table, and a "
                                    + "second table of the same name is refused its use. Empty "
                                    + "means the Paimon database name. Changing it while tables "
                                    + "are enabled points them at other stream tables: disable "
                                    + "them first. As a table option it is ignored.");

    /**
     * Read by the {@code memory} store from its client options ({@code lake-stream.memory.*}), as
     * the Fluss store reads {@code lake-stream.fluss.*}.
     */
    public static final ConfigOption<MemorySize> MEMORY_MAX_BYTES =
            ConfigOptions.key("lake-stream.memory.max-bytes")
                    .memoryType()
                    .defaultValue(MemorySize.parse("256 mb"))
                    .withDescription(
                            "Catalog or job option of the 'memory' stream store: how many bytes of "
                                    + "records the stream tables of this process may hold. A "
                                    + "write that would pass it waits until commits free records "
                                    + "(back-pressure) and fails after "
                                    + "'lake-stream.store.write-timeout', naming this option; "
                                    + "records are never dropped. Records are freed once a "
                                    + "snapshot commits them and no reader of the process still "
                                    + "reads them.");

    public static final ConfigOption<Duration> SINK_WRITER_LEASE_TIMEOUT =
            ConfigOptions.key("lake-stream.sink.writer-lease-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "How long a sink job's claim on a table lasts without renewal. A "
                                    + "running sink renews it every third of this time; a second "
                                    + "job that starts writing the same table while the claim "
                                    + "lasts is refused. A job started after the previous one "
                                    + "stopped waits at most this long for the old claim to "
                                    + "expire.");

    public static final ConfigOption<Duration> SINK_BUFFER_TIMEOUT =
            ConfigOptions.key("lake-stream.sink.buffer-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMillis(10))
                    .withDescription(
                            "How long the rows a lake-stream sink takes from a SQL statement or "
                                    + "a stream of RowData wait at most before they are sent to "
                                    + "the sink's writers: Flink's buffer timeout of the sink's "
                                    + "own exchange (the shuffle by partition-bucket), which "
                                    + "sends a network buffer when it is full or when this time "
                                    + "has passed. A row waits there before it reaches the "
                                    + "stream store, so at Flink's default (100 ms, "
                                    + "'execution.buffer-timeout') a slow stream's rows become "
                                    + "readable up to 100 ms later. A job whose own buffer "
                                    + "timeout is lower keeps it; '0 ms' sends every row at "
                                    + "once. It costs nothing while the buffers fill before it "
                                    + "passes. Batch jobs, whose exchanges are blocking, ignore "
                                    + "it.");

    public static final ConfigOption<Boolean> SINK_STORE_WRITER_CHAINING =
            ConfigOptions.key("lake-stream.sink.store-writer-chaining")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Whether a streaming lake-stream sink writes the stream store from "
                                    + "Paimon's writer task ('true'), or from a task of its own "
                                    + "ahead of it ('false'). At each checkpoint Paimon's writer "
                                    + "stops taking rows while it prepares its commit (it closes "
                                    + "and reads back its data files: from about 100 ms to "
                                    + "seconds); with 'false' the store's writer keeps writing the "
                                    + "rows behind the barrier meanwhile, so a checkpoint does "
                                    + "not delay them, at the cost of passing every row from one "
                                    + "task to the other (a serialization). Batch jobs ignore it. "
                                    + "Changing it changes the job's graph: a savepoint taken "
                                    + "with the other value restores only with "
                                    + "'execution.state-recovery.ignore-unclaimed-state', and the "
                                    + "job then starts as a new one. Enabling lake-stream mode on "
                                    + "a table that has never had it (CREATE TABLE, ALTER TABLE "
                                    + "SET, sys.enable_lake_stream) writes 'false' into the "
                                    + "table's options unless the statement or the catalog sets "
                                    + "it; a table enabled before keeps the default 'true'.");

    public static final ConfigOption<Duration> SINK_PARTITION_DROP_DELAY =
            ConfigOptions.key("lake-stream.sink.partition-drop-delay")
                    .durationType()
                    .defaultValue(Duration.ZERO)
                    .withDescription(
                            "How long the committer of a lake-stream sink waits, from the "
                                    + "first commit at which it finds a partition missing from "
                                    + "the table's latest snapshot (dropped or expired, by any "
                                    + "engine), before it drops the partition's stream-store "
                                    + "partition, whose records are then all committed. An "
                                    + "unbounded read that has not read the partition's records "
                                    + "by then never returns them; a delay gives lagging reads "
                                    + "that time. The wait starts again with every new committer, "
                                    + "so keep 0 for tables written by bounded jobs. A "
                                    + "committer checks at its first commit, at every commit "
                                    + "after a snapshot that overwrote data (each drop or expiry "
                                    + "of a partition is one), and otherwise at most once a "
                                    + "minute.");

    public static final ConfigOption<ReadIsolation> READ_ISOLATION =
            ConfigOptions.key("lake-stream.read.isolation")
                    .enumType(ReadIsolation.class)
                    .defaultValue(ReadIsolation.READ_UNCOMMITTED)
                    .withDescription(
                            "Which records of the stream store a read returns beyond the Paimon "
                                    + "snapshot it starts from: 'read-uncommitted' returns every "
                                    + "record the store holds (the freshest); 'read-committed' only "
                                    + "records that a Paimon snapshot has committed (those covered "
                                    + "by a completed checkpoint of the writing job).");

    public static final ConfigOption<Boolean> READ_LAKE_ONLY =
            ConfigOptions.key("lake-stream.read.lake-only")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Reads the Paimon snapshot alone, without the stream store: a bounded "
                                    + "read of exactly what Paimon has committed.");

    public static final ConfigOption<Long> READ_MAX_RECORDS_PER_TRIGGER =
            ConfigOptions.key("lake-stream.read.max-records-per-trigger")
                    .longType()
                    .noDefaultValue()
                    .withFallbackKeys("maxRecordsPerTrigger")
                    .withDescription(
                            "Spark Structured Streaming read option: about how many stream-store "
                                    + "records one micro-batch reads (each partition-bucket with "
                                    + "records gets an equal share, at least one; fenced records "
                                    + "count). The start snapshot's rows and the changes of "
                                    + "another writer's snapshot are read whole, in one "
                                    + "micro-batch each. Also given as 'maxRecordsPerTrigger'. "
                                    + "Unset: every record available.");

    public static final ConfigOption<Duration> READ_PARTITION_DISCOVERY_INTERVAL =
            ConfigOptions.key("lake-stream.read.partition-discovery-interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription(
                            "How often an unbounded read looks for partitions that appeared in the "
                                    + "stream store after it started; their records are read from "
                                    + "their first offset. At each look it also checks the Paimon "
                                    + "schemas committed since the last one, and fails for good "
                                    + "once one turns lake-stream mode off.");

    public static final ConfigOption<Duration> READ_STORE_TIMEOUT =
            ConfigOptions.key("lake-stream.read.store-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "How long a reader waits for stream-store records that the store "
                                    + "holds but does not deliver (a bounded read waiting for its "
                                    + "records up to the planned end offsets, or an unbounded read "
                                    + "whose partition-buckets are behind the store's end). When it "
                                    + "runs out the read fails with an error that names the table "
                                    + "and the store's address, instead of waiting without end for "
                                    + "a store that cannot be reached.");

    public static final ConfigOption<Integer> READ_COMMITTED_MAX_HELD_RECORDS =
            ConfigOptions.key("lake-stream.read.committed.max-held-records")
                    .intType()
                    .defaultValue(100_000)
                    .withDescription(
                            "How many stream-store records an unbounded 'read-committed' reader "
                                    + "keeps in memory while it waits for a snapshot to commit "
                                    + "them. Past it, the partition-bucket that holds the most is "
                                    + "paused: its records are dropped and read again from the "
                                    + "store once a snapshot commits there; the other "
                                    + "partition-buckets are followed on.");

    public static final ConfigOption<Integer> READ_MERGE_BUFFER_MAX_RECORDS =
            ConfigOptions.key("lake-stream.read.merge-buffer.max-records")
                    .intType()
                    .defaultValue(1_000_000)
                    .withDescription(
                            "How many stream-store changes a bounded read of a primary-key table "
                                    + "may keep in memory for one partition-bucket before it merges "
                                    + "them into the Paimon rows. Changes of one key are merged as "
                                    + "they arrive where the merge engine allows it exactly "
                                    + "('deduplicate' without 'sequence.field' and without "
                                    + "'ignore-delete' keeps a key's last change only), so for "
                                    + "such tables this bounds the keys changed since the "
                                    + "snapshot. Past it the read fails, naming the table and this "
                                    + "option: commit more often, or raise it.");

    public static final ConfigOption<Long> LOOKUP_CACHE_MAX_ROWS =
            ConfigOptions.key("lake-stream.lookup.cache.max-rows")
                    .longType()
                    .defaultValue(1_000_000L)
                    .withDescription(
                            "How many rows the lookup function of a primary-key table may hold in "
                                    + "memory: the union of the table's latest snapshot and the "
                                    + "stream store's records past it, which lets a lookup join "
                                    + "find a row within a second of its write. A table with more "
                                    + "rows than this is looked up as Paimon's own lookup does "
                                    + "(its committed rows, cached on local disk and refreshed "
                                    + "with Paimon's 'lookup.*' options), with a warning in the "
                                    + "log and the metric 'lakeStreamLookupCommittedOnly' at 1; "
                                    + "never with a partial cache. 0 always looks up as Paimon "
                                    + "does.");

    public static final ConfigOption<Duration> LOOKUP_REFRESH_INTERVAL =
            ConfigOptions.key("lake-stream.lookup.refresh-interval")
                    .durationType()
                    .defaultValue(Duration.ofMillis(100))
                    .withDescription(
                            "How often, at most, the lookup function of a primary-key table asks "
                                    + "the stream store and Paimon for what was written since its "
                                    + "last look; the look happens at the next lookup after the "
                                    + "interval. A row written this long before a lookup, and "
                                    + "readable in the store, is found by it ('read-uncommitted'); "
                                    + "with 'read-committed', once a snapshot commits it.");

    /** The values of {@link #READ_ISOLATION}. */
    @Experimental
    public enum ReadIsolation {
        READ_UNCOMMITTED("read-uncommitted"),
        READ_COMMITTED("read-committed");

        private final String value;

        ReadIsolation(String value) {
            this.value = value;
        }

        @Override
        public String toString() {
            return value;
        }
    }

    private LakeStreamOptions() {}

    /**
     * The lake-stream options that apply to a table: its own {@code lake-stream.*} options, with
     * the {@code lake-stream.*} entries of {@code overrides} (a catalog's or a builder's options)
     * winning. Store secrets therefore never need to be table options. {@link
     * #STORE_DATABASE_PREFIX} is taken from {@code overrides} only: as a table option it would let
     * one table of a catalog move its stream table away from where the catalog keeps it.
     */
    public static Map<String, String> forTable(
            Map<String, String> tableOptions, Map<String, String> overrides) {
        Map<String, String> merged = new HashMap<>();
        copyLakeStreamOptions(tableOptions, merged);
        merged.remove(STORE_DATABASE_PREFIX.key());
        copyLakeStreamOptions(overrides, merged);
        return merged;
    }

    /**
     * The lake-stream options of one statement on a table of a catalog, in Flink's and Paimon's
     * order: the table's own options, then the catalog's {@code lake-stream.*} options, then the
     * statement's hints ({@code /*+ OPTIONS(...) *}{@code /}), which win. The options that choose
     * the store (which store, {@link #STORE_DATABASE_PREFIX}, and the store's client options {@code
     * lake-stream.<store>.*}) are the catalog's alone: a stream table belongs to one store, and a
     * hint must not point one statement at another.
     *
     * @param tableOptions the table's stored options, without the hints
     * @param hints the statement's options that differ from the table's stored ones
     * @param refusal makes the error of a hint that names a store option; its message names the
     *     options
     * @throws RuntimeException from {@code refusal} when a hint sets a store option
     */
    public static <E extends RuntimeException> Map<String, String> forStatement(
            Map<String, String> tableOptions,
            Map<String, String> catalogOptions,
            Map<String, String> hints,
            Function<String, E> refusal) {
        return forStatement(tableOptions, catalogOptions, Collections.emptyMap(), hints, refusal);
    }

    /**
     * The lake-stream options of one statement of a session on a table of a catalog: the table's
     * own options, then the catalog's {@code lake-stream.*} options, then the session's (Flink's
     * {@code SET}), then the statement's hints, which win. The options that choose the store are
     * refused from the session as from a hint (see {@link #forStatement(Map, Map, Map, Function)}).
     *
     * @param sessionOptions the session's options for the table
     * @throws RuntimeException from {@code refusal} when the session or a hint sets a store option
     */
    public static <E extends RuntimeException> Map<String, String> forStatement(
            Map<String, String> tableOptions,
            Map<String, String> catalogOptions,
            Map<String, String> sessionOptions,
            Map<String, String> hints,
            Function<String, E> refusal) {
        Map<String, String> merged = forTable(tableOptions, catalogOptions);
        String store = merged.getOrDefault(STORE.key(), STORE.defaultValue());
        Map<String, String> statement = new HashMap<>();
        copyLakeStreamOptions(sessionOptions, statement);
        copyLakeStreamOptions(hints, statement);
        List<String> refused = new ArrayList<>();
        statement.forEach(
                (key, value) -> {
                    if (key.equals(STORE.key())
                            || key.equals(STORE_DATABASE_PREFIX.key())
                            || key.startsWith(storeOptionsPrefix(store))) {
                        refused.add(key);
                    } else {
                        merged.put(key, value);
                    }
                });
        if (!refused.isEmpty()) {
            Collections.sort(refused);
            throw refusal.apply(
                    String.format(
                            "%s cannot be set by a statement (a hint, a SET of the session or a "
                                    + "read option): the options that choose the stream store "
                                    + "are the catalog's. Set them on the catalog, or use another "
                                    + "catalog for another store.",
                            refused.stream()
                                    .map(key -> "'" + key + "'")
                                    .collect(Collectors.joining(", "))));
        }
        return merged;
    }

    private static void copyLakeStreamOptions(Map<String, String> from, Map<String, String> to) {
        from.forEach(
                (key, value) -> {
                    if (key.startsWith(PREFIX)) {
                        to.put(key, value);
                    }
                });
    }

    /** The prefix of the client options of {@code store}: {@code lake-stream.<store>.}. */
    public static String storeOptionsPrefix(String store) {
        return PREFIX + store + ".";
    }
}
