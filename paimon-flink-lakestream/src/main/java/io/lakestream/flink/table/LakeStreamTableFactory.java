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

import io.lakestream.flink.LakeStreamOptions;
import io.lakestream.flink.catalog.LakeStreamEnablement;

import org.apache.paimon.flink.DataCatalogTable;
import org.apache.paimon.flink.FlinkCatalog;
import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.flink.FlinkTableFactory;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;

import java.util.Map;

/**
 * The table factory of the {@code paimon-lakestream} catalog: a table in lake-stream mode gets the
 * hybrid source and the dual-write sink, every other table (and every system table) Paimon's own.
 * The store's options come from the catalog, over the table's own {@code lake-stream.*} options, so
 * that secrets never need to be table options.
 */
@Internal
public class LakeStreamTableFactory extends FlinkTableFactory {

    private final Map<String, String> catalogOptions;

    public LakeStreamTableFactory(FlinkCatalog catalog, Map<String, String> catalogOptions) {
        super(catalog);
        this.catalogOptions = catalogOptions;
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
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
        // Paimon's own source of the same table serves lookup joins: it reads committed data
        LookupTableSource committedLookup =
                (LookupTableSource) super.createDynamicTableSource(context);
        return new LakeStreamTableSource(
                context.getObjectIdentifier(),
                table,
                storeOptions(table),
                unbounded,
                committedLookup);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FileStoreTable table = enabledTable(context);
        if (table == null) {
            return super.createDynamicTableSink(context);
        }
        return new LakeStreamTableSink(context.getObjectIdentifier(), table, storeOptions(table));
    }

    /** The Paimon table with the query's options (hints included) if it is enabled, else null. */
    private static FileStoreTable enabledTable(Context context) {
        CatalogTable origin = context.getCatalogTable().getOrigin();
        Map<String, String> options = context.getCatalogTable().getOptions();
        if (!(origin instanceof DataCatalogTable)
                || !(((DataCatalogTable) origin).table() instanceof FileStoreTable)
                || !LakeStreamEnablement.isEnabled(options)) {
            return null;
        }
        return ((FileStoreTable) ((DataCatalogTable) origin).table())
                .copyWithoutTimeTravel(options);
    }

    private Map<String, String> storeOptions(FileStoreTable table) {
        return LakeStreamOptions.forTable(table.options(), catalogOptions);
    }
}
