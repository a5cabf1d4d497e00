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

package io.lakestream.spark;

import io.lakestream.embedded.LakeStreamTable;
import io.lakestream.embedded.LakeStreamWriter;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.types.DataTypes;

import org.apache.spark.sql.SparkSession;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Spark's union read of a lake-stream table beside Spark's read of the same snapshot without the
 * store ({@code 'lake-stream.read.lake-only'}), in one run: a primary-key table of {@code
 * bench.rows} rows (default 2,000,000) in 4 buckets, written with the embedded API on the {@code
 * memory} store, with {@code bench.tail-percent} (default 1) of them as updates not committed yet.
 * Prints the median of {@code bench.rounds} (default 5) full scans ({@code COUNT} of a column, so
 * every row is read and merged) of each side and their ratio. Run with:
 *
 * <pre>{@code
 * mvn -B -q install -DskipTests && mvn -B -q -pl paimon-spark-lakestream exec:exec
 * }</pre>
 */
public final class SparkReadBenchmark {

    private SparkReadBenchmark() {}

    public static void main(String[] args) throws Exception {
        int rows = Integer.getInteger("bench.rows", 2_000_000);
        int tailPercent = Integer.getInteger("bench.tail-percent", 1);
        int rounds = Integer.getInteger("bench.rounds", 5);
        java.nio.file.Path dir = Files.createTempDirectory("spark-read-bench");
        String warehouse = dir.resolve("warehouse").toUri().toString();
        Map<String, String> options = new HashMap<>();
        options.put("lake-stream.store", "memory");
        options.put("lake-stream.memory.max-bytes", "2 gb");
        options.put("lake-stream.read.merge-buffer.max-records", String.valueOf(rows));
        Identifier id = Identifier.create("db", "bench");
        try (Catalog catalog =
                CatalogFactory.createCatalog(CatalogContext.create(new Path(warehouse)))) {
            catalog.createDatabase("db", true);
            catalog.createTable(
                    id,
                    Schema.newBuilder()
                            .column("id", DataTypes.BIGINT().notNull())
                            .column("name", DataTypes.STRING())
                            .column("amount", DataTypes.DOUBLE())
                            .primaryKey("id")
                            .option("bucket", "4")
                            .build(),
                    false);
            LakeStreamTable.enable(catalog, id, options);
            try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                    LakeStreamWriter writer = table.newWriter("bench")) {
                long start = System.nanoTime();
                for (long i = 0; i < rows; i++) {
                    writer.write(GenericRow.of(i, BinaryString.fromString("name-" + i), i * 0.5));
                }
                writer.commit();
                long tail = (long) rows * tailPercent / 100;
                for (long i = 0; i < tail; i++) {
                    long key = i * (rows / Math.max(1, tail));
                    writer.write(GenericRow.of(key, BinaryString.fromString("new-" + key), 1.0));
                }
                System.out.printf(
                        "Wrote %,d rows and %,d uncommitted updates in %.1f s%n",
                        rows, tail, (System.nanoTime() - start) / 1e9);

                SparkSession spark = LocalSpark.start(2, warehouse, options);
                String query = "SELECT COUNT(name) FROM lake.db.bench";
                List<Long> union = new ArrayList<>();
                List<Long> lakeOnly = new ArrayList<>();
                List<Long> unionLimit = new ArrayList<>();
                List<Long> lakeOnlyLimit = new ArrayList<>();
                org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> lake =
                        spark.read()
                                .option("lake-stream.read.lake-only", "true")
                                .table("lake.db.bench");
                for (int round = 0; round < rounds + 1; round++) {
                    long unionMillis = time(spark, query);
                    long lakeMillis = time(lake.selectExpr("COUNT(name)"));
                    long unionLimitMillis = time(spark, "SELECT * FROM lake.db.bench LIMIT 10");
                    long lakeLimitMillis = time(lake.limit(10));
                    if (round > 0) {
                        // the first round warms the JIT and Spark up
                        union.add(unionMillis);
                        lakeOnly.add(lakeMillis);
                        unionLimit.add(unionLimitMillis);
                        lakeOnlyLimit.add(lakeLimitMillis);
                    }
                }
                long unionMedian = median(union);
                long lakeMedian = median(lakeOnly);
                System.out.printf(
                        "Spark full scan of %,d rows, 4 buckets, %d%% of them updated and not "
                                + "committed (median of %d):%n"
                                + "  union read (lake-stream)      %,6d ms%n"
                                + "  the snapshot alone (lake-only) %,6d ms%n"
                                + "  lake-only / union: %.2f%n",
                        rows,
                        tailPercent,
                        rounds,
                        unionMedian,
                        lakeMedian,
                        (double) lakeMedian / unionMedian);
                System.out.printf(
                        "SELECT * ... LIMIT 10 (median of %d):%n"
                                + "  union read (lake-stream)      %,6d ms%n"
                                + "  the snapshot alone (lake-only) %,6d ms%n",
                        rounds, median(unionLimit), median(lakeOnlyLimit));
                spark.stop();
            }
        }
    }

    private static long time(SparkSession spark, String query) {
        long start = System.nanoTime();
        spark.sql(query).collectAsList();
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static long time(org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> query) {
        long start = System.nanoTime();
        query.collectAsList();
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
