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

package io.lakestream.store;

import io.lakestream.offsets.PartitionBucket;

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a stream store needs to know of a Paimon table to hold its not-yet-committed records: the
 * columns, the partition keys, the bucket count and the bucket keys (Paimon's, so that the store
 * can bucket rows exactly as Paimon does), and whether the table has a primary key (then the store
 * keeps each record's row kind); and the Paimon table that owns the stream table ({@link
 * StreamTableOwner}), which the store records on the stream table and checks before it provisions,
 * serves or drops one.
 *
 * <p>A spec taken from a Paimon table also carries the id of the schema it was taken from and the
 * table's {@link SchemaHistory}: a store that keeps the writer's schema id with each record reads a
 * record written under another schema as Paimon reads a file written under it, casting each field
 * whose type differs (a value written under {@code STRING} read as {@code VARCHAR(5)} is cut).
 */
@Experimental
public final class StreamTableSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Identifier identifier;
    private final RowType rowType;
    private final List<String> partitionKeys;
    private final List<String> bucketKeys;
    private final List<String> primaryKeys;
    private final int numBuckets;
    @Nullable private final StreamTableOwner owner;
    private final long schemaId;
    @Nullable private final SchemaHistory schemas;

    /** In {@link #schemaId()}: the spec was not taken from a Paimon schema. */
    public static final long UNKNOWN_SCHEMA_ID = -1;

    /**
     * A spec without an owner, for tools and tests that hold no Paimon table: it provisions a
     * stream table that records no owner and is refused by stream tables that record one.
     */
    public StreamTableSpec(
            Identifier identifier,
            RowType rowType,
            List<String> partitionKeys,
            List<String> bucketKeys,
            List<String> primaryKeys,
            int numBuckets) {
        this(identifier, rowType, partitionKeys, bucketKeys, primaryKeys, numBuckets, null);
    }

    public StreamTableSpec(
            Identifier identifier,
            RowType rowType,
            List<String> partitionKeys,
            List<String> bucketKeys,
            List<String> primaryKeys,
            int numBuckets,
            @Nullable StreamTableOwner owner) {
        this(
                identifier,
                rowType,
                partitionKeys,
                bucketKeys,
                primaryKeys,
                numBuckets,
                owner,
                UNKNOWN_SCHEMA_ID,
                null);
    }

    /**
     * A spec with the id of the Paimon schema whose row type {@code rowType} is, and the table's
     * schema history ({@code null} when there is none to read).
     */
    public StreamTableSpec(
            Identifier identifier,
            RowType rowType,
            List<String> partitionKeys,
            List<String> bucketKeys,
            List<String> primaryKeys,
            int numBuckets,
            @Nullable StreamTableOwner owner,
            long schemaId,
            @Nullable SchemaHistory schemas) {
        this.owner = owner;
        this.schemaId = schemaId;
        this.schemas = schemas;
        this.identifier = Objects.requireNonNull(identifier, "identifier");
        this.rowType = Objects.requireNonNull(rowType, "rowType");
        this.partitionKeys = List.copyOf(partitionKeys);
        this.bucketKeys = List.copyOf(bucketKeys);
        this.primaryKeys = List.copyOf(primaryKeys);
        this.numBuckets = numBuckets;
        if (numBuckets < 1) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table %s has 'bucket' = %d, but lake-stream mode needs a fixed bucket "
                                    + "count ('bucket' >= 1): dynamic and postpone bucket modes "
                                    + "have no stable bucket to align the stream store with.",
                            identifier.getFullName(), numBuckets));
        }
        if (bucketKeys.isEmpty()) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table %s has no bucket key: a fixed-bucket table needs a primary key "
                                    + "or the 'bucket-key' option.",
                            identifier.getFullName()));
        }
    }

    /** The spec of a Paimon table as its latest schema describes it, owned by the table. */
    public static StreamTableSpec of(Identifier identifier, FileStoreTable table) {
        TableSchema schema = table.schema();
        return new StreamTableSpec(
                identifier,
                schema.logicalRowType(),
                schema.partitionKeys(),
                schema.bucketKeys(),
                schema.primaryKeys(),
                schema.numBuckets(),
                StreamTableOwner.of(table),
                schema.id(),
                SchemaHistory.of(table));
    }

    /**
     * The id of the Paimon schema this spec was taken from, which writers record with each record;
     * {@link #UNKNOWN_SCHEMA_ID} for a spec built without one.
     */
    public long schemaId() {
        return schemaId;
    }

    /**
     * The row type of the table's schema {@code id}: this spec's own for its {@link #schemaId()},
     * else from the table's schema history; empty when the spec has no history or the table no such
     * schema.
     */
    public Optional<RowType> rowTypeOfSchema(long id) {
        if (id == schemaId) {
            return Optional.of(rowType);
        }
        return schemas == null ? Optional.empty() : schemas.rowType(id);
    }

    /**
     * The Paimon table that owns the stream table; empty for a spec built without one (see the
     * six-argument constructor).
     */
    public Optional<StreamTableOwner> owner() {
        return Optional.ofNullable(owner);
    }

    public Identifier identifier() {
        return identifier;
    }

    public RowType rowType() {
        return rowType;
    }

    /**
     * A partition-bucket of this table for people: its partition values by key, then the bucket,
     * for example {@code dt=2025-06-01, bucket 3}.
     */
    public String describe(PartitionBucket partitionBucket) {
        if (partitionKeys.isEmpty()) {
            return "bucket " + partitionBucket.bucket();
        }
        RowType partitionType = rowType.project(partitionKeys);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < partitionKeys.size(); i++) {
            Object value =
                    InternalRow.createFieldGetter(partitionType.getTypeAt(i), i)
                            .getFieldOrNull(partitionBucket.partition());
            text.append(partitionKeys.get(i)).append('=').append(value).append(", ");
        }
        return text.append("bucket ").append(partitionBucket.bucket()).toString();
    }

    public List<String> partitionKeys() {
        return partitionKeys;
    }

    public boolean isPartitioned() {
        return !partitionKeys.isEmpty();
    }

    /** The partition columns in key order, as Paimon's partition rows hold them. */
    public RowType partitionType() {
        return rowType.project(partitionKeys);
    }

    public List<String> bucketKeys() {
        return bucketKeys;
    }

    public List<String> primaryKeys() {
        return primaryKeys;
    }

    /** Whether records carry a row kind (+I, -U, +U, -D): true for primary-key tables. */
    public boolean hasPrimaryKey() {
        return !primaryKeys.isEmpty();
    }

    public int numBuckets() {
        return numBuckets;
    }

    /**
     * Whether {@code other} has the same partition keys, bucket keys, primary keys and bucket
     * count: what a stream table is laid out by and cannot change.
     */
    public boolean hasSameLayout(StreamTableSpec other) {
        return partitionKeys.equals(other.partitionKeys)
                && bucketKeys.equals(other.bucketKeys)
                && primaryKeys.equals(other.primaryKeys)
                && numBuckets == other.numBuckets;
    }

    public List<String> fieldNames() {
        return Collections.unmodifiableList(rowType.getFieldNames());
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof StreamTableSpec)) {
            return false;
        }
        StreamTableSpec that = (StreamTableSpec) o;
        return numBuckets == that.numBuckets
                && identifier.equals(that.identifier)
                && rowType.equals(that.rowType)
                && partitionKeys.equals(that.partitionKeys)
                && bucketKeys.equals(that.bucketKeys)
                && primaryKeys.equals(that.primaryKeys)
                && Objects.equals(owner, that.owner)
                && schemaId == that.schemaId;
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                identifier,
                rowType,
                partitionKeys,
                bucketKeys,
                primaryKeys,
                numBuckets,
                owner,
                schemaId);
    }

    @Override
    public String toString() {
        return identifier.getFullName();
    }
}
