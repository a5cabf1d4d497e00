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

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypeChecks;

import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.metadata.DataLakeFormat;
import org.apache.fluss.metadata.LogFormat;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableChange;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.types.DataType;
import org.apache.fluss.types.DataTypes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The shape of the Fluss table that holds a Paimon table's stream: a log table with the Paimon
 * columns (plus a row-kind column for primary-key tables, and a column for the id of the Paimon
 * schema each record was written under), the same partition keys, the same bucket count and
 * Paimon's bucket keys, created with {@code table.datalake.format = paimon} so that the Fluss
 * writer encodes and hashes bucket keys exactly as Paimon does.
 *
 * <p>Its log format is {@code indexed}, not Fluss's default {@code arrow}: Fluss 0.9's Arrow reader
 * fails on a timestamp of precision 4 to 9 before 1970 with a sub-millisecond part (it splits the
 * value with truncating division), which leaves the whole partition-bucket unreadable, and its
 * Arrow writer overflows nanosecond timestamps outside the years 1677 to 2262. The indexed row
 * format keeps milliseconds and nanos of millisecond as they are, and unlike the {@code compacted}
 * format its reader projects records written under an older or newer schema onto the reader's,
 * which is what lets the stream table take added columns. It gives up Arrow's column projection and
 * compression, which the store's reader does not use.
 *
 * <p>Columns are matched by Paimon field id ({@link FlussColumnIds}, {@link FlussColumnMapping}),
 * so renamed, moved and dropped fields need no change of the stream table, and a field added to
 * Paimon (or dropped and added again under its old name, a new field) gets a nullable column at the
 * end, the one change Fluss 0.9 can make to a table's columns. A field's type change that keeps its
 * Fluss type (a longer VARCHAR) needs nothing; one that changes it is read with Paimon's cast and
 * cannot be written ({@link #checkEvolution}).
 */
final class FlussStreamTableLayout {

    /** The column that keeps each record's Paimon row kind in the stream of a primary-key table. */
    static final String ROW_KIND_COLUMN = "_lake_stream_row_kind";

    /**
     * The column that keeps the id of the Paimon schema each record was written under, so that a
     * reader planned under another schema casts the record's values as Paimon casts a data file
     * written under it. Nullable: stream tables created before it get it added, and their older
     * records, without it, are read as written.
     */
    static final String SCHEMA_ID_COLUMN = "_lake_stream_schema_id";

    /** The log format of stream tables; see the class comment for why it is not Arrow. */
    static final LogFormat LOG_FORMAT = LogFormat.INDEXED;

    private final StreamTableSpec spec;
    private final TablePath tablePath;
    private final List<DataType> columnTypes;

    /**
     * @param databasePrefix the catalog's {@code lake-stream.store.database-prefix}, put before the
     *     Paimon database name
     */
    FlussStreamTableLayout(StreamTableSpec spec, String databasePrefix) {
        this.spec = spec;
        this.tablePath = tablePath(databasePrefix, spec.identifier());
        this.columnTypes = FlussTypes.toFluss(spec);
        for (String reserved : Arrays.asList(ROW_KIND_COLUMN, SCHEMA_ID_COLUMN)) {
            if (spec.fieldNames().contains(reserved)) {
                throw new StreamStoreException(
                        String.format(
                                "Table %s has a column named '%s', which lake-stream mode reserves "
                                        + "for the %s of stream records.",
                                spec.identifier().getFullName(),
                                reserved,
                                reserved.equals(ROW_KIND_COLUMN) ? "row kind" : "schema id"));
            }
        }
        checkBucketKeyNullability(spec);
        checkPartitionablePath(spec, tablePath);
    }

    /**
     * Refuses a partitioned stream table whose Fluss database or table is named {@code partitions}.
     * The Fluss 0.9.1 coordinator finds a new partition by splitting its ZooKeeper path ({@code
     * .../databases/<db>/tables/<table>/partitions/<name>}) at {@code /partitions/}; a second such
     * part makes it ignore the partition, which then never gets a leader, and every write to it
     * times out.
     */
    private static void checkPartitionablePath(StreamTableSpec spec, TablePath path) {
        if (spec.isPartitioned()
                && (path.getDatabaseName().equals("partitions")
                        || path.getTableName().equals("partitions"))) {
            throw new StreamStoreException(
                    String.format(
                            "Partitioned table %s cannot have a Fluss stream table named %s: the "
                                    + "Fluss 0.9 coordinator never creates the partitions of a "
                                    + "table or database named 'partitions', so every write would "
                                    + "time out. Rename the table, or for a database of that name "
                                    + "set '%s' in the catalog.",
                            spec.identifier().getFullName(),
                            path,
                            LakeStreamOptions.STORE_DATABASE_PREFIX.key()));
        }
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

    /** Where the stream table of Paimon table {@code paimonTable} lives. */
    static TablePath tablePath(String databasePrefix, Identifier paimonTable) {
        return TablePath.of(
                databasePrefix + paimonTable.getDatabaseName(), paimonTable.getObjectName());
    }

    StreamTableSpec spec() {
        return spec;
    }

    TablePath tablePath() {
        return tablePath;
    }

    boolean hasRowKindColumn() {
        return spec.hasPrimaryKey();
    }

    /** The descriptor of a new stream table: it records its owner as custom properties. */
    TableDescriptor descriptor() {
        return TableDescriptor.builder()
                .customProperties(ownerProperties(spec))
                .schema(schema())
                .partitionedBy(spec.partitionKeys())
                .distributedBy(spec.numBuckets(), spec.bucketKeys())
                .property(ConfigOptions.TABLE_DATALAKE_FORMAT, DataLakeFormat.PAIMON)
                .property(ConfigOptions.TABLE_LOG_FORMAT, LOG_FORMAT)
                .comment("Lake-stream records of Paimon table " + spec.identifier().getFullName())
                .build();
    }

    /** The custom properties that record the owner of {@code spec}, if it has one. */
    static Map<String, String> ownerProperties(StreamTableSpec spec) {
        return spec.owner().map(StreamTableOwner::toProperties).orElse(Collections.emptyMap());
    }

    /** The columns of a new stream table, each commented with the Paimon field id it holds. */
    private Schema schema() {
        Schema.Builder schema = Schema.newBuilder();
        List<DataField> fields = spec.rowType().getFields();
        for (int i = 0; i < fields.size(); i++) {
            schema.column(fields.get(i).name(), columnTypes.get(i))
                    .withComment(FlussColumnIds.comment(fields.get(i).id()));
        }
        if (hasRowKindColumn()) {
            schema.column(ROW_KIND_COLUMN, DataTypes.TINYINT().copy(false));
        }
        schema.column(SCHEMA_ID_COLUMN, DataTypes.BIGINT());
        return schema.build();
    }

    /**
     * The changes that bring an existing Fluss table to this layout: a nullable column at the end
     * for each field of the spec that no column holds, and the schema-id column for a table created
     * before it. A field's column takes the field's name, or, where an older column has that name
     * (a field dropped and added again, or renamed to a name another field had), the name and the
     * field id.
     */
    List<TableChange> missingColumns(TableInfo existing) {
        List<Schema.Column> columns = existing.getSchema().getColumns();
        int[] ids = FlussColumnIds.of(spec, columns, existing.getCustomProperties().toMap());
        Set<String> names = new HashSet<>();
        columns.forEach(column -> names.add(column.getName()));
        List<TableChange> changes = new ArrayList<>();
        List<DataField> fields = spec.rowType().getFields();
        for (int i = 0; i < fields.size(); i++) {
            DataField field = fields.get(i);
            if (Arrays.stream(ids).anyMatch(id -> id == field.id())) {
                continue;
            }
            String name = field.name();
            for (int attempt = 0; names.contains(name); attempt++) {
                name = field.name() + "_" + field.id() + (attempt == 0 ? "" : "_" + attempt);
            }
            names.add(name);
            changes.add(
                    TableChange.addColumn(
                            name,
                            columnTypes.get(i).copy(true),
                            FlussColumnIds.comment(field.id()),
                            TableChange.ColumnPosition.last()));
        }
        if (!names.contains(SCHEMA_ID_COLUMN)) {
            changes.add(
                    TableChange.addColumn(
                            SCHEMA_ID_COLUMN,
                            DataTypes.BIGINT(),
                            "Paimon schema id of the writer",
                            TableChange.ColumnPosition.last()));
        }
        return changes;
    }

    /**
     * Checks that the stream table of {@code from} can be brought to {@code to}: the same keys and
     * buckets, key columns of the same types, and every field that both know of the same Fluss
     * type. Renames, moves, drops, added fields and changes of nullability are followed.
     *
     * @throws StreamStoreException saying what the store cannot follow
     */
    static void checkEvolution(StreamTableSpec from, StreamTableSpec to) {
        // the prefix names the table, which an evolution does not change; the layout checks that
        // the store holds every type of the new schema
        FlussStreamTableLayout next = new FlussStreamTableLayout(to, "");
        String table = to.identifier().getFullName();
        if (!from.hasSameLayout(to)) {
            throw new StreamStoreException(
                    String.format(
                            "The change would alter the partition keys, bucket keys, primary keys "
                                    + "or bucket count of table %s, which its stream table cannot "
                                    + "follow.",
                            table));
        }
        List<DataType> fromTypes = FlussTypes.toFluss(from);
        List<DataField> fromFields = from.rowType().getFields();
        List<DataField> toFields = to.rowType().getFields();
        for (int i = 0; i < fromFields.size(); i++) {
            for (int j = 0; j < toFields.size(); j++) {
                if (fromFields.get(i).id() == toFields.get(j).id()
                        && !FlussColumnMapping.sameType(
                                fromTypes.get(i), next.columnTypes.get(j))) {
                    throw new StreamStoreException(
                            String.format(
                                    "The change would turn column '%s' of table %s from %s into "
                                            + "%s, which its stream table cannot follow: Fluss "
                                            + "0.9 cannot change the type of a column. A change "
                                            + "that keeps the stream column's type (VARCHAR(n) to "
                                            + "a longer VARCHAR or STRING, CHAR to VARCHAR, "
                                            + "BINARY to VARBINARY, nullability) is followed.",
                                    fromFields.get(i).name(),
                                    table,
                                    fromFields.get(i).type(),
                                    toFields.get(j).type()));
                }
            }
        }
    }

    /**
     * What differs between an existing Fluss table and this layout; empty when it matches. Columns
     * match by field id; the Fluss table may hold more columns than the spec (fields added after
     * the spec was taken, or dropped since): readers skip them and writers write null there, which
     * Fluss's indexed format takes in every column, whatever its nullability. A column of another
     * type than its field's is read with Paimon's cast, and refused to writers by {@link
     * FlussColumnMapping#checkWritable}.
     */
    List<String> differences(TableInfo existing) {
        List<String> differences = new ArrayList<>();
        List<Schema.Column> columns = existing.getSchema().getColumns();
        int[] ids = FlussColumnIds.of(spec, columns, existing.getCustomProperties().toMap());
        for (DataField field : spec.rowType().getFields()) {
            if (Arrays.stream(ids).noneMatch(id -> id == field.id())) {
                differences.add(
                        String.format(
                                "the column of field '%s' (field id %d) is missing",
                                field.name(), field.id()));
            }
        }
        if (hasRowKindColumn()
                && columns.stream().noneMatch(c -> c.getName().equals(ROW_KIND_COLUMN))) {
            differences.add("the row-kind column '" + ROW_KIND_COLUMN + "' is missing");
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
