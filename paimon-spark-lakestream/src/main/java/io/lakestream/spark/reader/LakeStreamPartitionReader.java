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

import io.lakestream.read.BucketUnionReader;
import io.lakestream.read.ReaderStore;
import io.lakestream.spark.source.LakeStreamInputPartition;
import io.lakestream.spark.types.SparkRowConverter;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;

import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.CloseableIterator;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;

import javax.annotation.Nullable;

import java.util.Map;

/**
 * Reads one partition-bucket in a Spark task with the core's {@link BucketUnionReader}, the merge
 * every engine uses, and hands Spark a copy of each row. The task's store connection is opened only
 * if the partition-bucket has store records to read.
 */
public class LakeStreamPartitionReader implements PartitionReader<InternalRow> {

    private final ReaderStore store;
    private final SparkRowConverter converter;
    private final CloseableIterator<org.apache.paimon.data.InternalRow> rows;
    private long remaining;
    private InternalRow current;

    LakeStreamPartitionReader(
            FileStoreTable table,
            @Nullable StreamTable streamTable,
            Map<String, String> storeOptions,
            SparkRowConverter converter,
            long maxBufferedChanges,
            LakeStreamInputPartition partition,
            long maxRows) {
        this.converter = converter;
        this.remaining = maxRows;
        this.store =
                new ReaderStore(
                        streamTable,
                        storeOptions,
                        () -> {
                            if (streamTable == null) {
                                // planLake plans no store part: nothing reads the store
                                throw new StreamStoreException(
                                        "Table " + table.fullName() + " is read from Paimon alone");
                            }
                            return StreamStoreLoader.create(
                                    storeOptions, LakeStreamPartitionReader.class.getClassLoader());
                        });
        BucketUnionReader reader = new BucketUnionReader(table, store, maxBufferedChanges);
        this.rows =
                partition.changes()
                        ? reader.changes(partition.read())
                        : reader.read(partition.read());
    }

    @Override
    public boolean next() {
        // a pushed LIMIT: the task need not open the rest of its files
        if (remaining <= 0 || !rows.hasNext()) {
            return false;
        }
        remaining--;
        current = converter.convert(rows.next());
        return true;
    }

    @Override
    public InternalRow get() {
        return current;
    }

    @Override
    public void close() throws java.io.IOException {
        try {
            rows.close();
        } catch (Exception e) {
            throw new java.io.IOException(e);
        } finally {
            store.close();
        }
    }
}
