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

import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.flink.source.split.LakeStreamSplitState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Takes the end of each split's lake part out of the records before Flink's {@code
 * SourceReaderBase} sees them, and applies it to the split's state instead. {@code
 * SourceReaderBase} counts every element a split reader hands over in {@code numRecordsIn}
 * (FLIP-33); the end of a lake part is no row, so it must not reach that count. It is applied in
 * the reader's main thread at exactly the point of the split's records where it was read, after the
 * lake part's last row and before its log's first, as the record it replaces was.
 */
@Internal
final class LakePartEnds {

    /** The states of this reader's splits, by split id; touched by the main thread only. */
    private final Map<String, LakeStreamSplitState> states = new HashMap<>();

    /** A split was added to the reader with {@code state}. */
    void register(String splitId, LakeStreamSplitState state) {
        states.put(splitId, state);
    }

    /** Splits the reader finished. */
    void forget(Set<String> splitIds) {
        states.keySet().removeAll(splitIds);
    }

    /** {@code reader}, its records without the ends of lake parts. */
    SplitReader<LakeStreamRecord, LakeStreamSplit> applyingTo(
            SplitReader<LakeStreamRecord, LakeStreamSplit> reader) {
        return new SplitReader<LakeStreamRecord, LakeStreamSplit>() {
            @Override
            public RecordsWithSplitIds<LakeStreamRecord> fetch() throws IOException {
                return new Records(reader.fetch());
            }

            @Override
            public void handleSplitsChanges(SplitsChange<LakeStreamSplit> splitsChanges) {
                reader.handleSplitsChanges(splitsChanges);
            }

            @Override
            public void pauseOrResumeSplits(
                    Collection<LakeStreamSplit> splitsToPause,
                    Collection<LakeStreamSplit> splitsToResume) {
                reader.pauseOrResumeSplits(splitsToPause, splitsToResume);
            }

            @Override
            public void wakeUp() {
                reader.wakeUp();
            }

            @Override
            public void close() throws Exception {
                reader.close();
            }
        };
    }

    /** A fetch's records; the ends of lake parts are applied as the main thread passes them. */
    private final class Records implements RecordsWithSplitIds<LakeStreamRecord> {

        private final RecordsWithSplitIds<LakeStreamRecord> records;
        @Nullable private String splitId;

        private Records(RecordsWithSplitIds<LakeStreamRecord> records) {
            this.records = records;
        }

        @Nullable
        @Override
        public String nextSplit() {
            splitId = records.nextSplit();
            return splitId;
        }

        @Nullable
        @Override
        public LakeStreamRecord nextRecordFromSplit() {
            while (true) {
                LakeStreamRecord record = records.nextRecordFromSplit();
                if (record == null || !record.isLakeFinished()) {
                    return record;
                }
                LakeStreamSplitState state = states.get(splitId);
                if (state != null) {
                    state.lakeRecordEmitted(record.position);
                    state.lakeFinished();
                }
            }
        }

        @Override
        public Set<String> finishedSplits() {
            return records.finishedSplits();
        }

        @Override
        public void recycle() {
            records.recycle();
        }
    }
}
