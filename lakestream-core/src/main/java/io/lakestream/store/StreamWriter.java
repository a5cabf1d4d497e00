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

package io.lakestream.store;

import io.lakestream.offsets.PartitionBucket;

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.RowKind;

import java.util.Map;

/**
 * Writes records of one stream table. Writes are asynchronous and batched: {@link #write} returns
 * once the record is queued, and records become readable as the store takes them, long before
 * {@link #flush}.
 *
 * <p>Each partition-bucket has one writer at a time (invariant "one owner per bucket"), so the end
 * offset that {@link #flush} reports for a partition-bucket is this writer's own progress.
 */
@Experimental
public interface StreamWriter extends AutoCloseable {

    /**
     * Queues {@code row} with the row kind {@code rowKind} for the given partition-bucket, which is
     * the one Paimon assigned to the row. The row's own {@link InternalRow#getRowKind()} is
     * ignored: Paimon's writer may decide the kind from elsewhere (a {@code 'rowkind.field'}
     * column), and the store must hold the kind Paimon wrote. Tables without a primary key accept
     * only +I and +U.
     *
     * <p>The row is encoded before this method returns, so callers may reuse it, and its partition
     * row, afterwards.
     */
    void write(PartitionBucket partitionBucket, RowKind rowKind, InternalRow row);

    /**
     * Queues {@code row} with its own row kind; for rows whose {@link InternalRow#getRowKind()} is
     * the kind to store (rows not written through Paimon's table writer). The sink uses {@link
     * #write(PartitionBucket, RowKind, InternalRow)} with the kind Paimon wrote.
     */
    default void write(PartitionBucket partitionBucket, InternalRow row) {
        write(partitionBucket, row.getRowKind(), row);
    }

    /**
     * Blocks until every queued record is durable in the store, then returns the end offset
     * (exclusive) of every partition-bucket written since the previous flush.
     *
     * @throws StreamStoreException when a record could not be written; no offset is reported then
     */
    Map<PartitionBucket, Long> flush();

    /**
     * Called by a starting writer of a {@link StreamStore#isProcessLocal() process-local} store for
     * every partition-bucket it owns, before it writes: the partition-bucket's records below {@code
     * offset} are in Paimon's snapshots (or about to be, by the restored committer), and its log
     * continues there if this process has not written it yet. Stores whose logs outlive the process
     * never receive it; this default does nothing.
     */
    default void continueAt(PartitionBucket partitionBucket, long offset) {}

    @Override
    void close();
}
