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

package io.lakestream.e2e;

import io.lakestream.local.cluster.ChildJvm;
import io.lakestream.local.cluster.FlussProcessCluster;
import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.AbortedRanges;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamWriter;
import io.lakestream.testutils.Await;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.KeyAndBucketExtractor;
import org.apache.paimon.types.RowKind;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.lakestream.e2e.OrdersTable.order;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Fluss stream store against a Fluss cluster whose servers are OS processes of their own: the
 * fences recorded in this JVM are durable and hide the fenced records from a reader in another JVM,
 * and the records and fences survive a SIGKILL of the tablet server and its restart on the same
 * data directory.
 *
 * <p>The processes' configuration, data and logs are under {@code target/e2e/fluss-processes-*}.
 */
@ExtendWith(NoProcessLeftBehind.class)
class FlussProcessesE2ECase {

    private static final String DAY_1 = "2025-06-01";
    private static final String DAY_2 = "2025-06-02";

    /** Generous for two busy cores: the whole module takes well under a minute when idle. */
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static Path runDir;
    private static FlussProcessCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        Path e2eDir = Paths.get(System.getProperty("basedir", "."), "target", "e2e");
        Files.createDirectories(e2eDir);
        runDir = Files.createTempDirectory(e2eDir, "fluss-processes-");
        long start = System.nanoTime();
        cluster = FlussProcessCluster.start(runDir);
        log("Started %s in %d ms", cluster, millisSince(start));
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            long start = System.nanoTime();
            cluster.close();
            log("Stopped the Fluss processes in %d ms", millisSince(start));
        }
    }

    @Test
    void fencesAreDurableForReadersInOtherProcessesAndSurviveATabletServerKill() throws Exception {
        Path warehouse = runDir.resolve("warehouse");
        FileStoreTable paimonTable = OrdersTable.create(warehouse);
        try (StreamStore store =
                StreamStoreLoader.create(
                        OrdersTable.lakeStreamOptions(cluster.bootstrapServers()),
                        getClass().getClassLoader())) {
            StreamTable table = store.provision(OrdersTable.spec(paimonTable));

            Map<PartitionBucket, Long> ends = writeOrders(store, table, paimonTable);
            assertThat(ends.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(45);
            List<StreamRecord> written = readRaw(store, table, ends);
            assertThat(written).hasSize(45);

            List<AbortedRange> fences = fencesOf(ends);
            try (FenceLog fenceLog = store.openFenceLog(table)) {
                fences.forEach(fenceLog::record);
            }
            AbortedRanges fenced = AbortedRanges.of(fences);
            List<String> visible =
                    written.stream()
                            .filter(r -> !fenced.isAborted(r.partitionBucket(), r.offset()))
                            .map(OrdersTable::describe)
                            .collect(Collectors.toList());
            int skipped = written.size() - visible.size();
            log(
                    "Wrote %d records, fenced %d of them: %s",
                    written.size(), skipped, describeFences(fences));

            // a reader in another JVM sees exactly the records outside the fences
            List<String> output = runFenceAwareReader();
            assertThat(linesStartingWith("RECORD ", output))
                    .containsExactlyInAnyOrderElementsOf(visible);
            assertThat(linesStartingWith("FENCE ", output))
                    .containsExactlyInAnyOrderElementsOf(describeFences(fences));
            assertThat(output)
                    .contains("SUMMARY records=" + visible.size() + " skipped=" + skipped);

            // a crash of the tablet server loses neither records nor fences. Fluss 0.9.1 restores
            // a bucket's high watermark from the server's last checkpoint of it and, with one
            // replica, does not raise it to the recovered log end before the next append: records
            // acknowledged within the checkpoint interval before a crash stay unreadable until
            // their bucket is written again (docs/deploy.md). The crash comes after the checkpoint.
            long acknowledged = ends.values().stream().mapToLong(Long::longValue).sum();
            Await.until(
                    () -> cluster.checkpointedHighWatermarksOfPartitionedTables(0) >= acknowledged,
                    TIMEOUT,
                    () -> "The tablet server checkpointed no high watermarks of " + acknowledged);
            long crash = System.nanoTime();
            long pid = cluster.tabletServer().pid();
            cluster.killTabletServer();
            new FlussRegistrations(cluster).awaitTabletServerUnregistered();
            cluster.startTabletServer();
            cluster.awaitTabletServer();
            awaitLatestOffsets(store, table, ends);
            log(
                    "Killed the tablet server (pid %d) and restarted it in %d ms",
                    pid, millisSince(crash));

            assertThat(describeRecords(readRaw(store, table, ends)))
                    .containsExactlyInAnyOrderElementsOf(describeRecords(written));
            try (FencedStreamReader reader =
                    new FencedStreamReader(store.createReader(table), store.openFenceLog(table))) {
                List<StreamRecord> afterRestart =
                        BoundedStreamRead.readAll(reader, Collections.emptyMap(), ends, TIMEOUT);
                assertThat(describeRecords(afterRestart))
                        .containsExactlyInAnyOrderElementsOf(visible);
                assertThat(reader.skippedRecords()).isEqualTo(skipped);
                for (AbortedRange fence : fences) {
                    assertThat(reader.fences().rangesOf(fence.partitionBucket()))
                            .containsExactly(fence);
                }
            }
        }
    }

    /**
     * Writes 20 inserts, 10 updates (-U/+U) and 5 deletes over two days, each into the
     * partition-bucket Paimon assigns; returns the end offsets the flush reports.
     */
    private static Map<PartitionBucket, Long> writeOrders(
            StreamStore store, StreamTable table, FileStoreTable paimonTable) {
        List<InternalRow> rows = new ArrayList<>();
        for (int id = 0; id < 20; id++) {
            rows.add(order(RowKind.INSERT, id, "c" + id, day(id)));
        }
        for (int id = 0; id < 10; id++) {
            rows.add(order(RowKind.UPDATE_BEFORE, id, "c" + id, day(id)));
            rows.add(order(RowKind.UPDATE_AFTER, id, "c" + id + "-v2", day(id)));
        }
        for (int id = 10; id < 15; id++) {
            rows.add(order(RowKind.DELETE, id, "c" + id, day(id)));
        }
        KeyAndBucketExtractor<InternalRow> buckets = paimonTable.createRowKeyExtractor();
        try (StreamWriter writer = store.createWriter(table)) {
            for (InternalRow row : rows) {
                writer.write(OrdersTable.partitionBucketOf(buckets, row), row);
            }
            return writer.flush();
        }
    }

    private static String day(int id) {
        return id % 2 == 0 ? DAY_1 : DAY_2;
    }

    /**
     * Two fences: the second half of the longest partition-bucket, as a restored writer records
     * them, and the second record of the next longest, as if its restored writer had written on.
     */
    private static List<AbortedRange> fencesOf(Map<PartitionBucket, Long> ends) {
        List<Map.Entry<PartitionBucket, Long>> longestFirst = new ArrayList<>(ends.entrySet());
        longestFirst.sort(Map.Entry.<PartitionBucket, Long>comparingByValue().reversed());
        Map.Entry<PartitionBucket, Long> longest = longestFirst.get(0);
        Map.Entry<PartitionBucket, Long> next = longestFirst.get(1);
        assertThat(next.getValue()).as("records in the second longest bucket").isGreaterThan(2);
        return List.of(
                new AbortedRange(longest.getKey(), longest.getValue() / 2, longest.getValue()),
                new AbortedRange(next.getKey(), 1, 2));
    }

    private static List<StreamRecord> readRaw(
            StreamStore store, StreamTable table, Map<PartitionBucket, Long> ends) {
        try (StreamReader reader = store.createReader(table)) {
            return BoundedStreamRead.readAll(reader, Collections.emptyMap(), ends, TIMEOUT);
        }
    }

    /** Runs {@link FenceAwareReaderMain} in a JVM of its own and returns what it printed. */
    private static List<String> runFenceAwareReader() throws Exception {
        long start = System.nanoTime();
        ChildJvm reader =
                ChildJvm.start(
                        "fence-aware-reader",
                        cluster.logDir(),
                        List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                        FenceAwareReaderMain.class.getName(),
                        List.of(
                                cluster.bootstrapServers(),
                                runDir.resolve("warehouse").toString()));
        try {
            Integer exitCode = reader.waitFor(TIMEOUT);
            assertThat(exitCode)
                    .as("exit code of %s; its log ends with:%n%s", reader, reader.logTail(40))
                    .isEqualTo(0);
        } finally {
            reader.stop(Duration.ZERO);
        }
        log("Read in another JVM (pid %d) in %d ms", reader.pid(), millisSince(start));
        return reader.output();
    }

    /**
     * Waits until the restarted tablet server leads the stream table's buckets again and reports
     * {@code ends}; until then offset requests fail or report what it has recovered so far.
     */
    private static void awaitLatestOffsets(
            StreamStore store, StreamTable table, Map<PartitionBucket, Long> ends)
            throws Exception {
        Object last =
                Await.<Object>poll(
                        () -> {
                            try {
                                return store.listOffsets(
                                        table, ends.keySet(), OffsetPosition.LATEST);
                            } catch (StreamStoreException e) {
                                return e;
                            }
                        },
                        ends::equals,
                        TIMEOUT,
                        Duration.ofMillis(200));
        if (!ends.equals(last)) {
            throw new AssertionError(
                    String.format(
                            "The restarted tablet server did not report the end offsets %s "
                                    + "within %s; last answer: %s; logs in %s",
                            ends, TIMEOUT, last, cluster.logDir()));
        }
    }

    private static List<String> linesStartingWith(String prefix, List<String> lines) {
        return lines.stream()
                .filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length()))
                .collect(Collectors.toList());
    }

    private static List<String> describeRecords(List<StreamRecord> records) {
        return records.stream().map(OrdersTable::describe).collect(Collectors.toList());
    }

    private static List<String> describeFences(List<AbortedRange> fences) {
        return fences.stream().map(OrdersTable::describe).collect(Collectors.toList());
    }

    private static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1_000_000;
    }

    private static void log(String format, Object... args) {
        System.out.printf(
                "[%s] %s%n",
                FlussProcessesE2ECase.class.getSimpleName(), String.format(format, args));
    }
}
