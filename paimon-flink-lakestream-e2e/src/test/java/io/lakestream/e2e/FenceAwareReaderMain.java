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

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.table.FileStoreTable;

import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A reader in a process of its own: opens the orders table from the warehouse, its stream table
 * through the store SPI, and reads everything the store holds through {@link FencedStreamReader}.
 * It prints one {@code RECORD <record>} line per record it saw, one {@code FENCE <range>} line per
 * fence it knew of, and a {@code SUMMARY records=<n> skipped=<n>} line, for the test to compare
 * with what it wrote and fenced.
 *
 * <p>Arguments: the Fluss bootstrap servers and the Paimon warehouse directory.
 */
public final class FenceAwareReaderMain {

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private FenceAwareReaderMain() {}

    public static void main(String[] args) {
        int exitCode = 1;
        try {
            read(args[0], args[1]);
            exitCode = 0;
        } catch (Throwable t) {
            t.printStackTrace();
        }
        // exit explicitly: after a failure the Fluss client's threads would keep the JVM alive
        System.exit(exitCode);
    }

    private static void read(String bootstrapServers, String warehouse) throws Exception {
        FileStoreTable table = OrdersTable.open(Paths.get(warehouse));
        try (StreamStore store =
                StreamStoreLoader.create(
                        OrdersTable.lakeStreamOptions(bootstrapServers),
                        FenceAwareReaderMain.class.getClassLoader())) {
            StreamTable streamTable = store.get(OrdersTable.spec(table));
            List<PartitionBucket> partitionBuckets = new ArrayList<>();
            for (BinaryRow partition : store.listPartitions(streamTable)) {
                for (int bucket = 0; bucket < streamTable.spec().numBuckets(); bucket++) {
                    partitionBuckets.add(new PartitionBucket(partition, bucket));
                }
            }
            Map<PartitionBucket, Long> starts =
                    store.listOffsets(streamTable, partitionBuckets, OffsetPosition.EARLIEST);
            Map<PartitionBucket, Long> ends =
                    store.listOffsets(streamTable, partitionBuckets, OffsetPosition.LATEST);
            try (FencedStreamReader reader =
                    new FencedStreamReader(
                            store.createReader(streamTable), store.openFenceLog(streamTable))) {
                List<StreamRecord> records =
                        BoundedStreamRead.readAll(reader, starts, ends, READ_TIMEOUT);
                for (StreamRecord record : records) {
                    System.out.println("RECORD " + OrdersTable.describe(record));
                }
                for (PartitionBucket pb : partitionBuckets) {
                    for (AbortedRange fence : reader.fences().rangesOf(pb)) {
                        System.out.println("FENCE " + OrdersTable.describe(fence));
                    }
                }
                System.out.println(
                        "SUMMARY records="
                                + records.size()
                                + " skipped="
                                + reader.skippedRecords());
            }
        }
    }
}
