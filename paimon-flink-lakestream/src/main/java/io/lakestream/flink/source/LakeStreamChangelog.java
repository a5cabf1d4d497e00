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

package io.lakestream.flink.source;

import org.apache.paimon.flink.FlinkRowWrapper;
import org.apache.paimon.flink.LogicalTypeConversion;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;

/**
 * The rows of a {@link LakeStreamSource} as the table's changelog. For a bounded read, or an append
 * table, that is the source's output as it is. For an unbounded read of a primary-key table each
 * change is merged into its key's current row with the table's merge engine, and the stream carries
 * {@code +I}, {@code -U}/{@code +U} and {@code -D} rows: a full changelog that Flink SQL and
 * downstream upsert sinks take as it is, for every merge engine. The source's filter conjuncts on
 * non-key columns are tested on the merged changelog rows, one row at a time.
 *
 * <pre>{@code
 * DataStream<RowData> changelog = LakeStreamChangelog.of(env, source, "orders");
 * }</pre>
 */
@PublicEvolving
public final class LakeStreamChangelog {

    private LakeStreamChangelog() {}

    public static DataStream<RowData> of(
            StreamExecutionEnvironment env, LakeStreamSource source, String name) {
        FileStoreTable table = source.table();
        if (source.getBoundedness() == Boundedness.BOUNDED || table.primaryKeys().isEmpty()) {
            return env.fromSource(source, WatermarkStrategy.noWatermarks(), name);
        }
        // the merge needs whole rows; the filter and the projection follow it
        LakeStreamSource whole = source.withoutProjection();
        DataStream<RowData> changelog =
                env.fromSource(whole, WatermarkStrategy.noWatermarks(), name)
                        .keyBy(ChangelogMergeFunction.keySelector(table))
                        .process(new ChangelogMergeFunction(table))
                        .returns(whole.getProducedType())
                        .name(name + " changelog");
        Predicate afterMerge = source.readContext().readFilter().afterMerge();
        if (afterMerge != null) {
            // the source tested the partition and key conjuncts; the others hold for a merged row
            // only, so each changelog row is tested on its own, as Flink's planner filters one
            changelog =
                    changelog
                            .filter(row -> afterMerge.test(new FlinkRowWrapper(row)))
                            .name(name + " filter");
        }
        int[] projection = source.readContext().projection();
        if (projection == null) {
            return changelog;
        }
        org.apache.flink.table.types.logical.RowType fullType =
                LogicalTypeConversion.toLogicalType(table.rowType());
        RowData.FieldGetter[] getters = new RowData.FieldGetter[projection.length];
        for (int i = 0; i < projection.length; i++) {
            getters[i] =
                    RowData.createFieldGetter(fullType.getTypeAt(projection[i]), projection[i]);
        }
        return changelog
                .map(
                        row -> {
                            GenericRowData projected = new GenericRowData(getters.length);
                            projected.setRowKind(row.getRowKind());
                            for (int i = 0; i < getters.length; i++) {
                                projected.setField(i, getters[i].getFieldOrNull(row));
                            }
                            return (RowData) projected;
                        })
                .returns(
                        InternalTypeInfo.of(
                                LogicalTypeConversion.toLogicalType(source.producedRowType())))
                .name(name + " projection");
    }
}
