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

package io.lakestream.store.fluss.testutils;

import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamReader;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.StreamWriter;
import io.lakestream.store.WriterLeaseLog;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;

import javax.annotation.Nullable;

import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A store client of the shared test cluster whose {@link #provision} returns only once the Fluss
 * coordinator knows the stream table. Tests write right after provisioning, within the time the
 * {@link CoordinatorTableWatchdog} needs to repair a creation the coordinator missed; a first
 * partition of a table the coordinator does not know breaks its leader election for good.
 */
final class CoordinatorAwareStreamStore implements StreamStore {

    private final StreamStore store;

    CoordinatorAwareStreamStore(StreamStore store) {
        this.store = store;
    }

    @Override
    public StreamTable provision(StreamTableSpec spec) {
        StreamTable table = store.provision(spec);
        SharedFlussCluster.awaitKnownToCoordinator(table.storeTableId());
        return table;
    }

    @Override
    public void checkEvolution(StreamTableSpec from, StreamTableSpec to) {
        store.checkEvolution(from, to);
    }

    @Override
    public StreamTable get(StreamTableSpec spec) {
        return store.get(spec);
    }

    @Override
    public boolean drop(Identifier paimonTable, @Nullable StreamTableOwner owner) {
        return store.drop(paimonTable, owner);
    }

    @Override
    public StreamWriter createWriter(StreamTable table) {
        return store.createWriter(table);
    }

    @Override
    public StreamReader createReader(StreamTable table) {
        return store.createReader(table);
    }

    @Override
    public FenceLog openFenceLog(StreamTable table) {
        return store.openFenceLog(table);
    }

    @Override
    public WriterLeaseLog openWriterLeaseLog(StreamTable table) {
        return store.openWriterLeaseLog(table);
    }

    @Override
    public List<BinaryRow> listPartitions(StreamTable table) {
        return store.listPartitions(table);
    }

    @Override
    public List<PartitionBucket> listPartitionBuckets(StreamTable table) {
        return store.listPartitionBuckets(table);
    }

    @Override
    public void dropPartition(StreamTable table, BinaryRow partition) {
        store.dropPartition(table, partition);
    }

    @Override
    public Map<PartitionBucket, Long> listOffsets(
            StreamTable table,
            Collection<PartitionBucket> partitionBuckets,
            OffsetPosition position) {
        return store.listOffsets(table, partitionBuckets, position);
    }

    @Override
    public void close() {
        store.close();
    }
}
