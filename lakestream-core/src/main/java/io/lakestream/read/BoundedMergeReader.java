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

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStoreException;

import org.apache.paimon.table.FileStoreTable;

import java.time.Duration;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * Reads the store part of a bounded read of a primary-key partition-bucket into a {@link
 * BucketMerge} before its lake part is read, so that the lake rows can be merged with it as they
 * stream by. The changes it may hold are bounded ({@link
 * LakeStreamOptions#READ_MERGE_BUFFER_MAX_RECORDS}) and so is its wait for the store ({@link
 * LakeStreamOptions#READ_STORE_TIMEOUT}): both fail the read with an error that names the table.
 */
public final class BoundedMergeReader {

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private final FileStoreTable table;
    private final ReaderStore store;
    private final long maxBufferedChanges;

    public BoundedMergeReader(FileStoreTable table, ReaderStore store, long maxBufferedChanges) {
        this.table = table;
        this.store = store;
        this.maxBufferedChanges = maxBufferedChanges;
    }

    /**
     * The merge of partition-bucket {@code pb}, holding its store records from {@code startOffset}
     * to {@code stopOffset}, less fenced ones. Merged whether or not the partition-bucket has lake
     * rows: the log alone holds deletes and partial rows that only the merge turns into the table's
     * rows.
     */
    public BucketMerge read(PartitionBucket pb, long startOffset, long stopOffset) {
        BucketMerge merge = BucketMerge.of(table);
        forEachRecord(
                pb,
                startOffset,
                stopOffset,
                record -> {
                    merge.addChange(record.row());
                    if (merge.bufferedChanges() > maxBufferedChanges) {
                        throw tooManyChanges(pb);
                    }
                });
        return merge;
    }

    /**
     * Calls {@code action} with every store record of partition-bucket {@code pb} from {@code
     * startOffset} to {@code stopOffset}, less fenced ones, in offset order; the read of an append
     * table's partition-bucket, and the first half of {@link #read}. See {@link #records}.
     */
    public void forEachRecord(
            PartitionBucket pb, long startOffset, long stopOffset, Consumer<StreamRecord> action) {
        Iterator<StreamRecord> records = records(pb, startOffset, stopOffset);
        try {
            records.forEachRemaining(action);
        } catch (RuntimeException e) {
            store.log().unsubscribe(pb);
            throw e;
        }
    }

    /**
     * The store records of partition-bucket {@code pb} from {@code startOffset} to {@code
     * stopOffset}, less fenced ones, in offset order, polled from the store as they are asked for.
     * It waits for the store as long as the store delivers, and fails after the store timeout
     * without progress, naming the table.
     */
    public Iterator<StreamRecord> records(PartitionBucket pb, long startOffset, long stopOffset) {
        if (startOffset >= stopOffset) {
            return Collections.emptyIterator();
        }
        return new StoreRange(pb, startOffset, stopOffset);
    }

    /** A range of one partition-bucket's log, polled batch by batch. */
    private final class StoreRange implements Iterator<StreamRecord> {
        private final PartitionBucket pb;
        private final long stopOffset;
        private final FencedStreamReader reader;
        private Iterator<StreamRecord> batch = Collections.emptyIterator();
        private boolean finished;
        private long next;
        private long skipped;
        private long deadline;

        StoreRange(PartitionBucket pb, long startOffset, long stopOffset) {
            this.pb = pb;
            this.stopOffset = stopOffset;
            this.reader = store.log();
            reader.subscribe(pb, startOffset, stopOffset);
            this.next = startOffset;
            this.skipped = reader.skippedRecords();
            this.deadline = System.currentTimeMillis() + store.timeout().toMillis();
        }

        @Override
        public boolean hasNext() {
            while (!batch.hasNext()) {
                if (finished) {
                    return false;
                }
                poll();
            }
            return true;
        }

        @Override
        public StreamRecord next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            StreamRecord record = batch.next();
            next = record.offset() + 1;
            return record;
        }

        private void poll() {
            try {
                List<StreamRecord> records = reader.poll(POLL_TIMEOUT);
                batch = records.iterator();
                if (reader.finished().contains(pb)) {
                    finished = true;
                    return;
                }
                long now = System.currentTimeMillis();
                if (!records.isEmpty() || reader.skippedRecords() != skipped) {
                    skipped = reader.skippedRecords();
                    // progress (fenced records that were skipped are progress too): a slow store
                    // is waited for as long as it keeps delivering
                    deadline = now + store.timeout().toMillis();
                } else if (now > deadline) {
                    throw store.timedOut(
                            String.format(
                                    "%s holds records up to offset %d, none arrived after offset "
                                            + "%d",
                                    pb, stopOffset, next - 1));
                }
            } catch (RuntimeException e) {
                reader.unsubscribe(pb);
                throw e;
            }
        }
    }

    private StreamStoreException tooManyChanges(PartitionBucket pb) {
        return new StreamStoreException(
                String.format(
                        "A bounded read of table %s holds more than %d uncommitted changes of %s "
                                + "in memory to merge them, the limit of option '%s'. Commit the "
                                + "table more often (a shorter checkpoint interval of the writing "
                                + "job), read it with '%s' = 'true', or raise the option.",
                        table.fullName(),
                        maxBufferedChanges,
                        pb,
                        LakeStreamOptions.READ_MERGE_BUFFER_MAX_RECORDS.key(),
                        LakeStreamOptions.READ_LAKE_ONLY.key()));
    }
}
