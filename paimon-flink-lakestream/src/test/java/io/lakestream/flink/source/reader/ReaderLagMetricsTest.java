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

package io.lakestream.flink.source.reader;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamTable;
import io.lakestream.testutils.Await;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reader's lag metrics: a bounded log's lag comes from its stop offset without asking the
 * store, and an unbounded log's end is asked on a thread of the metrics' own, so that a slow store
 * never stalls the fetcher that calls for the refresh.
 */
class ReaderLagMetricsTest {

    @TempDir java.nio.file.Path warehouse;

    private final InMemoryLogStore store = new InMemoryLogStore();
    private final Map<String, Gauge<?>> gauges = new HashMap<>();
    private StreamTable streamTable;
    private ReaderLagMetrics metrics;

    @BeforeEach
    void setUp() throws Exception {
        FileStoreTable table =
                LocalPaimonTables.create(
                        warehouse,
                        "lagged",
                        Schema.newBuilder()
                                .column("id", DataTypes.INT())
                                .option("bucket", "2")
                                .option("bucket-key", "id")
                                .build());
        streamTable = LocalPaimonTables.streamTable(table);
        metrics =
                new ReaderLagMetrics(
                        InternalSourceReaderMetricGroup.mock(
                                new UnregisteredMetricsGroup() {
                                    @Override
                                    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
                                        gauges.put(name, gauge);
                                        return gauge;
                                    }
                                }));
    }

    private long pendingRecords() {
        return ((Number) gauges.get("pendingRecords").getValue()).longValue();
    }

    @Test
    void boundedLogsLagBehindTheirStopOffsetWithoutAskingTheStore() {
        metrics.track(PartitionBucket.ofUnpartitioned(0), 10, 25);
        metrics.track(PartitionBucket.ofUnpartitioned(1), 3, 4);
        assertThat(pendingRecords()).isEqualTo(16);

        metrics.passed(PartitionBucket.ofUnpartitioned(0), 19);
        metrics.maybeRefreshEnds(System.currentTimeMillis(), () -> store, streamTable);
        assertThat(pendingRecords()).isEqualTo(6);
        assertThat(store.endListings).hasValue(0);
        metrics.close();
    }

    @Test
    @Timeout(120) // a refresh that held its caller would wait on the gate for ever
    void unboundedLogsEndsAreListedWithoutHoldingTheCaller() throws Exception {
        PartitionBucket pb = PartitionBucket.ofUnpartitioned(0);
        for (int i = 0; i < 7; i++) {
            store.append(pb, GenericRow.of(i));
        }
        metrics.track(pb, 2, StreamReader.NO_STOP_OFFSET);
        CountDownLatch slowStore = new CountDownLatch(1);
        store.endListingGate = slowStore;

        // returns while the store has not answered: the fetcher goes on fetching
        metrics.maybeRefreshEnds(System.currentTimeMillis(), () -> store, streamTable);
        awaitListings(1);
        assertThat(pendingRecords()).as("before the store answered").isZero();
        // one listing at a time: a refresh that is due while one is in flight waits for it
        metrics.maybeRefreshEnds(System.currentTimeMillis() + 60_000, () -> store, streamTable);
        assertThat(store.endListings).hasValue(1);

        slowStore.countDown();
        Await.until(
                () -> pendingRecords() == 5,
                Duration.ofSeconds(30),
                () -> "the lag after the store answered is 5, not " + pendingRecords());
        metrics.close();
    }

    private void awaitListings(int count) throws Exception {
        Await.until(
                () -> store.endListings.get() >= count,
                Duration.ofSeconds(30),
                () -> count + " end listings, not " + store.endListings.get());
        assertThat(store.endListings).hasValue(count);
    }
}
