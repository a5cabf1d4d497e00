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

package io.lakestream.flink.table;

import io.lakestream.LakeStreamOptions;
import io.lakestream.StatementErrors;
import io.lakestream.flink.LakeStreamTableBuilder;
import io.lakestream.flink.source.CommittedSnapshotReads;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.table.CredentialOptions;
import io.lakestream.table.LakeStreamEnablement;
import io.lakestream.table.MainBranchOnly;
import io.lakestream.table.OptionValues;
import io.lakestream.table.StreamTableCache;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.flink.DataCatalogTable;
import org.apache.paimon.flink.FlinkCatalog;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.flink.FlinkTableFactory;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The table factory of the {@code paimon-lakestream} catalog: a table in lake-stream mode gets the
 * hybrid source and the dual-write sink, every other table (and every system table) Paimon's own. A
 * read of such a table whose options bound it by committed snapshots ({@link
 * CommittedSnapshotReads}) gets Paimon's own source too. The store's options come from the catalog,
 * over the table's own {@code lake-stream.*} options, so that secrets never need to be table
 * options.
 */
@Internal
public class LakeStreamTableFactory extends FlinkTableFactory {

    private static final Logger LOG = LoggerFactory.getLogger(LakeStreamTableFactory.class);

    private final Map<String, String> catalogOptions;
    @Nullable private final StreamTableCache streamTables;
    private final BiConsumer<Identifier, FileStoreTable> afterTruncate;

    public LakeStreamTableFactory(FlinkCatalog catalog, Map<String, String> catalogOptions) {
        this(catalog, catalogOptions, null, (identifier, table) -> {});
    }

    /**
     * @param streamTables the stream tables the catalog knows, taken by planning instead of asking
     *     the store; null to ask the store every time
     * @param afterTruncate what the catalog does after a {@code TRUNCATE TABLE} of a table in
     *     lake-stream mode, as after a drop of all its partitions
     */
    public LakeStreamTableFactory(
            FlinkCatalog catalog,
            Map<String, String> catalogOptions,
            @Nullable StreamTableCache streamTables,
            BiConsumer<Identifier, FileStoreTable> afterTruncate) {
        super(catalog);
        this.catalogOptions = catalogOptions;
        this.streamTables = streamTables;
        this.afterTruncate = afterTruncate;
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        refuseCredentialHints(context);
        FileStoreTable table = enabledTable(context);
        if (table == null) {
            return super.createDynamicTableSource(context);
        }
        boolean unbounded =
                context.getConfiguration().get(ExecutionOptions.RUNTIME_MODE)
                                == RuntimeExecutionMode.STREAMING
                        && !Boolean.parseBoolean(
                                table.options()
                                        .getOrDefault(
                                                FlinkConnectorOptions.SCAN_BOUNDED.key(), "false"));
        if (readsCommittedSnapshots(context, table, !unbounded)) {
            return super.createDynamicTableSource(context);
        }
        // Paimon's own source of the same table serves lookup joins: it reads committed data
        LookupTableSource committedLookup =
                (LookupTableSource) super.createDynamicTableSource(context);
        Map<String, String> storeOptions = storeOptions(context, table);
        return new LakeStreamTableSource(
                context.getObjectIdentifier(),
                table,
                storeOptions,
                knownStreamTable(table, storeOptions),
                unbounded,
                committedLookup);
    }

    /**
     * Whether the statement's read is one of committed snapshots only ({@link
     * CommittedSnapshotReads}): Paimon's own source then serves it, with Paimon's planning,
     * changelog mode, push-downs and errors.
     */
    private static boolean readsCommittedSnapshots(
            Context context, FileStoreTable table, boolean bounded) {
        String name = context.getObjectIdentifier().asSummaryString();
        Optional<String> option;
        try {
            option = CommittedSnapshotReads.optionOf(name, table.options(), bounded);
        } catch (IllegalArgumentException e) {
            throw StatementErrors.rootOf(ValidationException::new, e.getMessage(), null);
        }
        option.ifPresent(
                o ->
                        LOG.info(
                                "Table {} is read with {}: Paimon's own source reads its committed "
                                        + "snapshots, without the stream store.",
                                name,
                                o));
        return option.isPresent();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        refuseCredentialHints(context);
        refuseDisablingHint(context);
        FileStoreTable table = enabledTable(context);
        if (table == null) {
            return super.createDynamicTableSink(context);
        }
        Map<String, String> storeOptions = storeOptions(context, table);
        Identifier identifier = Identifier.fromString(table.fullName());
        return new LakeStreamTableSink(
                context.getObjectIdentifier(),
                table,
                storeOptions,
                knownStreamTable(table, storeOptions),
                () -> afterTruncate.accept(identifier, table));
    }

    /**
     * The stream table of {@code table} from the catalog's cache, looked up in the store the first
     * time: when the source or sink is built, not before (a lookup join needs no stream table).
     */
    private Supplier<StreamTable> knownStreamTable(
            FileStoreTable table, Map<String, String> storeOptions) {
        if (streamTables == null) {
            return () -> null;
        }
        return () -> {
            // the spec the builders derive: a different one makes them look it up themselves
            StreamTableSpec spec =
                    StreamTableSpec.of(Identifier.fromString(table.fullName()), table);
            return streamTables.get(
                    spec,
                    storeOptions,
                    () -> LakeStreamTableBuilder.lookUpStreamTable(spec, storeOptions));
        };
    }

    /**
     * Refuses a credential given in a hint or set in the session ({@link CredentialOptions}): the
     * options that differ from the table's own are the hint's. A credential already stored in a
     * table's options (from a version that took them) is read as before.
     */
    private static void refuseCredentialHints(Context context) {
        String table = context.getObjectIdentifier().asSummaryString();
        CredentialOptions.refuse(
                table,
                new ArrayList<>(hints(context).keySet()),
                "in a hint",
                ValidationException::new);
        CredentialOptions.refuse(
                table,
                new ArrayList<>(SessionOptions.of(context).keySet()),
                "with SET",
                ValidationException::new);
    }

    /** The options of the table as the catalog stores it, without the statement's hints. */
    private static Map<String, String> storedOptions(Context context) {
        CatalogTable origin = context.getCatalogTable().getOrigin();
        // a hinted table's origin carries the merged options too; its Paimon table has its own
        return origin instanceof DataCatalogTable
                ? ((DataCatalogTable) origin).table().options()
                : Map.of();
    }

    /**
     * The table's options for the statement: its stored options, the hints and what the session
     * sets ({@link SessionOptions}). A hint beats the session's setting of a {@code lake-stream.*}
     * option; the session's setting of one of Paimon's options beats a hint, as in Paimon's own
     * table factory, so that a table reads and writes with the same Paimon options whether or not
     * it is in lake-stream mode.
     */
    private static Map<String, String> statementOptions(Context context) {
        Map<String, String> options = new HashMap<>(context.getCatalogTable().getOptions());
        Map<String, String> hints = hints(context);
        SessionOptions.of(context)
                .forEach(
                        (key, value) -> {
                            if (!key.startsWith(LakeStreamOptions.PREFIX)
                                    || !hints.containsKey(key)) {
                                options.put(key, value);
                            }
                        });
        return options;
    }

    /** The statement's hints: the options that differ from the table's stored ones. */
    private static Map<String, String> hints(Context context) {
        Map<String, String> stored = storedOptions(context);
        Map<String, String> hints = new HashMap<>();
        context.getCatalogTable()
                .getOptions()
                .forEach(
                        (key, value) -> {
                            if (!value.equals(stored.get(key))) {
                                hints.put(key, value);
                            }
                        });
        return hints;
    }

    /**
     * Refuses a write into a table in lake-stream mode whose dynamic options (a {@code /*+
     * OPTIONS(...) *}{@code /} hint) switch the mode off: such a write would commit rows that name
     * no stream offsets through the catalog that promises lake-stream mode. Readers follow such
     * commits (see docs/consistency.md, "Commits of other writers"), but a hint is no way to leave
     * the mode by accident: the user disables the mode, or writes through Paimon's own catalog
     * knowingly.
     */
    private static void refuseDisablingHint(Context context) {
        CatalogTable origin = context.getCatalogTable().getOrigin();
        Map<String, String> options = statementOptions(context);
        if (!(origin instanceof DataCatalogTable)
                || !LakeStreamEnablement.isEnabled(((DataCatalogTable) origin).table().options())
                || LakeStreamEnablement.isEnabled(options)) {
            return;
        }
        String key = LakeStreamOptions.ENABLED.key();
        throw StatementErrors.rootOf(
                ValidationException::new,
                String.format(
                        "Cannot write table %s with '%s' = '%s' in a hint or a SET: the table is in "
                                + "lake-stream mode, and a write through the paimon-lakestream "
                                + "catalog always writes the stream store too. Remove it; "
                                + "to write without the stream store, disable lake-stream mode "
                                + "(ALTER TABLE ... SET ('%s' = 'false') or CALL "
                                + "sys.disable_lake_stream), or write through Paimon's own "
                                + "catalog ('type' = 'paimon'), whose commits streaming "
                                + "lake-stream reads follow at each commit, not within a second.",
                        context.getObjectIdentifier().asSummaryString(),
                        key,
                        options.get(key),
                        key),
                null);
    }

    /**
     * The Paimon table with the statement's options (hints and the session's included) if it is
     * enabled, else null.
     */
    private static FileStoreTable enabledTable(Context context) {
        CatalogTable origin = context.getCatalogTable().getOrigin();
        Map<String, String> options = statementOptions(context);
        if (!(origin instanceof DataCatalogTable)
                || !(((DataCatalogTable) origin).table() instanceof FileStoreTable)
                || !LakeStreamEnablement.isEnabled(options)) {
            return null;
        }
        FileStoreTable table =
                ((FileStoreTable) ((DataCatalogTable) origin).table())
                        .copyWithoutTimeTravel(options);
        if (MainBranchOnly.isBranch(table)) {
            // it copied the main branch's options but has no stream table of its own
            LOG.info(
                    "Table {} is branch '{}' of a table in lake-stream mode: it is read and "
                            + "written as Paimon's branch, with its committed data.",
                    context.getObjectIdentifier().asSummaryString(),
                    table.coreOptions().branch());
            return null;
        }
        // a caching catalog ('cache-enabled', Paimon's default) may hand out the table as it was
        // before another session turned the mode off: the latest schema decides
        Optional<TableSchema> latest = table.schemaManager().latest();
        if (latest.isPresent()
                && latest.get().id() > table.schema().id()
                && !LakeStreamEnablement.isEnabled(latest.get().options())) {
            return null;
        }
        return table;
    }

    /**
     * The lake-stream options of the statement: the table's, the catalog's over them, the session's
     * over those and the hints over all; a hint or a session's setting that chooses the store is
     * refused naming the table and the options, and so is a value that its option cannot read.
     */
    private Map<String, String> storeOptions(Context context, FileStoreTable table) {
        String name = context.getObjectIdentifier().asSummaryString();
        Map<String, String> options =
                LakeStreamOptions.forStatement(
                        storedOptions(context),
                        catalogOptions,
                        SessionOptions.of(context),
                        hints(context),
                        message ->
                                StatementErrors.rootOf(
                                        ValidationException::new,
                                        "Table " + name + ": " + message,
                                        null));
        OptionValues.refuseUnreadable(name, options, ValidationException::new);
        return options;
    }
}
