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

package io.lakestream.store.memory;

import io.lakestream.store.StreamTable;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * The memory stream tables of this process, by store name, and the bytes they hold. Every memory
 * store of the process is a view of this one registry, so that the sink, the source and the catalog
 * of one process see the same tables, whichever store instance they opened.
 */
final class MemoryStreamTables {

    static final MemoryStreamTables PROCESS = new MemoryStreamTables();

    final MemoryBudget budget = new MemoryBudget(this::evictCommitted);

    private final Map<String, MemoryStreamTable> tables = new HashMap<>();

    /** Ids of tables dropped in this process: handles that carry one are refused. */
    private final Set<Long> droppedIds = new HashSet<>();

    @Nullable
    synchronized MemoryStreamTable get(String name) {
        return tables.get(name);
    }

    /** The table of {@code name}, created with {@code create} (given a new id) when absent. */
    synchronized MemoryStreamTable getOrCreate(
            String name, Function<Long, MemoryStreamTable> create) {
        return tables.computeIfAbsent(name, n -> create.apply(newId()));
    }

    /**
     * The table of a handle. A handle of a table this process does not know (its stream table was
     * provisioned in the process that planned the job) registers it under the handle's id; one of a
     * table dropped in this process, or of an earlier incarnation, is null.
     */
    @Nullable
    synchronized MemoryStreamTable ofHandle(StreamTable handle) {
        MemoryStreamTable table = tables.get(handle.storeTableName());
        if (table == null && !droppedIds.contains(handle.storeTableId())) {
            table =
                    new MemoryStreamTable(
                            handle.storeTableName(), handle.storeTableId(), handle.spec());
            tables.put(handle.storeTableName(), table);
        }
        return table == null || table.id != handle.storeTableId() ? null : table;
    }

    @Nullable
    synchronized MemoryStreamTable remove(String name) {
        MemoryStreamTable table = tables.remove(name);
        if (table != null) {
            droppedIds.add(table.id);
        }
        return table;
    }

    /**
     * Evicts, from every table, the committed records that no reader pins; returns their bytes. All
     * of them at once: this runs only when a write found no room, and a pass costs a look at every
     * log.
     */
    private long evictCommitted() {
        List<MemoryStreamTable> all;
        synchronized (this) {
            all = new ArrayList<>(tables.values());
        }
        long freed = 0;
        for (MemoryStreamTable table : all) {
            freed += table.evictCommitted();
        }
        return freed;
    }

    /** Every table of the process, for tests that start the process anew. */
    synchronized void clear() {
        for (MemoryStreamTable table : tables.values()) {
            budget.release(table.dropAll());
        }
        tables.clear();
    }

    private long newId() {
        long id;
        do {
            // random rather than counted: a table of a restarted process must not take the id
            // of one of the process before, whose handles live on in restored jobs
            id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        } while (droppedIds.contains(id));
        return id;
    }
}
