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

import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stream record is read as Paimon reads a data file: a field whose type in the record's writer
 * schema differs from the reader's is cast with Paimon's cast (a value written under {@code STRING}
 * read as {@code VARCHAR(5)} is cut, as Paimon cuts it), a field of the same type is read as
 * written (never cut or padded), and a record without a schema id, or whose schema cannot be read,
 * is read by its column's type.
 */
class FlussRowToPaimonRowTest {

    /** Schema 0: v INT, s VARCHAR(5); schema 1: s widened to STRING; schema 2: v widened too. */
    private static final Map<Long, RowType> SCHEMAS =
            Map.of(
                    0L, rowType(DataTypes.INT(), DataTypes.VARCHAR(5)),
                    1L, rowType(DataTypes.INT(), DataTypes.STRING()),
                    2L, rowType(DataTypes.BIGINT(), DataTypes.STRING()));

    /** The stream table's columns, created under schema 0, with the schema-id column. */
    private static final org.apache.fluss.types.RowType STREAM_ROW =
            org.apache.fluss.types.RowType.of(
                    new org.apache.fluss.types.DataType[] {
                        org.apache.fluss.types.DataTypes.INT().copy(false),
                        org.apache.fluss.types.DataTypes.INT(),
                        org.apache.fluss.types.DataTypes.STRING(),
                        org.apache.fluss.types.DataTypes.BIGINT()
                    },
                    new String[] {"id", "v", "s", FlussStreamTableLayout.SCHEMA_ID_COLUMN});

    private static final String LONG = "longer than five";

    @Test
    void aValueWrittenUnderAWiderTypeIsCutAsPaimonCutsIt() {
        InternalRow read = writeAndRead(1, 0, LONG);
        assertThat(read.getString(2)).isEqualTo(BinaryString.fromString("longe"));
    }

    @Test
    void aValueWrittenUnderTheReadersTypeIsReadAsWritten() {
        // Paimon does not enforce a VARCHAR's length on write and returns the value whole
        assertThat(writeAndRead(0, 0, LONG).getString(2).toString()).isEqualTo(LONG);
        assertThat(writeAndRead(0, 1, LONG).getString(2).toString()).isEqualTo(LONG);
        assertThat(writeAndRead(1, 1, LONG).getString(2).toString()).isEqualTo(LONG);
    }

    @Test
    void aRecordWithoutASchemaIdIsReadByItsColumnsType() {
        InternalRow read = writeAndRead(StreamTableSpec.UNKNOWN_SCHEMA_ID, 0, LONG);
        assertThat(read.getString(2).toString()).isEqualTo(LONG);
        // the column of v holds INT; the reader's BIGINT is read with Paimon's cast either way
        InternalRow widened = writeAndRead(StreamTableSpec.UNKNOWN_SCHEMA_ID, 2, LONG);
        assertThat(widened.getLong(1)).isEqualTo(7L);
        assertThat(writeAndRead(0, 2, LONG).getLong(1)).isEqualTo(7L);
    }

    @Test
    void aRecordOfASchemaTheHistoryLacksIsReadAsWritten() {
        StreamTableSpec writer = spec(1, null);
        StreamTableSpec reader = spec(0, id -> Optional.empty());
        InternalRow read = roundTrip(writer, reader, LONG);
        assertThat(read.getString(2).toString()).isEqualTo(LONG);
    }

    @Test
    void aReaderWithoutAHistoryReadsEveryRecordAsWritten() {
        InternalRow read = roundTrip(spec(1, null), spec(0, null), LONG);
        assertThat(read.getString(2).toString()).isEqualTo(LONG);
    }

    private static InternalRow writeAndRead(long writeSchema, long readSchema, String s) {
        return roundTrip(
                spec(writeSchema, null), spec(readSchema, id -> Optional.of(SCHEMAS.get(id))), s);
    }

    private static InternalRow roundTrip(StreamTableSpec writer, StreamTableSpec reader, String s) {
        PaimonRowIndexedEncoder encoder =
                new PaimonRowIndexedEncoder(new FlussColumnMapping(writer, STREAM_ROW), STREAM_ROW);
        FlussRowToPaimonRow decoder =
                new FlussRowToPaimonRow(new FlussColumnMapping(reader, STREAM_ROW));
        GenericRow row = GenericRow.of(1, 7, BinaryString.fromString(s));
        if (writer.rowType().getTypeAt(1).equals(DataTypes.BIGINT())) {
            row = GenericRow.of(1, 7L, BinaryString.fromString(s));
        }
        return decoder.convert(encoder.readable(encoder.encode(row, RowKind.INSERT)));
    }

    private static StreamTableSpec spec(long schemaId, io.lakestream.store.SchemaHistory history) {
        RowType rowType =
                SCHEMAS.get(schemaId == StreamTableSpec.UNKNOWN_SCHEMA_ID ? 0L : schemaId);
        return new StreamTableSpec(
                Identifier.create("db", "t"),
                rowType,
                Collections.emptyList(),
                Collections.singletonList("id"),
                Collections.emptyList(),
                1,
                null,
                schemaId,
                history);
    }

    private static RowType rowType(DataType v, DataType s) {
        return new RowType(
                Arrays.asList(
                        new DataField(0, "id", DataTypes.INT().notNull()),
                        new DataField(1, "v", v),
                        new DataField(2, "s", s)));
    }
}
