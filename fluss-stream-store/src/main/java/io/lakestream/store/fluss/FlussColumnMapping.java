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

package io.lakestream.store.fluss;

import io.lakestream.flink.store.StreamStoreException;
import io.lakestream.flink.store.StreamTableSpec;

import org.apache.fluss.types.DataType;
import org.apache.fluss.types.RowType;

import java.util.List;
import java.util.stream.IntStream;

/**
 * Where each column of a Paimon table sits in a Fluss row of its stream table. Columns are matched
 * by name, not position, because the two orders part once columns are added: Fluss appends every
 * added column at the end, after the row-kind column of a primary-key table, while Paimon may add
 * one anywhere. A Fluss column that the Paimon schema of a job does not know (one added after the
 * job was planned) is written as null and skipped on read, as Paimon's own readers and writers
 * treat columns added after they were planned.
 */
final class FlussColumnMapping {

    /** In {@link #paimonPositions}: the Fluss column holds the row kind. */
    static final int ROW_KIND = -2;

    /** In {@link #paimonPositions}: the Fluss column is not a column of the Paimon schema. */
    static final int ABSENT = -1;

    private final int[] flussPositions;
    private final int[] paimonPositions;
    private final int rowKindPosition;
    private final List<DataType> paimonColumnTypes;

    /**
     * @throws StreamStoreException when a Paimon column is missing from the Fluss row or has
     *     another type there
     */
    FlussColumnMapping(StreamTableSpec spec, RowType flussRowType) {
        this.paimonColumnTypes = FlussTypes.toFluss(spec);
        List<String> paimonNames = spec.fieldNames();
        List<String> flussNames = flussRowType.getFieldNames();
        this.flussPositions = new int[paimonNames.size()];
        for (int i = 0; i < paimonNames.size(); i++) {
            int position = flussNames.indexOf(paimonNames.get(i));
            if (position < 0
                    || !flussRowType.getTypeAt(position).equals(paimonColumnTypes.get(i))) {
                throw new StreamStoreException(
                        String.format(
                                "The stream table of Paimon table %s %s column '%s' of type %s.",
                                spec.identifier().getFullName(),
                                position < 0 ? "lacks" : "has another type for",
                                paimonNames.get(i),
                                paimonColumnTypes.get(i)));
            }
            flussPositions[i] = position;
        }
        this.paimonPositions = new int[flussNames.size()];
        for (int position = 0; position < flussNames.size(); position++) {
            String name = flussNames.get(position);
            paimonPositions[position] =
                    spec.hasPrimaryKey() && FlussStreamTableLayout.ROW_KIND_COLUMN.equals(name)
                            ? ROW_KIND
                            : paimonNames.indexOf(name);
        }
        this.rowKindPosition =
                spec.hasPrimaryKey()
                        ? flussNames.indexOf(FlussStreamTableLayout.ROW_KIND_COLUMN)
                        : ABSENT;
        if (spec.hasPrimaryKey() && rowKindPosition < 0) {
            throw new StreamStoreException(
                    String.format(
                            "The stream table of primary-key table %s lacks the column '%s'.",
                            spec.identifier().getFullName(),
                            FlussStreamTableLayout.ROW_KIND_COLUMN));
        }
    }

    private FlussColumnMapping(List<DataType> types) {
        this.paimonColumnTypes = types;
        this.flussPositions = IntStream.range(0, types.size()).toArray();
        this.paimonPositions = flussPositions;
        this.rowKindPosition = ABSENT;
    }

    /** The mapping of a row whose Paimon and Fluss columns are the same, in the same order. */
    static FlussColumnMapping identity(List<DataType> types) {
        return new FlussColumnMapping(types);
    }

    /** The number of columns of a Fluss row. */
    int flussFieldCount() {
        return paimonPositions.length;
    }

    /** The Fluss position of Paimon column {@code paimonPosition}. */
    int flussPosition(int paimonPosition) {
        return flussPositions[paimonPosition];
    }

    /**
     * The Paimon position of Fluss column {@code flussPosition}, or {@link #ROW_KIND}, or {@link
     * #ABSENT}.
     */
    int paimonPosition(int flussPosition) {
        return paimonPositions[flussPosition];
    }

    /** The Fluss position of the row-kind column; {@link #ABSENT} for append tables. */
    int rowKindPosition() {
        return rowKindPosition;
    }

    boolean hasRowKind() {
        return rowKindPosition != ABSENT;
    }

    /** The Fluss types of the Paimon columns, in Paimon's order. */
    List<DataType> paimonColumnTypes() {
        return paimonColumnTypes;
    }
}
