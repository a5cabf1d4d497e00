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

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.RowKind;

import org.apache.fluss.memory.MemorySegment;
import org.apache.fluss.row.BinaryRow.BinaryRowFormat;
import org.apache.fluss.row.BinaryWriter;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.indexed.IndexedRow;
import org.apache.fluss.row.indexed.IndexedRowWriter;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypeChecks;
import org.apache.fluss.types.RowType;

/**
 * Encodes a Paimon row into a Fluss {@link IndexedRow} of the stream table, the format of its log,
 * writing each column with the primitive accessor of its type, with the row kind (primary-key
 * tables) and the id of the writer's Paimon schema in their columns.
 *
 * <p>Fluss's own encoder reads every column through a field getter that returns an {@code Object},
 * which boxes every number of every record. Here the common types (booleans, integers, floating
 * point, dates, times, compact decimals and timestamps, strings) go straight from Paimon's accessor
 * into the writer, byte for byte what Fluss's encoder writes for them; the other types take Fluss's
 * own getter and writer, through {@link PaimonRowAsFlussRow}. The returned row and its buffer are
 * reused: Fluss's writer copies a record into its batch before its send returns.
 *
 * <p>The row returned carries the record's bytes only: it has no fields (Fluss's {@code IndexedRow}
 * of no column types), because {@code IndexedRow#pointTo} decodes the length of every column for
 * its getters, an array and a pass over the columns per record, and Fluss's writer of an indexed
 * log reads no getter: it takes the size and copies the bytes ({@code WriteRecord#forIndexedAppend}
 * and {@code IndexedLogRecord#writeTo} in Fluss 0.9.1; {@code FlussStreamStoreITCase} writes and
 * reads back through a real cluster). A reader of the fields makes a full row of the bytes ({@link
 * #readable}).
 *
 * <p>A string that fills its own byte array (as every string of the sink's rows does: Paimon's
 * wrapper of a Flink row copies each string into an array of its own) is written from that array
 * without a Fluss string object around it, which would cost three objects per string column.
 */
final class PaimonRowIndexedEncoder {

    private final IndexedRowWriter writer;
    private final DataType[] types;

    /** The record's bytes as Fluss's writer takes them: a row of no fields, see above. */
    private final IndexedRow row;

    private final ColumnWriter[] columns;
    private final PaimonRowAsFlussRow flussView;
    private final long schemaId;

    /**
     * The writer's buffer as the segment array the returned row points to; made again only when the
     * writer grows its buffer, rather than once per record by {@code IndexedRow.pointTo}.
     */
    private MemorySegment[] rowSegments = new MemorySegment[1];

    PaimonRowIndexedEncoder(FlussColumnMapping mapping, RowType flussRowType) {
        DataType[] types = flussRowType.getChildren().toArray(new DataType[0]);
        this.writer = new IndexedRowWriter(types);
        this.types = types;
        this.row = new IndexedRow(new DataType[0]);
        this.flussView = new PaimonRowAsFlussRow(mapping);
        this.schemaId = mapping.spec().schemaId();
        this.columns = new ColumnWriter[types.length];
        for (int pos = 0; pos < types.length; pos++) {
            columns[pos] = columnWriter(pos, mapping.paimonPosition(pos), types[pos]);
        }
    }

    /**
     * Encodes {@code paimonRow} with row kind {@code kind} (for the row-kind column of a
     * primary-key table); the row returned is valid until the next call and carries the bytes only
     * (no field getters: {@link #readable}).
     */
    IndexedRow encode(org.apache.paimon.data.InternalRow paimonRow, RowKind kind) {
        flussView.replace(paimonRow, kind);
        writer.reset();
        byte kindByte = kind.toByteValue();
        for (int pos = 0; pos < columns.length; pos++) {
            columns[pos].write(writer, pos, paimonRow, kindByte);
        }
        MemorySegment segment = writer.segment();
        if (rowSegments[0] != segment) {
            rowSegments = new MemorySegment[] {segment};
        }
        row.pointTo(rowSegments, 0, writer.position());
        return row;
    }

    /** A copy of an encoded row with the stream table's fields, for a reader of its fields. */
    IndexedRow readable(IndexedRow encoded) {
        IndexedRow full = new IndexedRow(types);
        encoded.copy(full);
        return full;
    }

    /** Writes one Fluss column of a record. */
    private interface ColumnWriter {
        void write(
                IndexedRowWriter writer,
                int pos,
                org.apache.paimon.data.InternalRow row,
                byte rowKind);
    }

    private ColumnWriter columnWriter(int pos, int paimonPos, DataType type) {
        if (paimonPos == FlussColumnMapping.ROW_KIND) {
            return (w, p, r, kind) -> w.writeByte(kind);
        }
        if (paimonPos == FlussColumnMapping.SCHEMA_ID) {
            if (schemaId == StreamTableSpec.UNKNOWN_SCHEMA_ID) {
                return (w, p, r, kind) -> w.setNullAt(p);
            }
            return (w, p, r, kind) -> w.writeLong(schemaId);
        }
        if (paimonPos == FlussColumnMapping.ABSENT) {
            // a column added after this job was planned: null, as Paimon writes it
            return (w, p, r, kind) -> w.setNullAt(p);
        }
        ColumnWriter value = valueWriter(pos, paimonPos, type);
        return (w, p, r, kind) -> {
            if (r.isNullAt(paimonPos)) {
                w.setNullAt(p);
            } else {
                value.write(w, p, r, kind);
            }
        };
    }

    /** The writer of a non-null value; mirrors Fluss's value writer of the indexed format. */
    private ColumnWriter valueWriter(int pos, int paimonPos, DataType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return (w, p, r, kind) -> w.writeBoolean(r.getBoolean(paimonPos));
            case TINYINT:
                return (w, p, r, kind) -> w.writeByte(r.getByte(paimonPos));
            case SMALLINT:
                return (w, p, r, kind) -> w.writeShort(r.getShort(paimonPos));
            case INTEGER:
            case DATE:
            case TIME_WITHOUT_TIME_ZONE:
                return (w, p, r, kind) -> w.writeInt(r.getInt(paimonPos));
            case BIGINT:
                return (w, p, r, kind) -> w.writeLong(r.getLong(paimonPos));
            case FLOAT:
                return (w, p, r, kind) -> w.writeFloat(r.getFloat(paimonPos));
            case DOUBLE:
                return (w, p, r, kind) -> w.writeDouble(r.getDouble(paimonPos));
            case STRING:
                return (w, p, r, kind) -> writeString(w, r.getString(paimonPos));
            case DECIMAL:
                int precision = DataTypeChecks.getPrecision(type);
                int scale = DataTypeChecks.getScale(type);
                if (org.apache.fluss.row.Decimal.isCompact(precision)) {
                    return (w, p, r, kind) ->
                            w.writeLong(r.getDecimal(paimonPos, precision, scale).toUnscaledLong());
                }
                return fallback(pos, type);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                int tsPrecision = DataTypeChecks.getPrecision(type);
                if (tsPrecision <= 3) {
                    // compact: epoch milliseconds only, as both Fluss timestamp writers do
                    return (w, p, r, kind) ->
                            w.writeLong(r.getTimestamp(paimonPos, tsPrecision).getMillisecond());
                }
                return (w, p, r, kind) -> {
                    Timestamp ts = r.getTimestamp(paimonPos, tsPrecision);
                    w.writeLong(ts.getMillisecond());
                    w.writeInt(ts.getNanoOfMillisecond());
                };
            default:
                return fallback(pos, type);
        }
    }

    /**
     * Writes a string as Fluss's {@code writeString} does: its length into the row's list of
     * variable lengths, then its bytes. {@code writeBytes} writes exactly that for an array that
     * holds the string's bytes and nothing else.
     */
    private static void writeString(IndexedRowWriter w, BinaryString string) {
        org.apache.paimon.memory.MemorySegment[] segments = string.getSegments();
        if (segments.length == 1 && !segments[0].isOffHeap() && string.getOffset() == 0) {
            byte[] bytes = segments[0].getHeapMemory();
            if (bytes.length == string.getSizeInBytes()) {
                w.writeBytes(bytes);
                return;
            }
        }
        w.writeString(PaimonRowAsFlussRow.toFluss(string));
    }

    /** Fluss's own getter and writer: for the types whose encoding is not spelled out above. */
    private ColumnWriter fallback(int pos, DataType type) {
        InternalRow.FieldGetter getter = InternalRow.createFieldGetter(type, pos);
        BinaryWriter.ValueWriter value =
                BinaryWriter.createValueWriter(type.copy(false), BinaryRowFormat.INDEXED);
        return (w, p, r, kind) -> value.writeValue(w, p, getter.getFieldOrNull(flussView));
    }
}
