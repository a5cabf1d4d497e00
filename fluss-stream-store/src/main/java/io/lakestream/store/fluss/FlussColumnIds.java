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

import org.apache.paimon.types.DataField;

import org.apache.fluss.metadata.Schema;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which Paimon field each column of a stream table holds, by Paimon field id (Paimon's schema is
 * the truth, and a field keeps its id through renames, moves and type changes; a field dropped and
 * added again under the same name gets a new id). A column records its field id in its Fluss
 * comment, written when the column is created, so that the id and the column come into being in one
 * step. Stream tables created before columns recorded ids have columns without such a comment:
 * those are matched by name once, against the Paimon schema of the first job that looks the table
 * up, and the match is pinned as custom properties of the stream table ({@link #unpinned}), since
 * Fluss 0.9 cannot change a column's comment. Fluss cannot rename or drop columns either, which is
 * why the mapping is needed at all: a column keeps its first name for ever.
 */
final class FlussColumnIds {

    /** In {@link #of}: the column holds no field of the Paimon table (or the row kind). */
    static final int NONE = -1;

    /** The comment of a column that holds Paimon field {@code <id>}: this prefix, then the id. */
    static final String COMMENT_PREFIX = "Paimon field id ";

    /** The custom property that pins the field id of a column without a comment: prefix, name. */
    static final String PROPERTY_PREFIX = "lake-stream.field-id.";

    private FlussColumnIds() {}

    /** The comment of a column that holds Paimon field {@code fieldId}. */
    static String comment(int fieldId) {
        return COMMENT_PREFIX + fieldId;
    }

    /**
     * The Paimon field id that each of {@code columns} holds, in column order; {@link #NONE} for
     * the row-kind column and for columns of fields that {@code spec} does not know by id or name.
     */
    static int[] of(
            StreamTableSpec spec, List<Schema.Column> columns, Map<String, String> properties) {
        int[] ids = new int[columns.size()];
        for (int position = 0; position < columns.size(); position++) {
            ids[position] = idOf(spec, columns.get(position), properties);
        }
        return ids;
    }

    /**
     * The custom properties that pin, by the names of {@code spec}, the field ids of columns that
     * record none yet; empty when every column records one (every stream table created since).
     */
    static Map<String, String> unpinned(
            StreamTableSpec spec, List<Schema.Column> columns, Map<String, String> properties) {
        Map<String, String> pins = new HashMap<>();
        for (Schema.Column column : columns) {
            if (recorded(column, properties).isPresent()) {
                continue;
            }
            byName(spec, column.getName())
                    .ifPresent(id -> pins.put(PROPERTY_PREFIX + column.getName(), "" + id));
        }
        return pins;
    }

    private static int idOf(
            StreamTableSpec spec, Schema.Column column, Map<String, String> properties) {
        if (FlussStreamTableLayout.ROW_KIND_COLUMN.equals(column.getName())
                && spec.hasPrimaryKey()) {
            return NONE;
        }
        return recorded(column, properties)
                .orElseGet(() -> byName(spec, column.getName()).orElse(NONE));
    }

    /** The id the column's comment or a pinning property records. */
    private static Optional<Integer> recorded(
            Schema.Column column, Map<String, String> properties) {
        Optional<String> comment = column.getComment();
        if (comment.isPresent() && comment.get().startsWith(COMMENT_PREFIX)) {
            return Optional.of(Integer.parseInt(comment.get().substring(COMMENT_PREFIX.length())));
        }
        String pinned = properties.get(PROPERTY_PREFIX + column.getName());
        return pinned == null ? Optional.empty() : Optional.of(Integer.parseInt(pinned));
    }

    private static Optional<Integer> byName(StreamTableSpec spec, String name) {
        for (DataField field : spec.rowType().getFields()) {
            if (field.name().equals(name)) {
                return Optional.of(field.id());
            }
        }
        return Optional.empty();
    }
}
