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

package io.lakestream.flink.table;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;

import javax.annotation.Nullable;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The parallelism of a lake-stream read, decided as Paimon's own source decides it: {@code
 * 'scan.parallelism'} when set; otherwise, when the job leaves the parallelism to the planner and
 * {@code 'scan.infer-parallelism'} is on (the table's options and hints, or the job's {@code
 * 'paimon.scan.infer-parallelism'}), an inferred one; else none, and the job's default applies.
 *
 * <p>Paimon infers the number of buckets for an unbounded read and, for a bounded one, the number
 * of splits it plans, capped by {@code 'scan.infer-parallelism.max'}. A lake-stream read's split is
 * one partition-bucket, snapshot part and store part together, whatever the size of its files, so a
 * bounded read infers the number of partition-buckets it reads: the table's buckets times the
 * partitions of its snapshot that the read's filter keeps (one for an unpartitioned table), capped
 * the same way. Readers beyond that would have no split.
 */
final class ScanParallelism {

    /** The job option by which Paimon's source lets a job turn inference on or off. */
    private static final ConfigOption<Boolean> JOB_INFER_SCAN_PARALLELISM =
            ConfigOptions.key(
                            FlinkConnectorOptions.TABLE_DYNAMIC_OPTION_PREFIX
                                    + FlinkConnectorOptions.INFER_SCAN_PARALLELISM.key())
                    .booleanType()
                    .noDefaultValue();

    private ScanParallelism() {}

    /**
     * The read's parallelism, or null for the job's default.
     *
     * @param table the table with the statement's options
     * @param filter the read's pushed-down filter, or null
     */
    @Nullable
    static Integer of(
            FileStoreTable table,
            boolean unbounded,
            @Nullable Predicate filter,
            @Nullable Long limit,
            StreamExecutionEnvironment env) {
        Options options = Options.fromMap(table.options());
        Integer parallelism = options.get(FlinkConnectorOptions.SCAN_PARALLELISM);
        if (parallelism != null || env.getParallelism() != ExecutionConfig.PARALLELISM_DEFAULT) {
            return parallelism;
        }
        boolean infer =
                env.getConfiguration()
                        .getOptional(JOB_INFER_SCAN_PARALLELISM)
                        .orElse(options.get(FlinkConnectorOptions.INFER_SCAN_PARALLELISM));
        if (!infer) {
            return null;
        }
        int buckets = Math.max(1, options.get(CoreOptions.BUCKET));
        if (unbounded) {
            return buckets;
        }
        long partitionBuckets = (long) buckets * partitionsRead(table, filter);
        long inferred =
                Math.min(
                        partitionBuckets,
                        options.get(FlinkConnectorOptions.INFER_SCAN_MAX_PARALLELISM));
        if (limit != null && limit > 0) {
            // as Paimon caps it: a read of n rows needs no more than n readers
            inferred = Math.min(inferred, limit);
        }
        return (int) Math.max(1, inferred);
    }

    /** The partitions of the read's snapshot that its filter keeps; one when unpartitioned. */
    private static int partitionsRead(FileStoreTable table, @Nullable Predicate filter) {
        if (table.partitionKeys().isEmpty()) {
            return 1;
        }
        ReadBuilder read = table.newReadBuilder().dropStats();
        if (filter != null) {
            read.withFilter(filter);
        }
        return read.newScan().listPartitions().size();
    }

    /**
     * Gives the source of {@code rows} and the operators chained to it (up to the first shuffle)
     * {@code parallelism}, as Paimon's source builder forwards its parallelism to what follows its
     * source.
     */
    static void applyTo(DataStream<?> rows, int parallelism) {
        Deque<Transformation<?>> fromSource = new ArrayDeque<>();
        for (Transformation<?> t = rows.getTransformation(); ; t = t.getInputs().get(0)) {
            fromSource.push(t);
            if (t.getInputs().isEmpty()) {
                break;
            }
        }
        for (Transformation<?> t : fromSource) {
            if (t instanceof PartitionTransformation) {
                return;
            }
            t.setParallelism(parallelism, true);
        }
    }
}
