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

package io.lakestream.benchmarks.write;

import io.lakestream.flink.LakeStreamOptions;
import io.lakestream.flink.offsets.PartitionBucket;
import io.lakestream.flink.store.StreamStore;
import io.lakestream.flink.store.StreamStoreLoader;
import io.lakestream.flink.store.StreamTable;
import io.lakestream.flink.store.StreamTableSpec;
import io.lakestream.flink.store.StreamWriter;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.apache.fluss.server.testutils.FlussClusterExtension;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The stream writer's per-record path, as the sink's write operator drives it: one {@code write}
 * per record with the partition-bucket Paimon assigned, a flush per 100,000 records (a barrier).
 * Measures encoding, partition lookup, bucket routing and the Fluss client's accumulator; the
 * network is the in-process Fluss cluster's. Run with {@code -prof gc} to see allocation per
 * record. Not wired into a build: move it into the benchmarks module, which provides JMH, the
 * project's modules and Fluss's server test jar.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(1)
public class StreamWriterRecordPathBenchmark {

    private static final int FLUSH_EVERY = 100_000;

    /** Partitions the records cycle through; every one is written between two flushes. */
    @Param({"1", "100"})
    public int partitions;

    private FlussClusterExtension fluss;
    private StreamStore store;
    private StreamWriter writer;
    private PartitionBucket[] targets;
    private BinaryString[] partitionValues;
    private GenericRow row;
    private long written;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fluss = FlussClusterExtension.builder().setNumOfTabletServers(1).build();
        fluss.start();
        Map<String, String> options = new HashMap<>();
        options.put(LakeStreamOptions.STORE.key(), "fluss");
        options.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "bootstrap.servers",
                fluss.getBootstrapServers());
        store = StreamStoreLoader.create(options, getClass().getClassLoader());
        RowType rowType =
                RowType.of(
                        new org.apache.paimon.types.DataType[] {
                            DataTypes.INT().notNull(),
                            DataTypes.BIGINT(),
                            DataTypes.STRING(),
                            DataTypes.DOUBLE(),
                            DataTypes.TIMESTAMP(3),
                            DataTypes.STRING().notNull()
                        },
                        new String[] {"id", "amount", "name", "price", "ts", "dt"});
        StreamTable table =
                store.provision(
                        new StreamTableSpec(
                                Identifier.create("bench", "record_path_" + partitions),
                                rowType,
                                Arrays.asList("dt"),
                                Arrays.asList("id"),
                                Arrays.asList(),
                                4));
        writer = store.createWriter(table);
        targets = new PartitionBucket[partitions * 4];
        partitionValues = new BinaryString[partitions * 4];
        for (int p = 0; p < partitions; p++) {
            BinaryRow partition = new BinaryRow(1);
            BinaryRowWriter w = new BinaryRowWriter(partition);
            w.writeString(0, BinaryString.fromString("p" + p));
            w.complete();
            for (int b = 0; b < 4; b++) {
                targets[p * 4 + b] = new PartitionBucket(partition, b);
                partitionValues[p * 4 + b] = BinaryString.fromString("p" + p);
            }
        }
        row =
                GenericRow.of(
                        0,
                        0L,
                        BinaryString.fromString("customer-0001"),
                        1.5d,
                        Timestamp.fromEpochMillis(1_700_000_000_000L),
                        BinaryString.fromString("p0"));
    }

    /**
     * One record. The bucket is not the one Paimon would compute for the id: the writer takes the
     * partition-bucket it is given, which is what is measured.
     */
    @Benchmark
    public void writeRecord() {
        long n = written++;
        int target = (int) (n % targets.length);
        row.setField(0, (int) n);
        row.setField(1, n);
        row.setField(5, partitionValues[target]);
        writer.write(targets[target], RowKind.INSERT, row);
        if (n % FLUSH_EVERY == FLUSH_EVERY - 1) {
            writer.flush();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        writer.flush();
        writer.close();
        store.close();
        fluss.close();
    }
}
