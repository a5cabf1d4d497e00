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

import io.lakestream.testutils.Await;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An unbounded query whose changelog is applied, row by row in the order it arrives, to a map from
 * the row's key to the row: what a user's materialized view of the stream holds. Two followers of
 * the same table, one through the lake-stream catalog and one through Paimon's, are equal once
 * everything written is committed.
 */
final class ChangelogFollower implements AutoCloseable {

    private final String query;
    private final TableResult result;
    private final Map<Object, String> state = new ConcurrentHashMap<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private ChangelogFollower(String query, TableResult result, Function<Row, Object> key) {
        this.query = query;
        this.result = result;
        Thread follower =
                new Thread(
                        () -> {
                            try (CloseableIterator<Row> it = result.collect()) {
                                while (it.hasNext()) {
                                    apply(it.next(), key);
                                }
                            } catch (Throwable t) {
                                failure.compareAndSet(null, t);
                            }
                        },
                        "changelog-follower");
        follower.setDaemon(true);
        follower.start();
    }

    /**
     * Starts {@code query} in {@code tEnv}, a streaming environment, keyed by field {@code key}.
     */
    static ChangelogFollower start(TableEnvironment tEnv, String query, int keyField) {
        return start(tEnv, query, row -> row.getField(keyField));
    }

    /** Starts {@code query} in {@code tEnv}, a streaming environment, keyed by {@code key}. */
    static ChangelogFollower start(TableEnvironment tEnv, String query, Function<Row, Object> key) {
        return new ChangelogFollower(query, tEnv.executeSql(query), key);
    }

    private void apply(Row row, Function<Row, Object> keyOf) {
        Object key = keyOf.apply(row);
        if (row.getKind() == RowKind.INSERT || row.getKind() == RowKind.UPDATE_AFTER) {
            Row value = Row.copy(row);
            value.setKind(RowKind.INSERT);
            state.put(key, value.toString());
        } else {
            state.remove(key);
        }
    }

    /** What the changelog holds now, whether or not the read failed: for failure messages. */
    Map<Object, String> heldRows() {
        return new HashMap<>(state);
    }

    /** The rows the changelog holds now, keyed, each rendered as an insert. */
    Map<Object, String> state() {
        if (failure.get() != null) {
            throw new AssertionError("The unbounded read failed: " + query, failure.get());
        }
        return new HashMap<>(state);
    }

    /**
     * Waits until {@code oracle} holds as many rows as {@code committed} (Paimon's batch read of
     * the table, everything committed) and this follower holds what the oracle holds.
     */
    void awaitEqual(ChangelogFollower oracle, List<Row> committed) throws Exception {
        try {
            Await.until(
                    () -> {
                        Map<Object, String> expected = oracle.state();
                        return expected.size() == committed.size() && state().equals(expected);
                    },
                    "the changelog of '" + query + "' applied equals '" + oracle.query + "'");
        } catch (AssertionError | Exception e) {
            throw new AssertionError(
                    String.format(
                            "%s%n  %s: %s%n  %s: %s%n  Paimon's batch read: %s",
                            e.getMessage(),
                            query,
                            new TreeMap<>(state),
                            oracle.query,
                            new TreeMap<>(oracle.state),
                            committed),
                    e);
        }
    }

    /** Asserts that this follower holds {@code rows}, read with the same columns, and no other. */
    void assertHolds(List<Row> rows) {
        List<String> rendered = new ArrayList<>();
        rows.forEach(row -> rendered.add(row.toString()));
        assertThat(state().values()).containsExactlyInAnyOrderElementsOf(rendered);
    }

    @Override
    public void close() throws Exception {
        result.getJobClient().orElseThrow().cancel().get(60, TimeUnit.SECONDS);
    }
}
