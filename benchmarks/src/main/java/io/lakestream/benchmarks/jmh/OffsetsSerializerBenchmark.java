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

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.offsets.StreamOffsetsSerializer;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;

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

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The offsets map of a snapshot, written by the committer at every commit and read by every
 * planning: serializing and deserializing it at 1,000 and 10,000 partition-buckets (partitions of
 * one date string, four buckets each).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class OffsetsSerializerBenchmark {

    @Param({"1000", "10000"})
    public int partitionBuckets;

    private StreamOffsets offsets;
    private byte[] serialized;

    @Setup
    public void setUp() {
        Map<PartitionBucket, Long> map = new HashMap<>();
        for (int i = 0; i < partitionBuckets; i++) {
            map.put(new PartitionBucket(partition(i / 4), i % 4), 1_000_000L + i);
        }
        offsets = StreamOffsets.of(map);
        serialized = StreamOffsetsSerializer.serialize(offsets);
    }

    @Benchmark
    public byte[] serialize() {
        return StreamOffsetsSerializer.serialize(offsets);
    }

    @Benchmark
    public StreamOffsets deserialize() {
        return StreamOffsetsSerializer.deserialize(serialized);
    }

    static BinaryRow partition(int number) {
        BinaryRow row = new BinaryRow(1);
        BinaryRowWriter writer = new BinaryRowWriter(row);
        writer.writeString(0, BinaryString.fromString(String.format("2026-%06d", number)));
        writer.complete();
        return row;
    }
}
