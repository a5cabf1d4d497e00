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

import io.lakestream.flink.LakeStreamOptions;
import io.lakestream.flink.store.StreamStore;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogLoader;
import org.apache.paimon.catalog.DelegateCatalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;

import java.util.ArrayList;
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
 *   <li>a schema change or a bucket change of an enabled table is refused before anything changes:
 *       the stream table would no longer match;
 *   <li>dropping an enabled table drops its stream table; renaming one is refused.
 * </ul>
 */
@Internal
public final class LakeStreamPaimonCatalog extends DelegateCatalog {

    private final LakeStreamEnablement enablement;

    public LakeStreamPaimonCatalog(Catalog wrapped) {
        super(wrapped);
        this.enablement = new LakeStreamEnablement(wrapped, wrapped.options());
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
        FileStoreTable table;
        try {
            table = enablement.fileStoreTable(identifier);
        } catch (ValidationException e) {
            // not a data table, or missing: Paimon says what is wrong
            super.alterTable(identifier, changes, ignoreIfNotExists);
            return;
        }
        boolean enabledBefore = LakeStreamEnablement.isEnabled(table.options());
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
        String enabledValue = newOptions.get(LakeStreamOptions.ENABLED.key());
        boolean turnsOn = enabledValue != null && Boolean.parseBoolean(enabledValue);
        turnsOff |= enabledValue != null && !Boolean.parseBoolean(enabledValue);
        boolean enabledAfter = turnsOn || (enabledBefore && !turnsOff);
        if (enabledAfter && !schemaChanges.isEmpty()) {
            throw new ValidationException(
                    String.format(
                            "Table %s is in lake-stream mode: its stream table must keep the "
                                    + "table's columns, so %s is refused. Disable lake-stream mode "
                                    + "('%s' = 'false'), change the schema, and enable it again.",
                            identifier.getFullName(),
                            describe(schemaChanges.get(0)),
                            LakeStreamOptions.ENABLED.key()));
        }
        if (enabledAfter && newOptions.containsKey(CoreOptions.BUCKET.key())) {
            throw new ValidationException(
                    String.format(
                            "Table %s is in lake-stream mode: changing '%s' would break the bucket "
                                    + "alignment with its stream table. Disable lake-stream mode "
                                    + "first.",
                            identifier.getFullName(), CoreOptions.BUCKET.key()));
        }
        if (turnsOn && !enabledBefore) {
            // create the stream table and record its start before the option is written
            Map<String, String> others = new HashMap<>(newOptions);
            others.remove(LakeStreamOptions.ENABLED.key());
            FileStoreTable next = table.copy(others);
            enablement.provisionAndRecordStart(identifier, next);
        }
        super.alterTable(identifier, changes, ignoreIfNotExists);
    }

    private static String describe(SchemaChange change) {
        String name = change.getClass().getSimpleName();
        // AddColumn -> "add column"
        return name.replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase();
    }

    @Override
    public void dropTable(Identifier identifier, boolean ignoreIfNotExists)
            throws TableNotExistException {
        FileStoreTable enabled = enabledTable(identifier);
        super.dropTable(identifier, ignoreIfNotExists);
        if (enabled != null) {
            try (StreamStore store = enablement.openStore(enabled.options())) {
                store.drop(identifier);
            }
        }
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
