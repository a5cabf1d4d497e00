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

package io.lakestream.benchmarks.jmh;

import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.flink.source.split.LakeStreamSplitSerializer;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamReader;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.source.DataSplit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The split of one partition-bucket, which the enumerator serializes at every assignment and
 * checkpoint: with no Paimon files (a store-only split) and with several data files.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SplitSerializerBenchmark {

    @Param({"0", "8"})
    public int dataFiles;

    private final LakeStreamSplitSerializer serializer = LakeStreamSplitSerializer.INSTANCE;
    private LakeStreamSplit split;
    private byte[] serialized;

    @Setup
    public void setUp() throws IOException {
        BinaryRow partition = OffsetsSerializerBenchmark.partition(7);
        List<DataSplit> lakeSplits =
                dataFiles == 0
                        ? Collections.emptyList()
                        : Collections.singletonList(dataSplit(partition, 3, dataFiles));
        split =
                new LakeStreamSplit(
                        new PartitionBucket(partition, 3),
                        lakeSplits,
                        0,
                        false,
                        1_000_000,
                        StreamReader.NO_STOP_OFFSET);
        serialized = serializer.serialize(split);
    }

    @Benchmark
    public byte[] serialize() throws IOException {
        return serializer.serialize(split);
    }

    @Benchmark
    public LakeStreamSplit deserialize() throws IOException {
        return serializer.deserialize(serializer.getVersion(), serialized);
    }

    private static DataSplit dataSplit(BinaryRow partition, int bucket, int files) {
        List<DataFileMeta> metas = new ArrayList<>();
        for (int i = 0; i < files; i++) {
            metas.add(
                    DataFileMeta.forAppend(
                            "data-" + i + ".parquet",
                            128L << 20,
                            1_000_000,
                            SimpleStats.EMPTY_STATS,
                            i * 1_000_000L,
                            (i + 1) * 1_000_000L - 1,
                            0,
                            Collections.emptyList(),
                            null,
                            FileSource.APPEND,
                            null,
                            null,
                            null,
                            null));
        }
        return DataSplit.builder()
                .withSnapshot(42)
                .withPartition(partition)
                .withBucket(bucket)
                .withBucketPath("p=7/bucket-" + bucket)
                .withDataFiles(metas)
                .rawConvertible(true)
                .build();
    }
}
