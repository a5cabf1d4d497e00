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

import io.lakestream.flink.sink.LakeStreamSink;
import io.lakestream.store.StreamTable;

import org.apache.paimon.flink.FlinkConnectorOptions;
import org.apache.paimon.flink.sink.FlinkSinkBuilder;
import org.apache.paimon.flink.sink.FlinkTableSink;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;

import org.apache.flink.annotation.Internal;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.RowLevelModificationScanContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.table.connector.sink.abilities.SupportsRowLevelDelete;
import org.apache.flink.table.connector.sink.abilities.SupportsRowLevelUpdate;
import org.apache.flink.table.connector.sink.abilities.SupportsTruncate;
import org.apache.flink.table.data.RowData;

import javax.annotation.Nullable;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code INSERT INTO} a table in lake-stream mode: the dual-write sink. An append table takes
 * inserts; a primary-key table takes upserts and deletes, and update-before rows too when its merge
 * engine retracts (aggregation and partial-update), as Paimon's own sink does.
 *
 * <p>{@code DELETE FROM} and {@code UPDATE} (batch) are row-level, as Paimon's sink takes them
 * where it does not push a delete down: the planner reads the rows the statement changes (through
 * the union read, so an uncommitted change is deleted or updated too) and this sink writes their
 * deletes and updates to the stream store and Paimon like any other change, so that a streaming
 * reader of the table receives them in order. Paimon's own rules decide which tables take which
 * statement (primary-key tables; per merge engine) and its refusals are the statement's errors. A
 * delete of every row or of whole partitions is written row by row too, never as Paimon's truncate
 * or partition drop, which streaming readers would pass over.
 *
 * <p>{@code INSERT OVERWRITE} (batch only, as in Paimon) is Paimon's own overwrite and writes
 * nothing to the stream store, as Paimon's log system did: an overwrite replaces partitions
 * atomically at its commit, which records read before it would contradict. Its snapshot records no
 * offsets and so inherits those of the snapshot before it; the stream records already there stay
 * below them, replaced with the rest of the partition.
 *
 * <p>{@code TRUNCATE TABLE} is an overwrite of everything with nothing, and the same: Paimon's own
 * truncate commit (see "Truncate" in docs/consistency.md).
 */
@Internal
public class LakeStreamTableSink
        implements DynamicTableSink,
                SupportsPartitioning,
                SupportsOverwrite,
                SupportsRowLevelDelete,
                SupportsRowLevelUpdate,
                SupportsTruncate {

    private final ObjectIdentifier identifier;
    private final FileStoreTable table;
    private final Map<String, String> storeOptions;

    /** The catalog's stream table of the table, or null: the builder then looks it up. */
    private final Supplier<StreamTable> streamTable;

    /** What the catalog does after a truncate: it drops the stream partitions when it can. */
    private final Runnable afterTruncate;

    private final Map<String, String> staticPartitions = new LinkedHashMap<>();
    private boolean overwrite;

    LakeStreamTableSink(
            ObjectIdentifier identifier,
            FileStoreTable table,
            Map<String, String> storeOptions,
            Supplier<StreamTable> streamTable,
            Runnable afterTruncate) {
        this.identifier = identifier;
        this.table = table;
        this.storeOptions = storeOptions;
        this.streamTable = streamTable;
        this.afterTruncate = afterTruncate;
    }

    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requested) {
        // exactly what Paimon's own sink asks for, by Paimon's own rule (merge engine, aggregate
        // functions, changelog producer, log changelog mode): the rows and kinds that reach
        // Paimon's writer, and so its changelog files and the store, are those of Paimon's sink
        return new FlinkTableSink(identifier, table, null, null).getChangelogMode(requested);
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        Integer parallelism =
                Options.fromMap(table.options()).get(FlinkConnectorOptions.SINK_PARALLELISM);
        if (overwrite) {
            return overwriteProvider(context, parallelism);
        }
        LakeStreamSink.Builder builder =
                LakeStreamSink.builder().setTable(table).setOptions(storeOptions);
        StreamTable known = streamTable.get();
        if (known != null) {
            builder.setStreamTable(known);
        }
        if (parallelism != null) {
            builder.setParallelism(parallelism);
        }
        LakeStreamSink sink = builder.build();
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(
                    ProviderContext providerContext, DataStream<RowData> dataStream) {
                return sink.sinkFrom(dataStream);
            }
        };
    }

    private SinkRuntimeProvider overwriteProvider(Context context, Integer parallelism) {
        if (!context.isBounded()) {
            throw new ValidationException(
                    String.format(
                            "INSERT OVERWRITE into table %s needs a bounded job in batch mode, "
                                    + "as in Paimon: a streaming overwrite is not supported.",
                            identifier.asSummaryString()));
        }
        FileStoreTable table = this.table;
        Map<String, String> partitions = new LinkedHashMap<>(staticPartitions);
        return new DataStreamSinkProvider() {
            @Override
            public DataStreamSink<?> consumeDataStream(
                    ProviderContext providerContext, DataStream<RowData> dataStream) {
                return new FlinkSinkBuilder(table)
                        .forRowData(dataStream)
                        .overwrite(partitions)
                        .parallelism(parallelism)
                        .build();
            }
        };
    }

    /**
     * Paimon's truncate, as Paimon's sink runs it: a snapshot that deletes every file and, naming
     * no offsets, inherits those of the snapshot before it. The uncommitted tail above them is a
     * running writer's, which its next commit adds to Paimon as well. The catalog then follows the
     * truncate as a drop of every partition.
     */
    @Override
    public void executeTruncation() {
        try (BatchTableCommit commit = table.newBatchWriteBuilder().newCommit()) {
            commit.truncateTable();
        } catch (Exception e) {
            throw new TableException(
                    "Cannot truncate table " + identifier.asSummaryString() + ": " + e.getMessage(),
                    e);
        }
        // every partition is gone from Paimon, as after a drop of them all
        afterTruncate.run();
    }

    @Override
    public void applyStaticPartition(Map<String, String> partition) {
        // the planner puts static partition values into the rows themselves; an overwrite needs
        // them to know which partition it replaces
        for (String key : table.partitionKeys()) {
            if (partition.containsKey(key)) {
                staticPartitions.put(key, partition.get(key));
            }
        }
    }

    @Override
    public void applyOverwrite(boolean overwrite) {
        this.overwrite = overwrite;
    }

    /**
     * Row by row, when Paimon's sink of the table takes a delete (its refusal, naming the merge
     * engine or the missing primary key, is the statement's error): the planner then gives this
     * sink the deleted rows as deletes.
     */
    @Override
    public RowLevelDeleteInfo applyRowLevelDelete(
            @Nullable RowLevelModificationScanContext context) {
        RowLevelDeleteInfo paimon;
        try {
            paimon = paimonSink().applyRowLevelDelete(context);
        } catch (UnsupportedOperationException e) {
            throw refused("DELETE FROM", e);
        }
        return paimon;
    }

    /**
     * Row by row, when Paimon's sink of the table takes the update (its refusal is the statement's
     * error): the planner then gives this sink the updated rows.
     */
    @Override
    public RowLevelUpdateInfo applyRowLevelUpdate(
            List<Column> updatedColumns, @Nullable RowLevelModificationScanContext context) {
        try {
            return paimonSink().applyRowLevelUpdate(updatedColumns, context);
        } catch (UnsupportedOperationException e) {
            throw refused("UPDATE", e);
        }
    }

    /** Paimon's own sink of the table: its rules decide which row-level statements it takes. */
    private FlinkTableSink paimonSink() {
        return new FlinkTableSink(identifier, table, null, null);
    }

    private ValidationException refused(String statement, UnsupportedOperationException paimon) {
        return new ValidationException(
                String.format(
                        "%s on table %s is refused, as Paimon refuses it: %s",
                        statement, identifier.asSummaryString(), paimon.getMessage()),
                paimon);
    }

    @Override
    public DynamicTableSink copy() {
        LakeStreamTableSink copy =
                new LakeStreamTableSink(
                        identifier, table, storeOptions, streamTable, afterTruncate);
        copy.staticPartitions.putAll(staticPartitions);
        copy.overwrite = overwrite;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "LakeStreamSink(" + identifier.asSummaryString() + ")";
    }
}
