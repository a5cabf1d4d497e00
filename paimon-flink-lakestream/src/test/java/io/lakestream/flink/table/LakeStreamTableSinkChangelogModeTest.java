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

import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.flink.sink.FlinkTableSink;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lake-stream table sink asks the planner for exactly the changelog mode that Paimon's own
 * table sink asks for, table by table: a partial-update table without aggregate functions drops
 * {@code -U} as Paimon's sink does, and {@code 'changelog-producer' = 'input'} keeps it, so that
 * the changelog files Paimon commits hold every {@code -U}.
 */
class LakeStreamTableSinkChangelogModeTest {

    @TempDir Path warehouse;

    private static final ObjectIdentifier IDENTIFIER = ObjectIdentifier.of("lake", "db", "t");

    @ParameterizedTest(name = "{0}, {1}, primary key {2}, aggregate {3}")
    @CsvSource({
        "deduplicate, none, true, false",
        "deduplicate, input, true, false",
        "deduplicate, lookup, true, false",
        "deduplicate, full-compaction, true, false",
        "partial-update, none, true, false",
        "partial-update, input, true, false",
        "partial-update, lookup, true, true",
        "aggregation, none, true, false",
        "aggregation, input, true, false",
        "first-row, lookup, true, false",
        "deduplicate, none, false, false",
    })
    void asksForPaimonsOwnChangelogMode(
            String engine, String producer, boolean primaryKey, boolean aggregate)
            throws Exception {
        Schema.Builder schema =
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("v", DataTypes.BIGINT())
                        .column("g", DataTypes.BIGINT())
                        .option("bucket", "2")
                        .option("changelog-producer", producer);
        if (primaryKey) {
            schema.primaryKey("id").option("merge-engine", engine);
        } else {
            schema.option("bucket-key", "id");
        }
        if (aggregate) {
            // partial-update takes aggregate functions within a sequence group only
            schema.option("fields.v.aggregate-function", "sum")
                    .option("fields.g.sequence-group", "v");
        }
        FileStoreTable table =
                LocalPaimonTables.create(
                        warehouse,
                        engine.replace('-', '_') + "_" + producer.replace('-', '_'),
                        schema.build());

        ChangelogMode all = ChangelogMode.all();
        ChangelogMode ours =
                new LakeStreamTableSink(IDENTIFIER, table, java.util.Map.of(), () -> null, () -> {})
                        .getChangelogMode(all);

        assertThat(ours.getContainedKinds())
                .isEqualTo(
                        new FlinkTableSink(IDENTIFIER, table, null, null)
                                .getChangelogMode(all)
                                .getContainedKinds());
        boolean keepsUpdateBefore =
                !primaryKey
                        || producer.equals("input")
                        || engine.equals("aggregation")
                        || (engine.equals("partial-update") && aggregate);
        assertThat(ours.contains(RowKind.UPDATE_BEFORE)).isEqualTo(keepsUpdateBefore);
    }
}
