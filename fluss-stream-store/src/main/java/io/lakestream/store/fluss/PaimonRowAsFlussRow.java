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

import org.apache.paimon.data.Timestamp;

import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.Decimal;
import org.apache.fluss.row.InternalArray;
import org.apache.fluss.row.InternalMap;
import org.apache.fluss.row.InternalRow;
import org.apache.fluss.row.TimestampLtz;
import org.apache.fluss.row.TimestampNtz;

/**
 * Shows a Paimon row to the Fluss writer as a Fluss row, without copying it, with the row kind as
 * one more TINYINT column at the end when the table has a primary key. Written here because the
 * adapter of Fluss's Paimon integration hides Fluss's system columns and has no row-kind column.
 * The Fluss writer encodes the row before {@code append} returns, so one instance is reused.
 */
final class PaimonRowAsFlussRow implements InternalRow {

    private final int paimonFieldCount;
    private final boolean withRowKind;
    private org.apache.paimon.data.InternalRow row;

    PaimonRowAsFlussRow(int paimonFieldCount, boolean withRowKind) {
        this.paimonFieldCount = paimonFieldCount;
        this.withRowKind = withRowKind;
    }

    PaimonRowAsFlussRow replace(org.apache.paimon.data.InternalRow row) {
        this.row = row;
        return this;
    }

    @Override
    public int getFieldCount() {
        return withRowKind ? paimonFieldCount + 1 : paimonFieldCount;
    }

    @Override
    public boolean isNullAt(int pos) {
        return pos < paimonFieldCount && row.isNullAt(pos);
    }

    @Override
    public boolean getBoolean(int pos) {
        return row.getBoolean(pos);
    }

    @Override
    public byte getByte(int pos) {
        return pos == paimonFieldCount ? row.getRowKind().toByteValue() : row.getByte(pos);
    }

    @Override
    public short getShort(int pos) {
        return row.getShort(pos);
    }

    @Override
    public int getInt(int pos) {
        return row.getInt(pos);
    }

    @Override
    public long getLong(int pos) {
        return row.getLong(pos);
    }

    @Override
    public float getFloat(int pos) {
        return row.getFloat(pos);
    }

    @Override
    public double getDouble(int pos) {
        return row.getDouble(pos);
    }

    @Override
    public BinaryString getChar(int pos, int length) {
        return getString(pos);
    }

    @Override
    public BinaryString getString(int pos) {
        return BinaryString.fromBytes(row.getString(pos).toBytes());
    }

    @Override
    public Decimal getDecimal(int pos, int precision, int scale) {
        org.apache.paimon.data.Decimal decimal = row.getDecimal(pos, precision, scale);
        return decimal.isCompact()
                ? Decimal.fromUnscaledLong(decimal.toUnscaledLong(), precision, scale)
                : Decimal.fromBigDecimal(decimal.toBigDecimal(), precision, scale);
    }

    @Override
    public TimestampNtz getTimestampNtz(int pos, int precision) {
        Timestamp ts = row.getTimestamp(pos, precision);
        return TimestampNtz.fromMillis(ts.getMillisecond(), ts.getNanoOfMillisecond());
    }

    @Override
    public TimestampLtz getTimestampLtz(int pos, int precision) {
        Timestamp ts = row.getTimestamp(pos, precision);
        return TimestampLtz.fromEpochMillis(ts.getMillisecond(), ts.getNanoOfMillisecond());
    }

    @Override
    public byte[] getBinary(int pos, int length) {
        return row.getBinary(pos);
    }

    @Override
    public byte[] getBytes(int pos) {
        return row.getBinary(pos);
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
