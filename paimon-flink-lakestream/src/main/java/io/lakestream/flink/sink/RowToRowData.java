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

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.conversion.RowRowConverter;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;

/**
 * Converts external {@link Row}s of a table's columns into the internal {@link RowData} the sink
 * writes, with Flink's own converter for the table's data type; the row kind is kept.
 */
@Internal
final class RowToRowData extends RichMapFunction<Row, RowData> {

    private static final long serialVersionUID = 1L;

    private final DataType rowType;
    private transient RowRowConverter converter;

    RowToRowData(DataType rowType) {
        this.rowType = rowType;
    }

    @Override
    public void open(OpenContext openContext) {
        converter = RowRowConverter.create(rowType);
        converter.open(getRuntimeContext().getUserCodeClassLoader());
    }

    @Override
    public RowData map(Row row) {
        return converter.toInternal(row);
    }
}
