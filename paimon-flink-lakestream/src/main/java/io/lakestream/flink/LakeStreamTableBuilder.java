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

package io.lakestream.flink;

import io.lakestream.LakeStreamOptions;
import io.lakestream.StatementErrors;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.table.LakeStreamEnablement;
import io.lakestream.table.OptionValues;
import io.lakestream.table.StreamTableLookup;

import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.PublicEvolving;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.Map;

/**
 * What the builders of the lake-stream sink and source share: the Paimon table, options that win
 * over the table's own, the check that the table is in lake-stream mode, and the look-up of its
 * stream table, which fails the job's construction rather than its tasks.
 *
 * @param <B> the concrete builder
 */
@PublicEvolving
public abstract class LakeStreamTableBuilder<B extends LakeStreamTableBuilder<B>> {

    protected FileStoreTable table;
    protected final Map<String, String> options = new HashMap<>();
    @Nullable protected StreamTable knownStreamTable;

    protected LakeStreamTableBuilder() {}

    /** The Paimon table. This is a required parameter. */
    public B setTable(FileStoreTable table) {
        this.table = table;
        return self();
    }

    /**
     * A lake-stream option, for example {@code lake-stream.fluss.bootstrap.servers}, or for the
     * source a Paimon read option such as {@code scan.snapshot-id}. Options given here win over the
     * table's own; store secrets belong here rather than in table options.
     */
    public B setOption(String key, String value) {
        options.put(key, value);
        return self();
    }

    public B setOptions(Map<String, String> options) {
        this.options.putAll(options);
        return self();
    }

    /**
     * The table's stream table, when the caller has looked it up already (the {@code
     * paimon-lakestream} catalog keeps the ones it knows): building then asks the store for
     * nothing. One of another spec than the table's (another schema or owner) is ignored, and the
     * stream table is looked up in the store.
     */
    public B setStreamTable(StreamTable streamTable) {
        this.knownStreamTable = streamTable;
        return self();
    }

    protected abstract B self();

    /**
     * The table, checked to be given and in lake-stream mode.
     *
     * @param remedy what to do instead when it is not, appended to the error
     */
    protected FileStoreTable enabledTable(String remedy) {
        if (table == null) {
            throw new IllegalArgumentException("Table is required but not provided.");
        }
        LakeStreamEnablement.checkInLakeStreamMode(
                table,
                String.format("set '%s' = 'true' on it", LakeStreamOptions.ENABLED.key()),
                remedy);
        return table;
    }

    /**
     * The table's options with the {@code lake-stream.*} ones given here on top; a value its option
     * cannot read is refused naming the table, the option and the value.
     */
    protected Map<String, String> mergedOptions() {
        Map<String, String> merged = LakeStreamOptions.forTable(table.options(), options);
        OptionValues.refuseUnreadable(table.fullName(), merged, IllegalArgumentException::new);
        return merged;
    }

    /**
     * The existing stream table of {@code spec}, in the store that {@code storeOptions} name: the
     * one {@link #setStreamTable given} if it is of {@code spec}, else the store's.
     */
    protected StreamTable streamTable(StreamTableSpec spec, Map<String, String> storeOptions) {
        if (knownStreamTable != null && knownStreamTable.spec().equals(spec)) {
            return knownStreamTable;
        }
        return lookUpStreamTable(spec, storeOptions);
    }

    /**
     * The existing stream table of {@code spec}, in the store that {@code storeOptions} name; for a
     * {@link StreamStore#isProcessLocal() process-local} store, the one of this process,
     * provisioned when the process has none yet.
     *
     * @throws StreamStoreException naming the table, as the root of its chain (see {@link
     *     StatementErrors}), when the store cannot be opened or reached or has no such stream table
     */
    public static StreamTable lookUpStreamTable(
            StreamTableSpec spec, Map<String, String> storeOptions) {
        try (StreamTableLookup.Connected connected =
                StreamTableLookup.open(
                        spec, storeOptions, LakeStreamTableBuilder.class.getClassLoader())) {
            return connected.table();
        }
    }
}
