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

package io.lakestream.table;

import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Tests for {@link StreamTableCache}: what planning takes without asking the store. */
class StreamTableCacheTest {

    private final StreamTableCache cache = new StreamTableCache();
    private final AtomicInteger lookUps = new AtomicInteger();

    private static StreamTableSpec spec(String table, String... columns) {
        org.apache.paimon.types.DataType[] types =
                new org.apache.paimon.types.DataType[columns.length];
        for (int i = 0; i < columns.length; i++) {
            types[i] = DataTypes.INT().notNull();
        }
        return new StreamTableSpec(
                Identifier.create("db", table),
                RowType.of(types, columns),
                Collections.emptyList(),
                Collections.singletonList(columns[0]),
                Collections.emptyList(),
                2);
    }

    private Supplier<StreamTable> store(StreamTableSpec spec) {
        return () ->
                new StreamTable(
                        spec, "db." + spec.identifier().getObjectName(), lookUps.incrementAndGet());
    }

    private static Map<String, String> servers(String servers) {
        Map<String, String> options = new HashMap<>();
        options.put("lake-stream.fluss.bootstrap.servers", servers);
        return options;
    }

    @Test
    void aKnownStreamTableIsTakenWithoutAskingTheStore() {
        StreamTableSpec spec = spec("t", "id");
        StreamTable first = cache.get(spec, servers("a:1"), store(spec));
        StreamTable second = cache.get(spec, servers("a:1"), store(spec));
        StreamTable third = cache.get(spec, servers("a:1"), store(spec));
        assertThat(second).isSameAs(first).isSameAs(third);
        assertThat(lookUps).hasValue(1);
    }

    @Test
    void anotherSchemaOrStoreIsLookedUpAgain() {
        StreamTableSpec spec = spec("t", "id");
        StreamTableSpec widened = spec("t", "id", "added");
        cache.get(spec, servers("a:1"), store(spec));
        assertThat(cache.get(widened, servers("a:1"), store(widened)).spec()).isEqualTo(widened);
        cache.get(spec, servers("b:1"), store(spec));
        assertThat(lookUps).hasValue(3);
    }

    @Test
    void aForgottenTableIsLookedUpAgainAndOthersAreKept() {
        StreamTableSpec t = spec("t", "id");
        StreamTableSpec u = spec("u", "id");
        StreamTable before = cache.get(t, servers("a:1"), store(t));
        cache.get(u, servers("a:1"), store(u));

        // dropped, disabled or altered: it may have another stream table now
        cache.forget(Identifier.create("db", "t"));

        StreamTable after = cache.get(t, servers("a:1"), store(t));
        assertThat(after.storeTableId()).isNotEqualTo(before.storeTableId());
        cache.get(u, servers("a:1"), store(u));
        assertThat(lookUps).hasValue(3);
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void aBranchOfATableIsForgottenWithIt() {
        StreamTableSpec branch =
                new StreamTableSpec(
                        Identifier.fromString("db.t$branch_b1"),
                        spec("t", "id").rowType(),
                        Collections.emptyList(),
                        Collections.singletonList("id"),
                        Collections.emptyList(),
                        2);
        cache.get(branch, servers("a:1"), store(branch));
        cache.forget(Identifier.create("db", "t"));
        assertThat(cache.size()).isZero();
    }
}
