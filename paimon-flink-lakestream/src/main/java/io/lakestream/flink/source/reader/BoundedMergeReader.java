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

package io.lakestream.flink.source.reader;

import io.lakestream.LakeStreamOptions;
import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.FencedStreamReader;
import io.lakestream.store.StreamRecord;
import io.lakestream.store.StreamStoreException;

import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;

import java.time.Duration;
import java.util.List;

/**
 * Reads the store part of a bounded primary-key split into a {@link BucketMerge} before the split's
 * lake part is read, so that the lake rows can be merged with it as they stream by. The changes it
 * may hold are bounded ({@link LakeStreamOptions#READ_MERGE_BUFFER_MAX_RECORDS}) and so is its wait
 * for the store ({@link LakeStreamOptions#READ_STORE_TIMEOUT}): both fail the read with an error
 * that names the table.
 */
@Internal
final class BoundedMergeReader {

    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

    private final FileStoreTable table;
    private final ReaderStore store;
    private final long maxBufferedChanges;

    BoundedMergeReader(FileStoreTable table, ReaderStore store, long maxBufferedChanges) {
        this.table = table;
        this.store = store;
        this.maxBufferedChanges = maxBufferedChanges;
    }

    /**
     * The merge of {@code split}'s partition-bucket, holding its store records from the split's
     * next log offset to its stop offset, less fenced ones. Merged whether or not the
     * partition-bucket has lake rows: the log alone holds deletes and partial rows that only the
     * merge turns into the table's rows.
     */
    BucketMerge read(LakeStreamSplit split) {
        BucketMerge merge = BucketMerge.of(table);
        if (split.nextLogOffset() >= split.logStopOffset()) {
            return merge;
        }
        FencedStreamReader reader = store.log();
        PartitionBucket pb = split.partitionBucket();
        reader.subscribe(pb, split.nextLogOffset(), split.logStopOffset());
        long next = split.nextLogOffset();
        long skipped = reader.skippedRecords();
        long deadline = System.currentTimeMillis() + store.timeout().toMillis();
        while (true) {
            List<StreamRecord> records = reader.poll(POLL_TIMEOUT);
            for (StreamRecord record : records) {
                merge.addChange(record.row());
                next = record.offset() + 1;
                if (merge.bufferedChanges() > maxBufferedChanges) {
                    reader.unsubscribe(pb);
                    throw tooManyChanges(split);
                }
            }
            if (reader.finished().contains(pb)) {
                return merge;
            }
            long now = System.currentTimeMillis();
            if (!records.isEmpty() || reader.skippedRecords() != skipped) {
                skipped = reader.skippedRecords();
                // progress (fenced records that were skipped are progress too): a slow store is
                // waited for as long as it keeps delivering
                deadline = now + store.timeout().toMillis();
            } else if (now > deadline) {
                reader.unsubscribe(pb);
                throw store.timedOut(
                        String.format(
                                "%s holds records up to offset %d, none arrived after offset %d",
                                pb, split.logStopOffset(), next - 1));
            }
        }
    }

    private StreamStoreException tooManyChanges(LakeStreamSplit split) {
        return new StreamStoreException(
                String.format(
                        "A bounded read of table %s holds more than %d uncommitted changes of %s "
                                + "in memory to merge them, the limit of option '%s'. Commit the "
                                + "table more often (a shorter checkpoint interval of the writing "
                                + "job), read it with '%s' = 'true', or raise the option.",
                        table.fullName(),
                        maxBufferedChanges,
                        split.partitionBucket(),
                        LakeStreamOptions.READ_MERGE_BUFFER_MAX_RECORDS.key(),
                        LakeStreamOptions.READ_LAKE_ONLY.key()));
    }
}
