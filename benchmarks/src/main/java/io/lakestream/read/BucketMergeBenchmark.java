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

package io.lakestream.read;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

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
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Comparator;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The merge of a bounded read of a primary-key bucket: the store's tail changes buffered by key,
 * the snapshot's rows streamed through them, then the keys only the store has. One invocation
 * merges a whole bucket; the score is per snapshot row. Deduplicate (the default merge engine) and
 * partial-update, whose changes cannot replace each other.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class BucketMergeBenchmark {

    private static final int LAKE_ROWS = 100_000;

    @Param({"deduplicate", "partial-update"})
    public String mergeEngine;

    /** The store tail in percent of the snapshot's rows; a tenth of it are new keys. */
    @Param({"1", "10"})
    public int tailPercent;

    private java.nio.file.Path warehouse;
    private FileStoreTable table;
    private InternalRow[] lakeRows;
    private InternalRow[] changes;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        warehouse = Files.createTempDirectory("bucket-merge-benchmark");
        try (Catalog catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(new Path(warehouse.toUri().toString())))) {
            catalog.createDatabase("bench", true);
            Identifier identifier = Identifier.create("bench", "merge");
            catalog.createTable(
                    identifier,
                    Schema.newBuilder()
                            .column("id", DataTypes.BIGINT().notNull())
                            .column("name", DataTypes.STRING())
                            .column("amount", DataTypes.DOUBLE())
                            .primaryKey("id")
                            .option("bucket", "1")
                            .option("merge-engine", mergeEngine)
                            .build(),
                    false);
            table = (FileStoreTable) catalog.getTable(identifier);
        }
        lakeRows = new InternalRow[LAKE_ROWS];
        for (int i = 0; i < LAKE_ROWS; i++) {
            lakeRows[i] = GenericRow.of((long) i, BinaryString.fromString("customer-" + i), 1.0);
        }
        int tail = LAKE_ROWS * tailPercent / 100;
        changes = new InternalRow[tail];
        for (int i = 0; i < tail; i++) {
            // nine in ten update a snapshot key (spread over the bucket), one in ten is new
            long key = i % 10 == 9 ? LAKE_ROWS + i : (long) i * 97 % LAKE_ROWS;
            changes[i] = GenericRow.ofKind(RowKind.UPDATE_AFTER, key, null, (double) i);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try (Stream<java.nio.file.Path> files = Files.walk(warehouse)) {
            files.sorted(Comparator.reverseOrder())
                    .map(java.nio.file.Path::toFile)
                    .forEach(java.io.File::delete);
        }
    }

    @Benchmark
    @org.openjdk.jmh.annotations.OperationsPerInvocation(LAKE_ROWS)
    public void mergeBucket(Blackhole blackhole) {
        BucketMerge merge = BucketMerge.of(table);
        for (InternalRow change : changes) {
            merge.addChange(change);
        }
        for (InternalRow lakeRow : lakeRows) {
            blackhole.consume(merge.mergeLake(lakeRow));
        }
        Iterator<InternalRow> remaining = merge.remaining();
        while (remaining.hasNext()) {
            blackhole.consume(remaining.next());
        }
    }
}
