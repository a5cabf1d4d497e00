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

import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataTypeChecks;

import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.metadata.DataLakeFormat;
import org.apache.fluss.metadata.LogFormat;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypes;
import org.apache.fluss.types.RowType;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The shape of the Fluss table that holds a Paimon table's stream: a log table with the Paimon
 * columns (plus a row-kind column for primary-key tables), the same partition keys, the same bucket
 * count and Paimon's bucket keys, created with {@code table.datalake.format = paimon} so that the
 * Fluss writer encodes and hashes bucket keys exactly as Paimon does.
 *
 * <p>Its log format is {@code compacted}, not Fluss's default {@code arrow}: Fluss 0.9's Arrow
 * reader fails on a timestamp of precision 4 to 9 before 1970 with a sub-millisecond part (it
 * splits the value with truncating division), which leaves the whole partition-bucket unreadable,
 * and its Arrow writer overflows nanosecond timestamps outside the years 1677 to 2262. The
 * compacted row format keeps milliseconds and nanos of millisecond as they are; it gives up Arrow's
 * column projection and compression, which the store's reader does not use.
 */
final class FlussStreamTableLayout {

    /** The column that keeps each record's Paimon row kind in the stream of a primary-key table. */
    static final String ROW_KIND_COLUMN = "_lake_stream_row_kind";

    /** The log format of stream tables; see the class comment for why it is not Arrow. */
    static final LogFormat LOG_FORMAT = LogFormat.COMPACTED;

    private final StreamTableSpec spec;
    private final TablePath tablePath;
    private final List<DataType> columnTypes;

    FlussStreamTableLayout(StreamTableSpec spec) {
        this.spec = spec;
        this.tablePath =
                TablePath.of(
                        spec.identifier().getDatabaseName(), spec.identifier().getObjectName());
        this.columnTypes = FlussTypes.toFluss(spec);
        if (spec.fieldNames().contains(ROW_KIND_COLUMN)) {
            throw new StreamStoreException(
                    String.format(
                            "Table %s has a column named '%s', which lake-stream mode reserves for "
                                    + "the row kind of stream records.",
                            spec.identifier().getFullName(), ROW_KIND_COLUMN));
        }
        checkBucketKeyNullability(spec);
    }

    /**
     * Refuses a nullable bucket-key column that Paimon and Fluss would bucket differently when it
     * is null. For a DECIMAL wider than 18 digits and a TIMESTAMP or TIMESTAMP_LTZ finer than
     * milliseconds, Paimon's bucket-key row keeps room for the value even when it is null (16 and 8
     * bytes), while Fluss 0.9's encoder of Paimon's format only sets the null bit; the key bytes
     * differ, so does their hash, and a row with a null there would land in another bucket.
     */
    private static void checkBucketKeyNullability(StreamTableSpec spec) {
        for (String key : spec.bucketKeys()) {
            org.apache.paimon.types.DataType type =
                    spec.rowType().getTypeAt(spec.rowType().getFieldIndex(key));
            if (!type.isNullable()) {
                continue;
            }
            boolean nullKeptWithRoom;
            switch (type.getTypeRoot()) {
                case DECIMAL:
                    nullKeptWithRoom = !Decimal.isCompact(DataTypeChecks.getPrecision(type));
                    break;
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                    nullKeptWithRoom = !Timestamp.isCompact(DataTypeChecks.getPrecision(type));
                    break;
                default:
                    nullKeptWithRoom = false;
            }
            if (nullKeptWithRoom) {
                throw new StreamStoreException(
                        String.format(
                                "Bucket-key column '%s' of table %s has the nullable type %s, "
                                        + "which the Fluss stream store cannot bucket as Paimon "
                                        + "does when it is null. Declare the column NOT NULL, or "
                                        + "use a DECIMAL of at most 18 digits or a timestamp of "
                                        + "at most millisecond precision as bucket key.",
                                key, spec.identifier().getFullName(), type));
            }
        }
    }

    StreamTableSpec spec() {
        return spec;
    }

    TablePath tablePath() {
        return tablePath;
    }

    /** The Fluss types of the Paimon columns, in Paimon's order (without the row-kind column). */
    List<DataType> paimonColumnTypes() {
        return columnTypes;
    }

    boolean hasRowKindColumn() {
        return spec.hasPrimaryKey();
    }

    TableDescriptor descriptor() {
        return TableDescriptor.builder()
                .schema(Schema.newBuilder().fromRowType(rowType()).build())
                .partitionedBy(spec.partitionKeys())
                .distributedBy(spec.numBuckets(), spec.bucketKeys())
                .property(ConfigOptions.TABLE_DATALAKE_FORMAT, DataLakeFormat.PAIMON)
                .property(ConfigOptions.TABLE_LOG_FORMAT, LOG_FORMAT)
                .comment("Lake-stream records of Paimon table " + spec.identifier().getFullName())
                .build();
    }

    private RowType rowType() {
        List<String> names = new ArrayList<>(spec.fieldNames());
        List<DataType> types = new ArrayList<>(columnTypes);
        if (hasRowKindColumn()) {
            names.add(ROW_KIND_COLUMN);
            types.add(DataTypes.TINYINT().copy(false));
        }
        return RowType.of(types.toArray(new DataType[0]), names.toArray(new String[0]));
    }

    /** What differs between an existing Fluss table and this layout; empty when it matches. */
    List<String> differences(TableInfo existing) {
        List<String> differences = new ArrayList<>();
        RowType expected = rowType();
        RowType actual = existing.getRowType();
        if (!expected.getFieldNames().equals(actual.getFieldNames())) {
            differences.add(
                    "columns are "
                            + actual.getFieldNames()
                            + " but should be "
                            + expected.getFieldNames());
        } else {
            for (int i = 0; i < expected.getFieldCount(); i++) {
                if (!expected.getTypeAt(i).equals(actual.getTypeAt(i))) {
                    differences.add(
                            String.format(
                                    "column '%s' has type %s but should have %s",
                                    expected.getFieldNames().get(i),
                                    actual.getTypeAt(i),
                                    expected.getTypeAt(i)));
                }
            }
        }
        if (existing.hasPrimaryKey()) {
            differences.add(
                    "it has primary key "
                            + existing.getPrimaryKeys()
                            + " but a stream table is a log table");
        }
        if (!spec.partitionKeys().equals(existing.getPartitionKeys())) {
            differences.add(
                    "partition keys are "
                            + existing.getPartitionKeys()
                            + " but should be "
                            + spec.partitionKeys());
        }
        if (spec.numBuckets() != existing.getNumBuckets()) {
            differences.add(
                    "bucket count is "
                            + existing.getNumBuckets()
                            + " but should be "
                            + spec.numBuckets());
        }
        if (!spec.bucketKeys().equals(existing.getBucketKeys())) {
            differences.add(
                    "bucket keys are "
                            + existing.getBucketKeys()
                            + " but should be "
                            + spec.bucketKeys());
        }
        Optional<DataLakeFormat> format = existing.getTableConfig().getDataLakeFormat();
        if (!format.equals(Optional.of(DataLakeFormat.PAIMON))) {
            differences.add(
                    "'table.datalake.format' is "
                            + format.map(Object::toString).orElse("not set")
                            + " but should be paimon (Paimon's bucketing)");
        }
        LogFormat logFormat = existing.getTableConfig().getLogFormat();
        if (logFormat != LOG_FORMAT) {
            differences.add(
                    "'table.log.format' is "
                            + logFormat
                            + " but should be "
                            + LOG_FORMAT
                            + " (Fluss's Arrow format cannot read back some timestamps before 1970)");
        }
        return differences;
    }
}
