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

import org.apache.paimon.data.Timestamp;
import org.apache.paimon.memory.MemorySegment;
import org.apache.paimon.types.RowKind;

import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.Decimal;
import org.apache.fluss.row.InternalArray;
import org.apache.fluss.row.InternalMap;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;

/**
 * Shows a Paimon row to the Fluss writer as a Fluss row of the stream table, without copying it:
 * each Fluss column reads the Paimon column of the same name, the row-kind column of a primary-key
 * table reads the row kind, the schema-id column the id of the writer's Paimon schema, and a column
 * the Paimon schema lacks (added after the writing job was planned) reads null. Written here
 * because the adapter of Fluss's Paimon integration maps columns by position and has no row-kind
 * column. The Fluss writer encodes the row before {@code append} returns, so one instance is
 * reused.
 */
final class PaimonRowAsFlussRow implements InternalRow {

    private final FlussColumnMapping mapping;
    private org.apache.paimon.data.InternalRow row;
    private byte rowKind;

    PaimonRowAsFlussRow(FlussColumnMapping mapping) {
        this.mapping = mapping;
    }

    /**
     * Shows {@code row} with the row kind {@code kind}, not the row's own: the kind Paimon wrote
     * may come from a {@code 'rowkind.field'} column rather than from the row.
     */
    PaimonRowAsFlussRow replace(org.apache.paimon.data.InternalRow row, RowKind kind) {
        this.row = row;
        this.rowKind = kind.toByteValue();
        return this;
    }

    @Override
    public int getFieldCount() {
        return mapping.flussFieldCount();
    }

    @Override
    public boolean isNullAt(int pos) {
        int paimonPos = mapping.paimonPosition(pos);
        if (paimonPos == FlussColumnMapping.ROW_KIND) {
            return false;
        }
        if (paimonPos == FlussColumnMapping.SCHEMA_ID) {
            return mapping.spec().schemaId() == StreamTableSpec.UNKNOWN_SCHEMA_ID;
        }
        return paimonPos == FlussColumnMapping.ABSENT || row.isNullAt(paimonPos);
    }

    @Override
    public boolean getBoolean(int pos) {
        return row.getBoolean(mapping.paimonPosition(pos));
    }

    @Override
    public byte getByte(int pos) {
        int paimonPos = mapping.paimonPosition(pos);
        return paimonPos == FlussColumnMapping.ROW_KIND ? rowKind : row.getByte(paimonPos);
    }

    @Override
    public short getShort(int pos) {
        return row.getShort(mapping.paimonPosition(pos));
    }

    @Override
    public int getInt(int pos) {
        return row.getInt(mapping.paimonPosition(pos));
    }

    @Override
    public long getLong(int pos) {
        int paimonPos = mapping.paimonPosition(pos);
        return paimonPos == FlussColumnMapping.SCHEMA_ID
                ? mapping.spec().schemaId()
                : row.getLong(paimonPos);
    }

    @Override
    public float getFloat(int pos) {
        return row.getFloat(mapping.paimonPosition(pos));
    }

    @Override
    public double getDouble(int pos) {
        return row.getDouble(mapping.paimonPosition(pos));
    }

    @Override
    public BinaryString getChar(int pos, int length) {
        return getString(pos);
    }

    @Override
    public BinaryString getString(int pos) {
        return toFluss(row.getString(mapping.paimonPosition(pos)));
    }

    /** {@code string} as a Fluss string that Fluss's writer copies at once. */
    static BinaryString toFluss(org.apache.paimon.data.BinaryString string) {
        MemorySegment[] segments = string.getSegments();
        // the writer copies the bytes into its batch before append returns: a string in one heap
        // segment is shown in place rather than copied once more
        if (segments.length == 1 && !segments[0].isOffHeap()) {
            return BinaryString.fromBytes(
                    segments[0].getHeapMemory(), string.getOffset(), string.getSizeInBytes());
        }
        return BinaryString.fromBytes(string.toBytes());
    }

    @Override
    public Decimal getDecimal(int pos, int precision, int scale) {
        org.apache.paimon.data.Decimal decimal =
                row.getDecimal(mapping.paimonPosition(pos), precision, scale);
        return decimal.isCompact()
                ? Decimal.fromUnscaledLong(decimal.toUnscaledLong(), precision, scale)
                : Decimal.fromBigDecimal(decimal.toBigDecimal(), precision, scale);
    }

    @Override
    public TimestampNtz getTimestampNtz(int pos, int precision) {
        Timestamp ts = row.getTimestamp(mapping.paimonPosition(pos), precision);
        return TimestampNtz.fromMillis(ts.getMillisecond(), ts.getNanoOfMillisecond());
    }

    @Override
    public TimestampLtz getTimestampLtz(int pos, int precision) {
        Timestamp ts = row.getTimestamp(mapping.paimonPosition(pos), precision);
        return TimestampLtz.fromEpochMillis(ts.getMillisecond(), ts.getNanoOfMillisecond());
    }

    @Override
    public byte[] getBinary(int pos, int length) {
        return row.getBinary(mapping.paimonPosition(pos));
    }

    @Override
    public byte[] getBytes(int pos) {
        return row.getBinary(mapping.paimonPosition(pos));
    }

    @Override
    public InternalArray getArray(int pos) {
        throw new UnsupportedOperationException("Nested types are refused at provisioning.");
    }

    @Override
    public InternalMap getMap(int pos) {
        throw new UnsupportedOperationException("Nested types are refused at provisioning.");
    }

    @Override
    public InternalRow getRow(int pos, int numFields) {
        throw new UnsupportedOperationException("Nested types are refused at provisioning.");
    }
}
