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

import io.lakestream.flink.LakeStreamOptions;
import io.lakestream.flink.offsets.PartitionBucket;
import io.lakestream.flink.store.FenceLog;
import io.lakestream.flink.store.OffsetPosition;
import io.lakestream.flink.store.StreamReader;
import io.lakestream.flink.store.StreamStore;
import io.lakestream.flink.store.StreamStoreException;
import io.lakestream.flink.store.StreamTable;
import io.lakestream.flink.store.StreamTableSpec;
import io.lakestream.flink.store.StreamWriter;
import io.lakestream.flink.store.WriterLeaseLog;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.FlussConnection;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.ListOffsetsResult;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.exception.PartitionNotExistException;
import org.apache.fluss.metadata.DatabaseDescriptor;
import org.apache.fluss.metadata.PartitionInfo;
import org.apache.fluss.metadata.TableChange;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.metadata.TablePath;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Fluss stream store: one Fluss log table per Paimon table, in a Fluss database of the Paimon
 * database's name, plus a one-bucket log table of its fences.
 */
public final class FlussStreamStore implements StreamStore {

    private static final long FORCED_WRITER_CLOSE_MILLIS = 100;

    private final Configuration clientConf;
    private final Duration writeTimeout;
    private final FlussAdminCalls calls;
    private final Connection connection;
    private final Admin admin;

    FlussStreamStore(
            Map<String, String> clientOptions, Duration requestTimeout, Duration writeTimeout) {
        this.clientConf = Configuration.fromMap(clientOptions);
        this.writeTimeout = writeTimeout;
        // Fluss's writer otherwise waits for buffer space without end while the cluster is down
        if (!clientOptions.containsKey(ConfigOptions.CLIENT_WRITER_BUFFER_WAIT_TIMEOUT.key())) {
            clientConf.set(ConfigOptions.CLIENT_WRITER_BUFFER_WAIT_TIMEOUT, writeTimeout);
        }
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
        this.connection = connect(clientConf, calls);
        this.admin = connection.getAdmin();
    }

    /**
     * Connects within the request timeout. Fluss's client connects eagerly and retries an
     * unreachable bootstrap server for a while of its own, so the attempt runs in a thread of its
     * own that is abandoned (and its connection closed, should it come up later) on time-out.
     */
    private static Connection connect(Configuration conf, FlussAdminCalls calls) {
        CompletableFuture<Connection> attempt =
                CompletableFuture.supplyAsync(() -> ConnectionFactory.createConnection(conf));
        try {
            return attempt.get(calls.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            attempt.thenAccept(FlussStreamStore::closeQuietly);
            throw new StreamStoreException(
                    String.format(
                            "Cannot reach the Fluss cluster at %s within %s (option '%s').",
                            calls.bootstrapServers(),
                            FlussAdminCalls.format(calls.timeout()),
                            LakeStreamOptions.STORE_REQUEST_TIMEOUT.key()));
        } catch (ExecutionException e) {
            throw new StreamStoreException(
                    String.format(
                            "Cannot connect to the Fluss cluster at %s: %s",
                            calls.bootstrapServers(), e.getCause().getMessage()),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamStoreException("Interrupted while connecting to Fluss", e);
        }
    }

    @Override
    public StreamTable provision(StreamTableSpec spec) {
        FlussStreamTableLayout layout = new FlussStreamTableLayout(spec);
        TablePath path = layout.tablePath();
        calls.await(
                admin.createDatabase(path.getDatabaseName(), DatabaseDescriptor.EMPTY, true),
                "create database " + path.getDatabaseName());
        calls.awaitRetrying(
                () -> admin.createTable(path, layout.descriptor(), true), "create table " + path);
        FlussFenceLog.provision(admin, calls, FlussFenceLog.fenceTablePath(path));
        FlussWriterLeaseLog.provision(admin, calls, FlussWriterLeaseLog.writerTablePath(path));
        TableInfo info = describe(path);
        List<TableChange> missing = layout.missingColumns(info);
        if (!missing.isEmpty()) {
            // columns added to the Paimon table since the stream table was created
            calls.awaitRetrying(
                    () -> admin.alterTable(path, missing, false), "add columns to table " + path);
            info = describe(path);
        }
        return checked(layout, info);
    }

    @Override
    public void checkEvolution(StreamTableSpec from, StreamTableSpec to) {
        FlussStreamTableLayout.checkEvolution(from, to);
    }

    @Override
    public StreamTable get(StreamTableSpec spec) {
        FlussStreamTableLayout layout = new FlussStreamTableLayout(spec);
        TablePath path = layout.tablePath();
        if (!calls.awaitRetrying(() -> admin.tableExists(path), "look up table " + path)) {
            throw new StreamStoreException(
                    String.format(
                            "The stream table %s of Paimon table %s does not exist in the Fluss "
                                    + "cluster at %s. Enabling lake-stream mode on the table "
                                    + "provisions it.",
                            path, spec.identifier().getFullName(), calls.bootstrapServers()));
        }
        return checked(layout, describe(path));
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

    @Override
    public boolean drop(Identifier paimonTable) {
        TablePath path = TablePath.of(paimonTable.getDatabaseName(), paimonTable.getObjectName());
        boolean existed =
                calls.awaitRetrying(() -> admin.tableExists(path), "look up table " + path);
        calls.awaitRetrying(() -> admin.dropTable(path, true), "drop table " + path);
        for (TablePath next :
                Arrays.asList(
                        FlussFenceLog.fenceTablePath(path),
                        FlussWriterLeaseLog.writerTablePath(path))) {
            calls.awaitRetrying(() -> admin.dropTable(next, true), "drop table " + next);
        }
        return existed;
    }

    @Override
    public StreamWriter createWriter(StreamTable table) {
        return new FlussStreamWriter(this, table, layoutOf(table));
    }

    @Override
    public StreamReader createReader(StreamTable table) {
        return new FlussStreamReader(this, table, layoutOf(table));
    }

    @Override
    public FenceLog openFenceLog(StreamTable table) {
        FlussStreamTableLayout layout = layoutOf(table);
        return new FlussFenceLog(
                new FlussSingleBucketLog(
                        connection, admin, calls, FlussFenceLog.fenceTablePath(layout.tablePath())),
                new FlussPartitionNames(table.spec()));
    }

    @Override
    public WriterLeaseLog openWriterLeaseLog(StreamTable table) {
        FlussStreamTableLayout layout = layoutOf(table);
        return new FlussWriterLeaseLog(
                new FlussSingleBucketLog(
                        connection,
                        admin,
                        calls,
                        FlussWriterLeaseLog.writerTablePath(layout.tablePath())));
    }

    @Override
    public List<BinaryRow> listPartitions(StreamTable table) {
        FlussStreamTableLayout layout = layoutOf(table);
        if (!table.spec().isPartitioned()) {
            return Collections.singletonList(BinaryRow.EMPTY_ROW);
        }
        FlussPartitionNames names = new FlussPartitionNames(table.spec());
        List<BinaryRow> partitions = new ArrayList<>();
        for (PartitionInfo info : partitionInfos(layout.tablePath())) {
            partitions.add(names.partitionOf(info.getPartitionName()));
        }
        return partitions;
    }

    @Override
    public Map<PartitionBucket, Long> listOffsets(
            StreamTable table,
            Collection<PartitionBucket> partitionBuckets,
            OffsetPosition position) {
        return listOffsets(layoutOf(table), partitionBuckets, position);
    }

    /**
     * Asks for the offsets of all partitions at once and then waits: one round trip per partition
     * leader instead of one per partition in sequence. A partition the store does not have yet
     * holds no records, so its buckets are at offset 0.
     */
    Map<PartitionBucket, Long> listOffsets(
            FlussStreamTableLayout layout,
            Collection<PartitionBucket> partitionBuckets,
            OffsetPosition position) {
        OffsetSpec spec =
                position == OffsetPosition.EARLIEST
                        ? new OffsetSpec.EarliestSpec()
                        : new OffsetSpec.LatestSpec();
        FlussPartitionNames names =
                layout.spec().isPartitioned() ? new FlussPartitionNames(layout.spec()) : null;
        Map<BinaryRow, List<Integer>> bucketsPerPartition = new LinkedHashMap<>();
        for (PartitionBucket pb : partitionBuckets) {
            bucketsPerPartition
                    .computeIfAbsent(pb.partition(), p -> new ArrayList<>())
                    .add(pb.bucket());
        }
        Map<BinaryRow, CompletableFuture<Map<Integer, Long>>> pending = new LinkedHashMap<>();
        bucketsPerPartition.forEach(
                (partition, buckets) ->
                        pending.put(
                                partition,
                                requestOffsets(layout, names, partition, buckets, spec)));
        Map<PartitionBucket, Long> offsets = new HashMap<>();
        long deadline = System.currentTimeMillis() + calls.timeout().toMillis();
        for (Map.Entry<BinaryRow, CompletableFuture<Map<Integer, Long>>> entry :
                pending.entrySet()) {
            BinaryRow partition = entry.getKey();
            List<Integer> buckets = bucketsPerPartition.get(partition);
            CompletableFuture<Map<Integer, Long>> future = entry.getValue();
            Map<Integer, Long> perBucket = null;
            while (perBucket == null) {
                try {
                    perBucket = calls.await(future, "list offsets of table " + layout.tablePath());
                } catch (StreamStoreException e) {
                    if (FlussAdminCalls.causedBy(e, PartitionNotExistException.class)) {
                        perBucket = new HashMap<>();
                        for (int bucket : buckets) {
                            perBucket.put(bucket, 0L);
                        }
                    } else if (System.currentTimeMillis() < deadline) {
                        // a partition the writer has just created may not have bucket leaders in
                        // the client's metadata yet; the client refreshes it on the next request
                        sleepBriefly();
                        future = requestOffsets(layout, names, partition, buckets, spec);
                    } else {
                        throw e;
                    }
                }
            }
            for (Map.Entry<Integer, Long> bucketOffset : perBucket.entrySet()) {
                offsets.put(
                        new PartitionBucket(partition, bucketOffset.getKey()),
                        bucketOffset.getValue());
            }
        }
        return offsets;
    }

    private CompletableFuture<Map<Integer, Long>> requestOffsets(
            FlussStreamTableLayout layout,
            FlussPartitionNames names,
            BinaryRow partition,
            List<Integer> buckets,
            OffsetSpec spec) {
        try {
            ListOffsetsResult result =
                    names == null
                            ? admin.listOffsets(layout.tablePath(), buckets, spec)
                            : admin.listOffsets(
                                    layout.tablePath(), names.nameOf(partition), buckets, spec);
            return result.all();
        } catch (RuntimeException e) {
            // the client looks up bucket leaders before it sends, and fails at once when a new
            // partition has none yet
            return CompletableFuture.failedFuture(e);
        }
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
                () -> admin.listPartitionInfos(path), "list partitions of table " + path);
    }

    /** Checks that the handle still names the current incarnation of the table. */
    FlussStreamTableLayout layoutOf(StreamTable table) {
        FlussStreamTableLayout layout = new FlussStreamTableLayout(table.spec());
        TableInfo info = describe(layout.tablePath());
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
        return layout;
    }

    private TableInfo describe(TablePath path) {
        try {
            return calls.awaitRetrying(() -> admin.getTableInfo(path), "describe table " + path);
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
        return connection;
    }

    Duration writeTimeout() {
        return writeTimeout;
    }

    FlussAdminCalls calls() {
        return calls;
    }

    /**
     * Closes the connection, waiting at most the write timeout. Fluss's connection waits for every
     * pending write without a time limit when it closes, which would keep a failed Flink task from
     * being cancelled (and its job from restarting) for as long as the cluster is unreachable; past
     * the timeout the close goes on in a background thread.
     */
    @Override
    public void close() {
        Thread closer = new Thread(() -> closeQuietly(connection), "lake-stream-fluss-close");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(writeTimeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (closer.isAlive() && connection instanceof FlussConnection) {
            // Fluss 0.9.1's writer, closing, sends its pending batches again and again without a
            // pause; when its metadata cannot be refreshed (a server that restarted) the loop never
            // ends and takes a CPU core. Force it closed: the pending batches belong to a failed
            // attempt, whose records are fenced when the job restarts.
            ((FlussConnection) connection)
                    .getOrCreateWriterClient()
                    .close(Duration.ofMillis(FORCED_WRITER_CLOSE_MILLIS));
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // closing is best effort: the connection holds no state that must be saved
        }
    }
}
