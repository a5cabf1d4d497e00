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

package io.lakestream.read;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.mergetree.compact.DeduplicateMergeFunction;
import org.apache.paimon.mergetree.compact.PartialUpdateMergeFunction;
import org.apache.paimon.options.Options;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.UserDefinedSeqComparator;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Merging a partition-bucket's store changes into its lake rows with Paimon's merge functions. */
class BucketMergeTest {

    private static final RowType TYPE =
            RowType.of(
                    new org.apache.paimon.types.DataType[] {
                        DataTypes.INT().notNull(), DataTypes.BIGINT(), DataTypes.STRING()
                    },
                    new String[] {"id", "v", "name"});

    private static GenericRow row(RowKind kind, int id, Long v, String name) {
        return GenericRow.ofKind(kind, id, v, name == null ? null : BinaryString.fromString(name));
    }

    private static String render(InternalRow row) {
        return row == null
                ? "gone"
                : row.getRowKind().shortString()
                        + row.getInt(0)
                        + "|"
                        + (row.isNullAt(1) ? "null" : row.getLong(1))
                        + "|"
                        + (row.isNullAt(2) ? "null" : row.getString(2));
    }

    private static List<String> renderAll(Iterator<InternalRow> rows) {
        List<String> out = new ArrayList<>();
        rows.forEachRemaining(r -> out.add(render(r)));
        return out;
    }

    @Test
    void deduplicateKeepsTheLastChangeAndDropsDeletedKeys() {
        BucketMerge merge =
                new BucketMerge(
                        TYPE,
                        Collections.singletonList("id"),
                        DeduplicateMergeFunction.factory(new Options()).create(),
                        null);
        merge.addChange(row(RowKind.UPDATE_BEFORE, 1, 10L, "a"));
        merge.addChange(row(RowKind.UPDATE_AFTER, 1, 11L, "b"));
        merge.addChange(row(RowKind.DELETE, 2, 20L, "a"));
        merge.addChange(row(RowKind.INSERT, 3, 30L, "new"));
        merge.addChange(row(RowKind.INSERT, 4, 40L, "new"));
        merge.addChange(row(RowKind.DELETE, 4, 40L, "new"));

        assertThat(render(merge.mergeLake(row(RowKind.INSERT, 1, 10L, "a")))).isEqualTo("+I1|11|b");
        assertThat(render(merge.mergeLake(row(RowKind.INSERT, 2, 20L, "a")))).isEqualTo("gone");
        assertThat(render(merge.mergeLake(row(RowKind.INSERT, 5, 50L, "a"))))
                .as("a lake row without changes")
                .isEqualTo("+I5|50|a");
        assertThat(renderAll(merge.remaining()))
                .as("keys only the store has; one inserted and deleted again")
                .containsExactly("+I3|30|new");
        assertThat(merge.hasChanges()).isFalse();
    }

    @Test
    void partialUpdateKeepsTheCommittedValueWhereAChangeHasNull() {
        BucketMerge merge =
                new BucketMerge(
                        TYPE,
                        Collections.singletonList("id"),
                        PartialUpdateMergeFunction.factory(
                                        new Options(), TYPE, Collections.singletonList("id"))
                                .create(),
                        null);
        merge.addChange(row(RowKind.INSERT, 1, 99L, null));
        merge.addChange(row(RowKind.INSERT, 2, null, "x"));
        merge.addChange(row(RowKind.INSERT, 2, 7L, null));

        assertThat(render(merge.mergeLake(row(RowKind.INSERT, 1, 10L, "a")))).isEqualTo("+I1|99|a");
        assertThat(renderAll(merge.remaining())).containsExactly("+I2|7|x");
    }

    @Test
    void aSequenceFieldOrdersTheChangesBeforeTheMerge() {
        Options options = new Options();
        options.set("sequence.field", "v");
        BucketMerge merge =
                new BucketMerge(
                        TYPE,
                        Collections.singletonList("id"),
                        DeduplicateMergeFunction.factory(options).create(),
                        UserDefinedSeqComparator.create(TYPE, new CoreOptions(options)));
        // written later, but older by the sequence field: the committed row stays
        merge.addChange(row(RowKind.INSERT, 1, 5L, "older"));
        // out of order among themselves: the highest sequence wins, not the last written
        merge.addChange(row(RowKind.INSERT, 2, 30L, "newest"));
        merge.addChange(row(RowKind.INSERT, 2, 25L, "newer"));

        assertThat(render(merge.mergeLake(row(RowKind.INSERT, 1, 10L, "committed"))))
                .isEqualTo("+I1|10|committed");
        assertThat(render(merge.mergeLake(row(RowKind.INSERT, 2, 20L, "committed"))))
                .isEqualTo("+I2|30|newest");
    }
}
