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

package io.lakestream.spark.catalog;

import io.lakestream.spark.source.LakeStreamSparkTable;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.system.AuditLogTable;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Spark catalog of a Paimon warehouse that reads every table of it, lake-stream tables through
 * their union with the stream store and the others as Paimon's read returns them:
 *
 * <pre>{@code
 * spark.sql.catalog.lake = io.lakestream.spark.catalog.LakeStreamSparkCatalog
 * spark.sql.catalog.lake.warehouse = s3://bucket/warehouse
 * spark.sql.catalog.lake.lake-stream.fluss.bootstrap.servers = fluss:9123
 * }</pre>
 *
 * <p>Its options are a Paimon catalog's (the {@code warehouse}, the file system's) and the
 * lake-stream options of the store's connection and of reads, which win over a table's own. Spark's
 * namespaces are Paimon's databases. Tables are read here; they are created, changed and written
 * through Paimon's or Flink's catalog.
 */
@Experimental
public class LakeStreamSparkCatalog implements TableCatalog, SupportsNamespaces {

    private String name;
    private Map<String, String> options;
    private Catalog catalog;

    /**
     * Registers a catalog {@code name} of this class on {@code builder}: the warehouse and the
     * {@code lake-stream.*} options (the store and its connection, read options) as the catalog's
     * {@code spark.sql.catalog.<name>.*} settings.
     */
    public static SparkSession.Builder register(
            SparkSession.Builder builder,
            String name,
            String warehouse,
            Map<String, String> options) {
        String prefix = "spark.sql.catalog." + name;
        builder.config(prefix, LakeStreamSparkCatalog.class.getName());
        builder.config(prefix + ".warehouse", warehouse);
        options.forEach((key, value) -> builder.config(prefix + "." + key, value));
        return builder;
    }

    @Override
    public void initialize(String name, CaseInsensitiveStringMap options) {
        this.name = name;
        this.options = new HashMap<>(options.asCaseSensitiveMap());
        this.catalog =
                CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(this.options)));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String[] defaultNamespace() {
        return new String[] {"default"};
    }

    // ---------------------------------------------------------------- namespaces

    @Override
    public String[][] listNamespaces() {
        List<String> databases = catalog.listDatabases();
        String[][] namespaces = new String[databases.size()][];
        for (int i = 0; i < namespaces.length; i++) {
            namespaces[i] = new String[] {databases.get(i)};
        }
        return namespaces;
    }

    @Override
    public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
        loadNamespaceMetadata(namespace);
        // a database holds no namespaces
        return new String[0][];
    }

    @Override
    public Map<String, String> loadNamespaceMetadata(String[] namespace)
            throws NoSuchNamespaceException {
        String database = database(namespace);
        try {
            return catalog.getDatabase(database).options();
        } catch (Catalog.DatabaseNotExistException e) {
            throw new NoSuchNamespaceException(namespace);
        }
    }

    @Override
    public void createNamespace(String[] namespace, Map<String, String> metadata) {
        throw readOnly("CREATE NAMESPACE " + String.join(".", namespace));
    }

    @Override
    public void alterNamespace(String[] namespace, NamespaceChange... changes) {
        throw readOnly("ALTER NAMESPACE " + String.join(".", namespace));
    }

    @Override
    public boolean dropNamespace(String[] namespace, boolean cascade) {
        throw readOnly("DROP NAMESPACE " + String.join(".", namespace));
    }

    // ---------------------------------------------------------------- tables

    @Override
    public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
        String database = database(namespace);
        List<String> tables;
        try {
            tables = catalog.listTables(database);
        } catch (Catalog.DatabaseNotExistException e) {
            throw new NoSuchNamespaceException(namespace);
        }
        Identifier[] identifiers = new Identifier[tables.size()];
        for (int i = 0; i < identifiers.length; i++) {
            identifiers[i] = Identifier.of(namespace, tables.get(i));
        }
        return identifiers;
    }

    @Override
    public org.apache.spark.sql.connector.catalog.Table loadTable(Identifier ident)
            throws NoSuchTableException {
        return loadTable(ident, Collections.emptyMap());
    }

    /**
     * {@code VERSION AS OF}: a snapshot id, or else a tag's name, as Paimon's Spark catalog reads
     * it. The read returns that snapshot's state exactly, nothing of the store.
     */
    @Override
    public org.apache.spark.sql.connector.catalog.Table loadTable(Identifier ident, String version)
            throws NoSuchTableException {
        boolean snapshotId = version.chars().allMatch(Character::isDigit) && !version.isEmpty();
        return loadTable(
                ident,
                Collections.singletonMap(
                        snapshotId
                                ? CoreOptions.SCAN_SNAPSHOT_ID.key()
                                : CoreOptions.SCAN_TAG_NAME.key(),
                        version));
    }

    /**
     * {@code TIMESTAMP AS OF}: the latest snapshot committed at or before the time (Spark gives
     * microseconds), as Paimon reads {@code scan.timestamp-millis}.
     */
    @Override
    public org.apache.spark.sql.connector.catalog.Table loadTable(Identifier ident, long timestamp)
            throws NoSuchTableException {
        return loadTable(
                ident,
                Collections.singletonMap(
                        CoreOptions.SCAN_TIMESTAMP_MILLIS.key(), String.valueOf(timestamp / 1000)));
    }

    private org.apache.spark.sql.connector.catalog.Table loadTable(
            Identifier ident, Map<String, String> timeTravel) throws NoSuchTableException {
        org.apache.paimon.catalog.Identifier identifier = paimonIdentifier(ident);
        // the table's audit log: its rows, or its changes in a streaming read, with their kinds
        boolean auditLog =
                identifier.isSystemTable()
                        && AuditLogTable.AUDIT_LOG.equalsIgnoreCase(identifier.getSystemTableName())
                        && identifier.getBranchName() == null;
        if (auditLog) {
            identifier =
                    org.apache.paimon.catalog.Identifier.create(
                            identifier.getDatabaseName(), identifier.getTableName());
        }
        Table table;
        try {
            table = catalog.getTable(identifier);
        } catch (Catalog.TableNotExistException e) {
            throw new NoSuchTableException(ident);
        }
        if (!(table instanceof FileStoreTable)) {
            throw new UnsupportedOperationException(
                    String.format(
                            "Table %s is not a Paimon data table (%s): the lake-stream Spark "
                                    + "catalog reads data tables only.",
                            identifier.getFullName(), table.getClass().getSimpleName()));
        }
        FileStoreTable fileStoreTable = (FileStoreTable) table;
        if (!timeTravel.isEmpty()) {
            fileStoreTable = fileStoreTable.copy(timeTravel);
        }
        return new LakeStreamSparkTable(
                identifier, fileStoreTable, Collections.unmodifiableMap(options), auditLog);
    }

    @Override
    public org.apache.spark.sql.connector.catalog.Table createTable(
            Identifier ident,
            StructType schema,
            Transform[] partitions,
            Map<String, String> properties) {
        throw readOnly("CREATE TABLE " + ident);
    }

    @Override
    public org.apache.spark.sql.connector.catalog.Table alterTable(
            Identifier ident, TableChange... changes) {
        throw readOnly("ALTER TABLE " + ident);
    }

    @Override
    public boolean dropTable(Identifier ident) {
        throw readOnly("DROP TABLE " + ident);
    }

    @Override
    public void renameTable(Identifier oldIdent, Identifier newIdent) {
        throw readOnly("ALTER TABLE " + oldIdent + " RENAME");
    }

    private static String database(String[] namespace) {
        if (namespace.length != 1) {
            throw new IllegalArgumentException(
                    "A namespace of the lake-stream Spark catalog is a Paimon database, one name: "
                            + String.join(".", namespace));
        }
        return namespace[0];
    }

    private static org.apache.paimon.catalog.Identifier paimonIdentifier(Identifier ident) {
        return org.apache.paimon.catalog.Identifier.create(
                database(ident.namespace()), ident.name());
    }

    private UnsupportedOperationException readOnly(String statement) {
        return new UnsupportedOperationException(
                String.format(
                        "%s: the lake-stream Spark catalog '%s' reads tables; create, change and "
                                + "write them through Paimon's or Flink's catalog.",
                        statement, name));
    }
}
