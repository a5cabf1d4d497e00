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

package io.lakestream.flink.catalog;

import io.lakestream.LakeStreamOptions;
import io.lakestream.StatementErrors;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.table.CredentialOptions;
import io.lakestream.table.LakeStreamEnablement;
import io.lakestream.table.MainBranchOnly;
import io.lakestream.table.OptionValues;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogLoader;
import org.apache.paimon.catalog.DelegateCatalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.LazyField;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Paimon's catalog with lake-stream mode's rules on top, so that they hold for Flink SQL's {@code
 * ALTER}, {@code DROP} and {@code RENAME} and for Paimon's procedures alike:
 *
 * <ul>
 *   <li>setting {@code 'lake-stream.enabled' = 'true'} runs the {@link LakeStreamEnablement} steps
 *       before the option is written; setting it to {@code false} or resetting it disables;
 *   <li>a schema change of an enabled table is carried to its stream table where the store can hold
 *       it (an added nullable column), and otherwise refused before anything changes; a bucket
 *       change is refused: the stream table's buckets would no longer match;
 *   <li>creating a table with {@code 'lake-stream.enabled' = 'true'} enables it as {@code ALTER}
 *       does;
 *   <li>dropping an enabled table drops its stream table, and so does dropping its database with
 *       {@code CASCADE}; renaming one is refused.
 * </ul>
 */
@Internal
public final class LakeStreamPaimonCatalog extends DelegateCatalog {

    private static final Logger LOG = LoggerFactory.getLogger(LakeStreamPaimonCatalog.class);

    private final LakeStreamEnablement enablement;

    public LakeStreamPaimonCatalog(Catalog wrapped) {
        super(wrapped);
        this.enablement =
                new LakeStreamEnablement(
                        wrapped,
                        wrapped.options(),
                        ValidationException.class,
                        ValidationException::new);
    }

    public LakeStreamEnablement enablement() {
        return enablement;
    }

    @Override
    public CatalogLoader catalogLoader() {
        // tasks that load the catalog again (Paimon's procedures run jobs) get Paimon's own
        return wrapped().catalogLoader();
    }

    @Override
    public void alterTable(
            Identifier identifier, List<SchemaChange> changes, boolean ignoreIfNotExists)
            throws TableNotExistException, ColumnAlreadyExistException, ColumnNotExistException {
        // whatever changes, planning looks the stream table up again
        enablement.streamTables().forget(identifier);
        FileStoreTable table;
        try {
            table = enablement.fileStoreTable(identifier);
        } catch (ValidationException e) {
            // not a data table, or missing: Paimon says what is wrong
            super.alterTable(identifier, changes, ignoreIfNotExists);
            return;
        }
        boolean enabledBefore =
                LakeStreamEnablement.isEnabled(table.options()) && !MainBranchOnly.isBranch(table);
        Map<String, String> newOptions = new HashMap<>();
        boolean turnsOff = false;
        List<SchemaChange> schemaChanges = new ArrayList<>();
        for (SchemaChange change : changes) {
            if (change instanceof SchemaChange.SetOption) {
                SchemaChange.SetOption set = (SchemaChange.SetOption) change;
                newOptions.put(set.key(), set.value());
            } else if (change instanceof SchemaChange.RemoveOption) {
                if (LakeStreamOptions.ENABLED
                        .key()
                        .equals(((SchemaChange.RemoveOption) change).key())) {
                    turnsOff = true;
                }
            } else {
                schemaChanges.add(change);
            }
        }
        CredentialOptions.refuse(
                identifier.getFullName(),
                newOptions.keySet(),
                "as table options",
                ValidationException::new);
        String enabledValue = newOptions.get(LakeStreamOptions.ENABLED.key());
        checkEnabledValue(identifier, enabledValue);
        OptionValues.refuseUnreadable(
                identifier.getFullName(), newOptions, ValidationException::new);
        boolean turnsOn = enabledValue != null && Boolean.parseBoolean(enabledValue);
        if (turnsOn) {
            MainBranchOnly.checkEnablingAllowed(identifier, ValidationException::new);
        }
        turnsOff |= enabledValue != null && !Boolean.parseBoolean(enabledValue);
        boolean enabledAfter = turnsOn || (enabledBefore && !turnsOff);
        if (enabledAfter && !schemaChanges.isEmpty() && !enabledBefore) {
            throw new ValidationException(
                    String.format(
                            "Table %s: change the schema and enable lake-stream mode ('%s') in "
                                    + "two statements.",
                            identifier.getFullName(), LakeStreamOptions.ENABLED.key()));
        }
        if (enabledAfter && newOptions.containsKey(CoreOptions.BUCKET.key())) {
            throw new ValidationException(
                    String.format(
                            "Table %s is in lake-stream mode: changing '%s' would break the bucket "
                                    + "alignment with its stream table. Disable lake-stream mode "
                                    + "first.",
                            identifier.getFullName(), CoreOptions.BUCKET.key()));
        }
        if (enabledAfter && !schemaChanges.isEmpty()) {
            alterSchemaOfEnabled(identifier, table, changes);
            return;
        }
        List<SchemaChange> written = new ArrayList<>(changes);
        if (turnsOn && !enabledBefore) {
            // create the stream table and record its start before the option is written
            Map<String, String> others = new HashMap<>(newOptions);
            others.remove(LakeStreamOptions.ENABLED.key());
            FileStoreTable next = table.copy(others);
            enablement.provisionAndRecordStart(identifier, next);
            enablement
                    .firstEnableDefaults(table.options(), newOptions)
                    .forEach((key, value) -> written.add(SchemaChange.setOption(key, value)));
        } else if (turnsOn) {
            // enabling an enabled table again brings its stream table up to date (after a schema
            // change whose second step failed); its start offsets were recorded long ago, and
            // recording the current ends now would hide records not yet committed
            enablement.provision(identifier, table);
        }
        super.alterTable(identifier, written, ignoreIfNotExists);
    }

    /**
     * Changes the schema of an enabled table when its stream table can follow: the store checks the
     * change first, so that a refused change leaves everything as it was; then Paimon's schema
     * changes, then the stream table. If that last step fails, the error says how to finish it.
     */
    private void alterSchemaOfEnabled(
            Identifier identifier, FileStoreTable table, List<SchemaChange> changes)
            throws TableNotExistException, ColumnAlreadyExistException, ColumnNotExistException {
        TableSchema next =
                SchemaManager.generateTableSchema(
                        table.schema(),
                        changes,
                        new LazyField<>(() -> table.latestSnapshot().isPresent()),
                        new LazyField<>(() -> identifier));
        StreamStore opened;
        try {
            opened = enablement.openStore(table.options());
        } catch (RuntimeException e) {
            throw StatementErrors.rootOf(
                    ValidationException::new,
                    String.format(
                            "Table %s is in lake-stream mode, and its schema changes only together "
                                    + "with its stream table, whose store cannot be opened, so "
                                    + "nothing was changed: %s",
                            identifier.getFullName(), e.getMessage()),
                    e);
        }
        try (StreamStore store = opened) {
            try {
                store.checkEvolution(
                        StreamTableSpec.of(identifier, table),
                        StreamTableSpec.of(identifier, table.copy(next)));
            } catch (RuntimeException e) {
                throw StatementErrors.rootOf(
                        ValidationException::new,
                        String.format(
                                "Table %s is in lake-stream mode and its stream table cannot "
                                        + "follow this change, so nothing was changed. %s To make "
                                        + "the change anyway, run CALL sys.disable_lake_stream("
                                        + "`table` => '%s', drop_stream_table => true), change the "
                                        + "table, and enable lake-stream mode again.",
                                identifier.getFullName(), e.getMessage(), identifier.getFullName()),
                        e);
            }
            super.alterTable(identifier, changes, false);
            FileStoreTable changed = enablement.fileStoreTable(identifier);
            try {
                store.provision(StreamTableSpec.of(identifier, changed));
            } catch (RuntimeException e) {
                throw StatementErrors.rootOf(
                        TableException::new,
                        String.format(
                                "The schema of table %s changed, but its stream table could not "
                                        + "follow: %s Writers of the table fail until it does; "
                                        + "run ALTER TABLE %s SET ('%s' = 'true') to retry.",
                                identifier.getFullName(),
                                e.getMessage(),
                                identifier.getFullName(),
                                LakeStreamOptions.ENABLED.key()),
                        e);
            }
        }
    }

    /**
     * Creates a table; one created with {@code 'lake-stream.enabled' = 'true'} is created without
     * the option and then enabled by the {@link LakeStreamEnablement} steps, so that its stream
     * table and start offsets exist before any writer sees the option. If enabling fails, the new
     * table is dropped again and the error says why.
     */
    @Override
    public void createTable(Identifier identifier, Schema schema, boolean ignoreIfExists)
            throws TableAlreadyExistException, DatabaseNotExistException {
        CredentialOptions.refuse(
                identifier.getFullName(),
                schema.options().keySet(),
                "as table options",
                ValidationException::new);
        checkEnabledValue(identifier, schema.options().get(LakeStreamOptions.ENABLED.key()));
        OptionValues.refuseUnreadable(
                identifier.getFullName(), schema.options(), ValidationException::new);
        if (!LakeStreamEnablement.isEnabled(schema.options())) {
            super.createTable(identifier, schema, ignoreIfExists);
            return;
        }
        if (ignoreIfExists && exists(identifier)) {
            return; // an existing table is left as it is, whatever its mode
        }
        Map<String, String> options = new HashMap<>(schema.options());
        options.remove(LakeStreamOptions.ENABLED.key());
        super.createTable(
                identifier,
                new Schema(
                        schema.fields(),
                        schema.partitionKeys(),
                        schema.primaryKeys(),
                        options,
                        schema.comment()),
                false);
        try {
            enablement.enable(identifier, Collections.emptyMap());
        } catch (RuntimeException e) {
            try {
                super.dropTable(identifier, true);
            } catch (TableNotExistException | RuntimeException dropFailure) {
                e.addSuppressed(dropFailure);
            }
            throw StatementErrors.rootOf(
                    ValidationException::new,
                    String.format(
                            "Cannot create table %s in lake-stream mode, so it was not created: "
                                    + "%s",
                            identifier.getFullName(), e.getMessage()),
                    e);
        }
    }

    /**
     * Refuses a value of {@code 'lake-stream.enabled'} other than {@code true} or {@code false}:
     * read as a boolean it would be {@code false}, and a typo would disable lake-stream mode.
     */
    private static void checkEnabledValue(Identifier identifier, String value) {
        if (value != null && !"true".equalsIgnoreCase(value) && !"false".equalsIgnoreCase(value)) {
            throw new ValidationException(
                    String.format(
                            "Table %s: '%s' = '%s' is not a boolean; use 'true' or 'false'.",
                            identifier.getFullName(), LakeStreamOptions.ENABLED.key(), value));
        }
    }

    private boolean exists(Identifier identifier) {
        try {
            wrapped().getTable(identifier);
            return true;
        } catch (TableNotExistException e) {
            return false;
        }
    }

    @Override
    public void dropTable(Identifier identifier, boolean ignoreIfNotExists)
            throws TableNotExistException {
        enablement.streamTables().forget(identifier);
        EnabledTable enabled = EnabledTable.of(identifier, enabledTable(identifier));
        super.dropTable(identifier, ignoreIfNotExists);
        if (enabled != null) {
            dropStreamTable(enabled);
        }
    }

    /**
     * Drops a database; with {@code CASCADE}, the stream tables of its tables in lake-stream mode
     * go with it, as {@code DROP TABLE} drops them, so that a table created again under the same
     * name can be enabled. Without it (Flink's {@code RESTRICT}, the default), Paimon refuses a
     * database that has tables and nothing is dropped.
     */
    @Override
    public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade)
            throws DatabaseNotExistException, DatabaseNotEmptyException {
        List<EnabledTable> enabled = new ArrayList<>();
        if (cascade) {
            List<String> tables;
            try {
                tables = listTables(name);
            } catch (DatabaseNotExistException e) {
                tables = Collections.emptyList(); // Paimon says so, or ignores it
            }
            for (String table : tables) {
                Identifier identifier = Identifier.create(name, table);
                enablement.streamTables().forget(identifier);
                EnabledTable found = EnabledTable.of(identifier, enabledTable(identifier));
                if (found != null) {
                    enabled.add(found);
                }
            }
        }
        super.dropDatabase(name, ignoreIfNotExists, cascade);
        for (EnabledTable table : enabled) {
            dropStreamTable(table);
        }
    }

    /** Drops the stream table of a Paimon table in lake-stream mode that was just dropped. */
    private void dropStreamTable(EnabledTable dropped) {
        try (StreamStore store = enablement.openStore(dropped.table.options())) {
            store.drop(dropped.identifier, dropped.owner);
        } catch (StreamStoreException e) {
            // the Paimon table is gone, as the statement asked; keeping a stream table that may
            // hold another table's records is what must happen, not a failed statement
            LOG.warn(
                    "Table {} was dropped, but its stream table was kept: {}",
                    dropped.identifier.getFullName(),
                    e.getMessage());
        }
    }

    /** A table in lake-stream mode about to be dropped, with the owner its stream table records. */
    private static final class EnabledTable {
        private final Identifier identifier;
        private final FileStoreTable table;
        private final StreamTableOwner owner;

        private EnabledTable(Identifier identifier, FileStoreTable table) {
            this.identifier = identifier;
            this.table = table;
            // read before the table goes: it is what the store checks the drop against
            this.owner = StreamTableOwner.of(table);
        }

        /** The table if {@code enabled} is not null, else null. */
        static EnabledTable of(Identifier identifier, FileStoreTable enabled) {
            return enabled == null ? null : new EnabledTable(identifier, enabled);
        }
    }

    @Override
    public void dropPartitions(Identifier identifier, List<Map<String, String>> partitions)
            throws TableNotExistException {
        super.dropPartitions(identifier, partitions);
        FileStoreTable enabled = enabledTable(identifier);
        if (enabled != null) {
            CatalogPartitionDrops.afterDrop(enablement, identifier, enabled);
        }
    }

    /**
     * Follows a {@code TRUNCATE TABLE} of {@code table}, a table in lake-stream mode, as a drop of
     * all its partitions: their stream partitions go at once when no job writes the table ({@link
     * CatalogPartitionDrops}).
     */
    public void afterTruncate(Identifier identifier, FileStoreTable table) {
        CatalogPartitionDrops.afterDrop(enablement, identifier, table);
    }

    @Override
    public void renameTable(Identifier fromTable, Identifier toTable, boolean ignoreIfNotExists)
            throws TableNotExistException, TableAlreadyExistException {
        if (enabledTable(fromTable) != null) {
            throw new ValidationException(
                    String.format(
                            "Table %s is in lake-stream mode and cannot be renamed: its stream "
                                    + "table is named after it. Disable lake-stream mode with "
                                    + "CALL sys.disable_lake_stream(`table` => '%s', "
                                    + "drop_stream_table => true) first.",
                            fromTable.getFullName(), fromTable.getFullName()));
        }
        super.renameTable(fromTable, toTable, ignoreIfNotExists);
    }

    /** The table if it is a data table in lake-stream mode, else null. */
    private FileStoreTable enabledTable(Identifier identifier) {
        try {
            FileStoreTable table = enablement.fileStoreTable(identifier);
            return LakeStreamEnablement.isEnabled(table.options()) ? table : null;
        } catch (ValidationException e) {
            return null; // missing or not a data table: Paimon reports that itself
        }
    }
}
