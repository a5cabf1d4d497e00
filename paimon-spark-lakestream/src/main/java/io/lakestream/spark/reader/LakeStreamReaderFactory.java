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

package io.lakestream.spark.reader;

import io.lakestream.spark.source.LakeStreamInputPartition;
import io.lakestream.spark.types.SparkRowConverter;
import io.lakestream.store.StreamTable;

import org.apache.paimon.table.FileStoreTable;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.Map;

/**
 * Sent to Spark's executors with what a task needs to read a partition-bucket: the table, its
 * stream table (null when the read is Paimon's alone), the store's options, the row converter and
 * how many rows a task returns at most (a pushed {@code LIMIT}).
 */
public class LakeStreamReaderFactory implements PartitionReaderFactory {

    private static final long serialVersionUID = 1L;

    private final FileStoreTable table;
    @Nullable private final StreamTable streamTable;
    private final HashMap<String, String> storeOptions;
    private final SparkRowConverter converter;
    private final long maxBufferedChanges;
    private final long maxRowsPerTask;

    public LakeStreamReaderFactory(
            FileStoreTable table,
            @Nullable StreamTable streamTable,
            Map<String, String> storeOptions,
            SparkRowConverter converter,
            long maxBufferedChanges,
            long maxRowsPerTask) {
        this.table = table;
        this.streamTable = streamTable;
        this.storeOptions = new HashMap<>(storeOptions);
        this.converter = converter;
        this.maxBufferedChanges = maxBufferedChanges;
        this.maxRowsPerTask = maxRowsPerTask;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        return new LakeStreamPartitionReader(
                table,
                streamTable,
                storeOptions,
                converter,
                maxBufferedChanges,
                (LakeStreamInputPartition) partition,
                maxRowsPerTask);
    }
}
