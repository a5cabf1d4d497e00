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

package io.lakestream.flink.sink;

import io.lakestream.flink.testutils.SharedStreamStore;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.protocol.SealedSegment;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.RowKind;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.lakestream.flink.sink.LakeStreamSinkITCase.storeWriterChaining;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link StoreWriteOperator} driven by Flink's operator harness, on a real store and a local Paimon
 * table: rows pass on unchanged, what Paimon's writer would drop is not stored, and each barrier
 * and the end of the input send a sealed segment to the committer's side output.
 */
@ExtendWith(SharedStreamStore.class)
class StoreWriteOperatorTest {

    @TempDir static java.nio.file.Path warehouse;

    private static SinkTestTables tables;

    @BeforeAll
    static void open() throws Exception {
        tables = new SinkTestTables(warehouse, "store_write_operator");
    }

    @AfterAll
    static void close() throws Exception {
        tables.close();
    }

    @Test
    void rowsPassOnAndEachBarrierSendsTheSegmentSealedBeforeIt() throws Exception {
        FileStoreTable table = tables.create("barriers", true, 2, Map.of("ignore-delete", "true"));
        try (OneInputStreamOperatorTestHarness<InternalRow, InternalRow> harness = harness(table)) {
            harness.processElement(row(RowKind.INSERT, 1, "d0"), 1);
            harness.processElement(row(RowKind.INSERT, 2, "d1"), 2);
            // Paimon's writer drops it ('ignore-delete'): passed on, not stored
            harness.processElement(row(RowKind.DELETE, 1, "d0"), 3);
            harness.prepareSnapshotPreBarrier(1);
            harness.processElement(row(RowKind.INSERT, 3, "d0"), 4);
            harness.prepareSnapshotPreBarrier(2);
            // nothing written since the last barrier: no segment
            harness.prepareSnapshotPreBarrier(3);

            assertThat(harness.extractOutputValues()).hasSize(4);
            List<Committable> sealed = sealed(harness);
            assertThat(sealed).extracting(Committable::checkpointId).containsExactly(1L, 2L);
            SealedSegment first = (SealedSegment) sealed.get(0).wrappedCommittable();
            SealedSegment second = (SealedSegment) sealed.get(1).wrappedCommittable();
            assertThat(records(first)).as("the two inserts, not the delete").isEqualTo(2);
            assertThat(records(second)).isEqualTo(1);
        }
    }

    @Test
    void theEndOfTheInputSendsASegmentEvenWhenEmpty() throws Exception {
        FileStoreTable table = tables.create("end_of_input", false);
        try (OneInputStreamOperatorTestHarness<InternalRow, InternalRow> harness = harness(table)) {
            harness.endInput();
            // the final checkpoint after the end of the input sends nothing more
            harness.prepareSnapshotPreBarrier(1);

            List<Committable> sealed = sealed(harness);
            assertThat(sealed)
                    .extracting(Committable::checkpointId)
                    .containsExactly(BatchWriteBuilder.COMMIT_IDENTIFIER);
            assertThat(((SealedSegment) sealed.get(0).wrappedCommittable()).endOffsets().asMap())
                    .isEmpty();
        }
    }

    @Test
    void aRetractionIntoAnAppendTableFailsBeforeTheStoreGetsIt() throws Exception {
        FileStoreTable table = tables.create("append_retraction", false);
        try (OneInputStreamOperatorTestHarness<InternalRow, InternalRow> harness = harness(table)) {
            assertThatThrownBy(() -> harness.processElement(row(RowKind.DELETE, 1, "d0"), 1))
                    .hasMessageContaining(
                            "Append only writer can not accept row with RowKind DELETE");
            harness.prepareSnapshotPreBarrier(1);
            assertThat(sealed(harness)).isEmpty();
        }
    }

    private static OneInputStreamOperatorTestHarness<InternalRow, InternalRow> harness(
            FileStoreTable table) throws Exception {
        StreamTable streamTable =
                tables.store.get(
                        StreamTableSpec.of(Identifier.fromString(table.fullName()), table));
        Map<String, String> options = SharedStreamStore.lakeStreamOptions();
        options.putAll(storeWriterChaining(false));
        OneInputStreamOperatorTestHarness<InternalRow, InternalRow> harness =
                new OneInputStreamOperatorTestHarness<>(
                        new StoreWriteOperator(table, streamTable, options, "test-user"));
        harness.open();
        return harness;
    }

    private static List<Committable> sealed(
            OneInputStreamOperatorTestHarness<InternalRow, InternalRow> harness) {
        List<Committable> sealed = new ArrayList<>();
        // the harness has no queue for a side output nothing was sent to
        java.util.Collection<StreamRecord<Committable>> sent =
                harness.getSideOutput(StoreWriteOperator.SEALED_SEGMENTS);
        if (sent != null) {
            for (StreamRecord<Committable> record : sent) {
                sealed.add(record.getValue());
            }
        }
        return sealed;
    }

    private static long records(SealedSegment segment) {
        long records = 0;
        for (Map.Entry<PartitionBucket, Long> end : segment.endOffsets().asMap().entrySet()) {
            records += end.getValue() - segment.startOffsets().offsetOr(end.getKey(), 0L);
        }
        return records;
    }

    private static InternalRow row(RowKind kind, int id, String dt) {
        return GenericRow.ofKind(
                kind, id, BinaryString.fromString("payload-" + id), BinaryString.fromString(dt));
    }
}
