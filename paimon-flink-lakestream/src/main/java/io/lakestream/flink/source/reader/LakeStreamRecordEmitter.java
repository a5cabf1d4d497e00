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

import io.lakestream.flink.source.split.LakeStreamSplitState;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.flink.FlinkRowData;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.utils.ProjectedRow;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

/**
 * Emits a record as Flink {@link RowData} with its row kind, projected, and moves its split's
 * progress past it. Records that the filter rejects move the progress without being emitted; the
 * filter is tested on the whole row, before the projection. An append table's lake rows come from
 * Paimon already filtered and, when Paimon projects them, projected.
 */
@Internal
final class LakeStreamRecordEmitter
        implements RecordEmitter<LakeStreamRecord, RowData, LakeStreamSplitState> {

    @Nullable private final int[] projection;
    private final boolean lakeProjected;
    @Nullable private final Predicate lakeFilter;
    @Nullable private final Predicate logFilter;

    LakeStreamRecordEmitter(
            @Nullable int[] projection,
            boolean lakeProjected,
            @Nullable Predicate lakeFilter,
            @Nullable Predicate logFilter) {
        this.projection = projection;
        this.lakeProjected = lakeProjected;
        this.lakeFilter = lakeFilter;
        this.logFilter = logFilter;
    }

    @Override
    public void emitRecord(
            LakeStreamRecord record, SourceOutput<RowData> output, LakeStreamSplitState state) {
        InternalRow row = record.row;
        if (record.fromLake) {
            state.lakeRecordEmitted(record.position);
            if (lakeFilter == null || lakeFilter.test(row)) {
                output.collect(toRowData(row, !lakeProjected));
            }
        } else {
            state.logRecordPassed(record.position);
            if (logFilter == null || logFilter.test(row)) {
                output.collect(toRowData(row, true), record.timestamp);
            }
        }
    }

    private RowData toRowData(InternalRow row, boolean project) {
        if (project && projection != null) {
            ProjectedRow projected = ProjectedRow.from(projection);
            projected.replaceRow(row);
            projected.setRowKind(row.getRowKind());
            return new FlinkRowData(projected);
        }
        return new FlinkRowData(row);
    }
}
