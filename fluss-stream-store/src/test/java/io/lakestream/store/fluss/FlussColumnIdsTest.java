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

package io.lakestream.store.fluss;

import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.apache.fluss.metadata.Schema;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which Paimon field each column of a stream table holds. */
class FlussColumnIdsTest {

    /** (id, w, v): v dropped and added again (id 3), then the old v (id 1) renamed to w. */
    private static final StreamTableSpec SPEC =
            new StreamTableSpec(
                    Identifier.create("db", "t"),
                    new RowType(
                            Arrays.asList(
                                    new DataField(0, "id", DataTypes.INT().notNull()),
                                    new DataField(1, "w", DataTypes.STRING()),
                                    new DataField(3, "v", DataTypes.STRING()))),
                    Collections.emptyList(),
                    Collections.singletonList("id"),
                    Collections.singletonList("id"),
                    2);

    private static Schema.Column column(String name, String comment) {
        return new Schema.Column(name, org.apache.fluss.types.DataTypes.STRING(), comment);
    }

    @Test
    void aCommentNamesTheFieldWhateverTheColumnIsCalled() {
        List<Schema.Column> columns =
                Arrays.asList(
                        column("id", FlussColumnIds.comment(0)),
                        column("v", FlussColumnIds.comment(1)),
                        column(FlussStreamTableLayout.ROW_KIND_COLUMN, null),
                        column("v_3", FlussColumnIds.comment(3)));
        assertThat(FlussColumnIds.of(SPEC, columns, Collections.emptyMap()))
                .containsExactly(0, 1, FlussColumnIds.NONE, 3);
        assertThat(FlussColumnIds.unpinned(SPEC, columns, Collections.emptyMap())).isEmpty();
    }

    @Test
    void columnsOfAnOlderStreamTableArePinnedByNameOnceAndThenKeepTheirField() {
        List<Schema.Column> legacy =
                Arrays.asList(
                        column("id", null),
                        column("w", null),
                        column(FlussStreamTableLayout.ROW_KIND_COLUMN, null));
        Map<String, String> pins = FlussColumnIds.unpinned(SPEC, legacy, Collections.emptyMap());
        assertThat(pins)
                .containsOnly(
                        Map.entry(FlussColumnIds.PROPERTY_PREFIX + "id", "0"),
                        Map.entry(FlussColumnIds.PROPERTY_PREFIX + "w", "1"));
        // a later schema that renamed w to x still finds field 1 in column w
        StreamTableSpec renamed =
                new StreamTableSpec(
                        SPEC.identifier(),
                        new RowType(
                                Arrays.asList(
                                        new DataField(0, "id", DataTypes.INT().notNull()),
                                        new DataField(1, "x", DataTypes.STRING()))),
                        SPEC.partitionKeys(),
                        SPEC.bucketKeys(),
                        SPEC.primaryKeys(),
                        2);
        Map<String, String> properties = new HashMap<>(pins);
        assertThat(FlussColumnIds.of(renamed, legacy, properties))
                .containsExactly(0, 1, FlussColumnIds.NONE);
        assertThat(FlussColumnIds.unpinned(renamed, legacy, properties)).isEmpty();
    }

    @Test
    void aColumnOfNoKnownFieldHoldsNone() {
        List<Schema.Column> columns = Collections.singletonList(column("gone", null));
        assertThat(FlussColumnIds.of(SPEC, columns, Collections.emptyMap()))
                .containsExactly(FlussColumnIds.NONE);
        assertThat(FlussColumnIds.unpinned(SPEC, columns, Collections.emptyMap())).isEmpty();
    }
}
