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

package io.lakestream.spark.source;

import io.lakestream.LakeStreamOptions;
import io.lakestream.spark.types.SparkTypes;
import io.lakestream.table.OptionValues;

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.system.AuditLogTable;

import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A Paimon table as Spark reads it through the lake-stream catalog: in lake-stream mode its union
 * with the stream store, otherwise Paimon's read. Batch queries read it; Structured Streaming reads
 * an append table as it is and a primary-key table's changes through its {@code $audit_log}, whose
 * first column, {@code rowkind}, holds each row's kind ({@code +I}, {@code -U}, {@code +U}, {@code
 * -D}), as Paimon's own audit log table does.
 */
@Experimental
public class LakeStreamSparkTable implements SupportsRead, SupportsWrite {

    /** The name of the row kind column of an {@code $audit_log}: Paimon's. */
    public static final String ROW_KIND_COLUMN = SpecialFields.ROW_KIND.name();

    private final Identifier identifier;
    private final FileStoreTable table;
    private final Map<String, String> catalogOptions;
    private final boolean auditLog;
    private final StructType schema;

    /**
     * @param auditLog whether this is the table's {@code $audit_log}: its rows with their kinds
     */
    public LakeStreamSparkTable(
            Identifier identifier,
            FileStoreTable table,
            Map<String, String> catalogOptions,
            boolean auditLog) {
        this.identifier = identifier;
        this.table = table;
        this.catalogOptions = catalogOptions;
        this.auditLog = auditLog;
        StructType columns = SparkTypes.toSpark(identifier.getFullName(), table.rowType());
        if (auditLog) {
            StructField[] fields = new StructField[columns.fields().length + 1];
            fields[0] = DataTypes.createStructField(ROW_KIND_COLUMN, DataTypes.StringType, false);
            System.arraycopy(columns.fields(), 0, fields, 1, columns.fields().length);
            this.schema = new StructType(fields);
        } else {
            this.schema = columns;
        }
    }

    @Override
    public String name() {
        return auditLog
                ? identifier.getFullName()
                        + Identifier.SYSTEM_TABLE_SPLITTER
                        + AuditLogTable.AUDIT_LOG
                : identifier.getFullName();
    }

    @Override
    @SuppressWarnings("deprecation")
    public StructType schema() {
        return schema;
    }

    @Override
    public Map<String, String> properties() {
        return Collections.unmodifiableMap(table.options());
    }

    @Override
    public Set<TableCapability> capabilities() {
        // BATCH_WRITE only so that Spark asks for a writer, which says why there is none
        return EnumSet.of(
                TableCapability.BATCH_READ,
                TableCapability.MICRO_BATCH_READ,
                TableCapability.BATCH_WRITE);
    }

    /**
     * Refused, naming the table and the way to write it: a Spark write would commit to Paimon
     * without writing the stream store, and the catalog's tables are written through Flink.
     */
    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        throw new UnsupportedOperationException(
                String.format(
                        "Cannot write table %s from Spark: the lake-stream Spark catalog reads "
                                + "tables. Write it with Flink (the 'paimon-lakestream' catalog, "
                                + "or LakeStreamSink) or the embedded API, which write Paimon and "
                                + "the stream store together; a commit through Paimon's own Spark "
                                + "catalog is followed by lake-stream readers as another writer's "
                                + "commit.",
                        identifier.getFullName()));
    }

    /**
     * A scan with the table's options, the catalog's over them, and the read's over both ({@code
     * spark.read().option("lake-stream.read.isolation", "read-committed")}), as a Flink statement's
     * hints; a read option that chooses the store, or whose value its option cannot read, is
     * refused naming the table and the option.
     */
    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap readOptions) {
        Map<String, String> options = new HashMap<>(readOptions.asCaseSensitiveMap());
        options.putAll(
                LakeStreamOptions.forStatement(
                        table.options(),
                        catalogOptions,
                        readOptions.asCaseSensitiveMap(),
                        message ->
                                new IllegalArgumentException(
                                        "Table " + identifier.getFullName() + ": " + message)));
        OptionValues.refuseUnreadable(
                identifier.getFullName(), options, IllegalArgumentException::new);
        return new LakeStreamScanBuilder(identifier, table, options, schema, auditLog);
    }
}
