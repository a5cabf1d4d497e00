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

package io.lakestream.store.memory;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A memory log keeps every record's row, kind, time and type across its chunks, counts the bytes
 * the budget counts, and frees exactly the committed records no reader pins.
 */
class MemoryLogTest {

    private static final RowType TYPE =
            RowType.of(
                    new org.apache.paimon.types.DataType[] {DataTypes.INT(), DataTypes.STRING()},
                    new String[] {"id", "name"});

    private final InternalRowSerializer serializer = new InternalRowSerializer(TYPE);

    /** The row of record {@code i}: names of different lengths, so rows differ in size. */
    private BinaryRow row(int i) {
        // the serializer reuses its row: the log must copy it
        return serializer.toBinaryRow(
                GenericRow.of(i, BinaryString.fromString("name-" + "x".repeat(i % 37))));
    }

    private static RowKind kind(int i) {
        return i % 3 == 0 ? RowKind.UPDATE_AFTER : RowKind.INSERT;
    }

    private static long budgetBytes(BinaryRow row) {
        return row.getSizeInBytes() + MemoryRecord.OVERHEAD_BYTES;
    }

    @Test
    void recordsAcrossChunksReadBackAsWritten() {
        MemoryLog log = new MemoryLog();
        log.continueAt(100);
        int records = MemoryLog.CHUNK_RECORDS * 2 + 17;
        List<MemoryRecord> early = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            assertThat(log.append(kind(i), row(i), TYPE, 1_000 + i)).isEqualTo(100 + i);
            if (i < 3) {
                // read while the chunk's arrays still grow: the row must stay as it was
                early.add(log.get(100 + i));
            }
        }
        assertThat(log.start()).isEqualTo(100);
        assertThat(log.end()).isEqualTo(100 + records);
        for (int i = 0; i < records; i++) {
            MemoryRecord record = log.get(100 + i);
            assertThat(record.row.getInt(0)).isEqualTo(i);
            assertThat(record.row.getString(1).toString()).isEqualTo("name-" + "x".repeat(i % 37));
            assertThat(record.kind).isEqualTo(kind(i));
            assertThat(record.timestamp).isEqualTo(1_000 + i);
            assertThat(record.writtenType).isSameAs(TYPE);
        }
        for (int i = 0; i < early.size(); i++) {
            assertThat(early.get(i).row.getInt(0)).isEqualTo(i);
            assertThat(early.get(i).row.getString(1).toString())
                    .isEqualTo("name-" + "x".repeat(i % 37));
        }
    }

    @Test
    void evictionFreesTheCommittedRecordsNoReaderPinsAndCountsTheirBytes() {
        MemoryLog log = new MemoryLog();
        int records = MemoryLog.CHUNK_RECORDS * 3;
        long[] bytes = new long[records];
        for (int i = 0; i < records; i++) {
            BinaryRow row = row(i);
            bytes[i] = budgetBytes(row);
            log.append(kind(i), row, TYPE, i);
        }
        Object reader = new Object();
        log.pin(reader, 10);
        log.commitUpTo(MemoryLog.CHUNK_RECORDS + 5);
        assertThat(log.evict()).isEqualTo(sum(bytes, 0, 10));
        assertThat(log.start()).isEqualTo(10);

        log.unpin(reader);
        assertThat(log.evict()).isEqualTo(sum(bytes, 10, MemoryLog.CHUNK_RECORDS + 5));
        assertThat(log.start()).isEqualTo(MemoryLog.CHUNK_RECORDS + 5);
        assertThat(log.evict()).as("nothing more is committed").isZero();
        // the records left read as written, in the chunk that was partly freed and after it
        for (int i = MemoryLog.CHUNK_RECORDS + 5; i < records; i++) {
            assertThat(log.get(i).row.getInt(0)).isEqualTo(i);
        }

        log.commitUpTo(records);
        assertThat(log.evict()).isEqualTo(sum(bytes, MemoryLog.CHUNK_RECORDS + 5, records));
        assertThat(log.start()).isEqualTo(records);
        log.append(RowKind.INSERT, row(records), TYPE, records);
        assertThat(log.get(records).row.getInt(0)).isEqualTo(records);
    }

    @Test
    void droppingCountsTheBytesOfTheRecordsLeft() {
        MemoryLog log = new MemoryLog();
        long[] bytes = new long[50];
        for (int i = 0; i < bytes.length; i++) {
            BinaryRow row = row(i);
            bytes[i] = budgetBytes(row);
            log.append(RowKind.INSERT, row, TYPE, i);
        }
        log.commitUpTo(20);
        assertThat(log.evict()).isEqualTo(sum(bytes, 0, 20));
        assertThat(log.drop()).isEqualTo(sum(bytes, 20, 50));
        assertThat(log.isDropped()).isTrue();
        assertThat(log.start()).isEqualTo(log.end()).isEqualTo(50);
    }

    private static long sum(long[] bytes, int from, int to) {
        long sum = 0;
        for (int i = from; i < to; i++) {
            sum += bytes[i];
        }
        return sum;
    }
}
