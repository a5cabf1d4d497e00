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

import io.lakestream.read.plan.BucketRead;
import io.lakestream.store.StreamRecord;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReaderIterator;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.utils.CloseableIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Reads one partition-bucket of a bounded union read ({@link BucketRead}) as rows to pull: the
 * snapshot's files, then the store's records past them. A primary-key table's store records are
 * read first into a {@link BucketMerge} ({@link BoundedMergeReader#read}), the lake rows stream
 * through it, and the keys only the store has follow; an append table's lake rows are followed by
 * its store rows. What it returns is what Paimon's batch read returns once those records are
 * committed. The embedded scan and the Spark read pull rows through it; nothing else merges.
 *
 * <p>A row it returns may be reused by the next call of {@code hasNext}: copy it to keep it.
 */
public final class BucketUnionReader {

    private final TableRead lakeRead;
    private final BoundedMergeReader storeRead;
    private final boolean primaryKey;

    /**
     * @param table the table as the read plans it (its schema reads the snapshot's files)
     * @param store the store connection of the reading task
     * @param maxBufferedChanges the most store changes of a primary-key partition-bucket held to
     *     merge them
     */
    public BucketUnionReader(FileStoreTable table, ReaderStore store, long maxBufferedChanges) {
        this.lakeRead = table.newReadBuilder().newRead();
        this.storeRead = new BoundedMergeReader(table, store, maxBufferedChanges);
        this.primaryKey = !table.primaryKeys().isEmpty();
    }

    /** The rows of {@code bucket}; closing the iterator closes the open file reader. */
    public CloseableIterator<InternalRow> read(BucketRead bucket) {
        long start = bucket.logStartOffset();
        long stop = Math.max(start, bucket.logStopOffset());
        LakeRows lake = new LakeRows(lakeRead, bucket.lakeSplits());
        if (primaryKey) {
            BucketMerge merge = storeRead.read(bucket.partitionBucket(), start, stop);
            return new MergedRows(lake, merge);
        }
        Iterator<StreamRecord> store = storeRead.records(bucket.partitionBucket(), start, stop);
        return new AppendedRows(lake, store);
    }

    /**
     * The changes of {@code bucket} as an unbounded read returns them, unmerged: the rows of its
     * lake splits with the row kinds Paimon's read gives them (a snapshot's rows, or another
     * writer's changes), then the store's records with theirs, fenced ones skipped. Applied in
     * order, by key for a primary-key table, they give what the merged read returns for the
     * deduplicate engine; no delete is lost to a merge.
     */
    public CloseableIterator<InternalRow> changes(BucketRead bucket) {
        long start = bucket.logStartOffset();
        long stop = Math.max(start, bucket.logStopOffset());
        LakeRows lake = new LakeRows(lakeRead, bucket.lakeSplits());
        return new AppendedRows(lake, storeRead.records(bucket.partitionBucket(), start, stop));
    }

    /** The rows of a partition-bucket's data splits, one file reader open at a time. */
    private static final class LakeRows implements CloseableIterator<InternalRow> {
        private final TableRead read;
        private final Iterator<DataSplit> splits;
        private RecordReaderIterator<InternalRow> current;

        LakeRows(TableRead read, List<DataSplit> splits) {
            this.read = read;
            this.splits = splits.iterator();
        }

        @Override
        public boolean hasNext() {
            while (current == null || !current.hasNext()) {
                closeCurrent();
                if (!splits.hasNext()) {
                    return false;
                }
                try {
                    current = new RecordReaderIterator<>(read.createReader(splits.next()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return true;
        }

        @Override
        public InternalRow next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return current.next();
        }

        private void closeCurrent() {
            if (current != null) {
                try {
                    current.close();
                } catch (Exception e) {
                    throw new IllegalStateException("Cannot close a reader of Paimon's files", e);
                } finally {
                    current = null;
                }
            }
        }

        @Override
        public void close() {
            closeCurrent();
        }
    }

    /** A primary-key partition-bucket: lake rows merged with the store's changes, then the rest. */
    private static final class MergedRows implements CloseableIterator<InternalRow> {
        private final LakeRows lake;
        private final BucketMerge merge;
        private Iterator<InternalRow> storeOnly = Collections.emptyIterator();
        private boolean lakeDone;
        private InternalRow next;

        MergedRows(LakeRows lake, BucketMerge merge) {
            this.lake = lake;
            this.merge = merge;
        }

        @Override
        public boolean hasNext() {
            while (next == null && !lakeDone) {
                if (lake.hasNext()) {
                    // null: the store deleted the key
                    next = merge.mergeLake(lake.next());
                } else {
                    lakeDone = true;
                    lake.close();
                    storeOnly = merge.remaining();
                }
            }
            if (next == null && storeOnly.hasNext()) {
                next = storeOnly.next();
            }
            return next != null;
        }

        @Override
        public InternalRow next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            InternalRow row = next;
            next = null;
            return row;
        }

        @Override
        public void close() {
            lake.close();
        }
    }

    /** An append partition-bucket: the lake rows, then the store's. */
    private static final class AppendedRows implements CloseableIterator<InternalRow> {
        private final LakeRows lake;
        private final Iterator<StreamRecord> store;

        AppendedRows(LakeRows lake, Iterator<StreamRecord> store) {
            this.lake = lake;
            this.store = store;
        }

        @Override
        public boolean hasNext() {
            return lake.hasNext() || store.hasNext();
        }

        @Override
        public InternalRow next() {
            if (lake.hasNext()) {
                return lake.next();
            }
            return store.next().row();
        }

        @Override
        public void close() {
            lake.close();
        }
    }
}
