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

import io.lakestream.protocol.WriterLeaseReplay;
import io.lakestream.protocol.WriterLeases;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.WriterLeaseLog;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.client.table.writer.AppendWriter;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.GenericRow;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a bounded read's planning pays to ask whether a writer holds a table's lease, as the lease
 * log grows under a running job (an entry every third of the lease timeout: 4,320 a day at the
 * default of 1 min): the whole log replayed, as every planning did before, against the replay
 * resumed from where this process last replayed it. Prints its figures; it asserts no time. Not
 * part of the suite (its name ends neither in {@code Test} nor {@code ITCase}): run it with {@code
 * -Dtest=WriterLeaseLogBenchmark}.
 */
@ExtendWith(SharedFlussCluster.class)
class WriterLeaseLogBenchmark {

    private static final int ENTRIES_A_DAY = 4_320;
    private static final int[] DAYS = {1, 7, 30, 90};
    private static final int ROUNDS = 5;
    private static final Duration TIMEOUT = Duration.ofMinutes(1);

    @Test
    void planningBesideALongRunningWriter() throws Exception {
        StreamStore store = SharedFlussCluster.newStore();
        StreamTable table =
                store.provision(
                        new StreamTableSpec(
                                Identifier.create("lease_bench", "orders"),
                                RowType.of(
                                        new org.apache.paimon.types.DataType[] {
                                            DataTypes.INT().notNull()
                                        },
                                        new String[] {"id"}),
                                Collections.emptyList(),
                                Collections.singletonList("id"),
                                Collections.emptyList(),
                                1));
        TablePath leases =
                FlussWriterLeaseLog.writerTablePath(TablePath.of("lease_bench", "orders"));
        System.out.printf(
                "%-8s %-9s %-26s %-26s%n",
                "days", "entries", "whole replay ms [min-max]", "resumed replay ms [min-max]");
        int entries = 0;
        try (Connection connection =
                        ConnectionFactory.createConnection(
                                SharedFlussCluster.cluster().getClientConfig());
                Table leaseTable = connection.getTable(leases)) {
            AppendWriter writer = leaseTable.newAppend().createWriter();
            for (int days : DAYS) {
                entries = renew(writer, entries, days * ENTRIES_A_DAY);
                // the first resumed read after the renewals reads them: measured from the second
                assertThat(WriterLeases.isLive(store, table, TIMEOUT)).isTrue();
                double[] whole = time(() -> wholeReplayIsLive(store, table));
                double[] resumed = time(() -> WriterLeases.isLive(store, table, TIMEOUT));
                System.out.printf(
                        "%-8d %-9d %-26s %-26s%n", days, entries, format(whole), format(resumed));
            }
        }
        store.close();
    }

    /** Renewals of one running job up to {@code target} entries, in batches of 2,000. */
    private static int renew(AppendWriter writer, int entries, int target) throws Exception {
        while (entries < target) {
            List<CompletableFuture<?>> appended = new ArrayList<>();
            for (int i = 0; i < 2_000 && entries < target; i++, entries++) {
                appended.add(
                        writer.append(
                                GenericRow.of(
                                        BinaryString.fromString(
                                                "8f2c1c1e-5b7a-4c1d-9d55-2f3c0e1a7b44"),
                                        BinaryString.fromString(
                                                "Flink job 3f2b8c1d9e4a5f6b7c8d9e0f1a2b3c4d "
                                                        + "(insert-into_paimon.shop.orders)"),
                                        false)));
            }
            CompletableFuture.allOf(appended.toArray(new CompletableFuture<?>[0])).get();
        }
        return entries;
    }

    /** What {@link WriterLeases#isLive} did before it resumed: the whole log, replayed. */
    private static boolean wholeReplayIsLive(StreamStore store, StreamTable table) {
        WriterLeaseReplay replay = new WriterLeaseReplay(TIMEOUT.toMillis());
        try (WriterLeaseLog log = store.openWriterLeaseLog(table)) {
            replay.apply(log.readNew());
        }
        return replay.holder() != null;
    }

    private static double[] time(Callable<Boolean> isLive) throws Exception {
        double[] millis = new double[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
            long start = System.nanoTime();
            assertThat(isLive.call()).isTrue();
            millis[i] = (System.nanoTime() - start) / 1e6;
        }
        return millis;
    }

    private static String format(double[] millis) {
        double[] sorted = millis.clone();
        Arrays.sort(sorted);
        return String.format(
                "%.1f [%.1f-%.1f]",
                sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]);
    }
}
