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

package io.lakestream.flink.store;

import io.lakestream.flink.offsets.AbortedRanges;
import io.lakestream.flink.offsets.PartitionBucket;

import org.apache.flink.annotation.Internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link StreamReader} that skips fenced records: the offsets that a failed writer attempt wrote
 * after the checkpoint its successor restored from.
 *
 * <p>Why the fence log is read after the data and not before: a restored writer records its fence
 * before it writes anything new to the partition-bucket. So once a poll has returned records, every
 * fence that covers them was either recorded before the newest of them was written, or will never
 * be recorded before the reader sees them; reading the fence log to its end after each non-empty
 * poll therefore hides every fence that was visible when the records were fetched. What a running
 * read-uncommitted reader can still see are records of the failed attempt it returned before the
 * fence was recorded.
 */
@Internal
public final class FencedStreamReader implements StreamReader {

    private final StreamReader reader;
    private final FenceLog fenceLog;
    private final AbortedRanges fences = new AbortedRanges();
    private long skippedRecords;

    public FencedStreamReader(StreamReader reader, FenceLog fenceLog) {
        this.reader = reader;
        this.fenceLog = fenceLog;
        fences.addAll(fenceLog.readNew());
    }

    @Override
    public void subscribe(PartitionBucket partitionBucket, long startOffset, long stopOffset) {
        reader.subscribe(partitionBucket, startOffset, stopOffset);
    }

    @Override
    public void unsubscribe(PartitionBucket partitionBucket) {
        reader.unsubscribe(partitionBucket);
    }

    @Override
    public List<StreamRecord> poll(Duration timeout) {
        List<StreamRecord> records = reader.poll(timeout);
        if (records.isEmpty()) {
            return records;
        }
        fences.addAll(fenceLog.readNew());
        List<StreamRecord> visible = new ArrayList<>(records.size());
        for (StreamRecord record : records) {
            if (fences.isAborted(record.partitionBucket(), record.offset())) {
                skippedRecords++;
            } else {
                visible.add(record);
            }
        }
        return visible;
    }

    /** The number of fenced records this reader dropped so far. */
    public long skippedRecords() {
        return skippedRecords;
    }

    /**
     * Reads the fence log to its end, so that {@link #fences()} covers every fence recorded before
     * this call. A reader that holds records back (read-committed) calls it before it lets them go:
     * a record it fetched before its fence was recorded is covered then.
     */
    public void refreshFences() {
        fences.addAll(fenceLog.readNew());
    }

    /** The fences this reader knows of. */
    public AbortedRanges fences() {
        return fences;
    }

    @Override
    public List<PartitionBucket> finished() {
        return reader.finished();
    }

    @Override
    public void wakeup() {
        reader.wakeup();
    }

    @Override
    public void close() {
        try {
            reader.close();
        } finally {
            fenceLog.close();
        }
    }
}
