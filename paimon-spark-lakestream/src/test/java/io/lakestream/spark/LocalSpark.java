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

import io.lakestream.spark.catalog.LakeStreamSparkCatalog;

import org.apache.spark.sql.SparkSession;

import java.util.Map;

/** A Spark session in this JVM for the tests and the benchmark, with the catalog {@code lake}. */
final class LocalSpark {

    private LocalSpark() {}

    /**
     * A session of {@code threads} local threads, bound to the loopback address, without the UI,
     * with a lake-stream catalog {@code lake} of {@code warehouse} and the store's {@code options}.
     */
    static SparkSession start(int threads, String warehouse, Map<String, String> options) {
        SparkSession.Builder builder =
                SparkSession.builder()
                        .master("local[" + threads + "]")
                        .appName("lake-stream-spark-tests")
                        .config("spark.driver.host", "127.0.0.1")
                        .config("spark.driver.bindAddress", "127.0.0.1")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", String.valueOf(threads));
        return LakeStreamSparkCatalog.register(builder, "lake", warehouse, options).getOrCreate();
    }
}
