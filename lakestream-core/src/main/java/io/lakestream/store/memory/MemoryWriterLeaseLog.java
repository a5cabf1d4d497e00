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

import io.lakestream.store.WriterLeaseEntry;
import io.lakestream.store.WriterLeaseLog;

import java.util.List;

/** The writer leases of a {@link MemoryStreamTable}, in the order they were appended. */
final class MemoryWriterLeaseLog implements WriterLeaseLog {

    private final MemoryStreamTable table;
    private int read;

    MemoryWriterLeaseLog(MemoryStreamTable table) {
        this.table = table;
    }

    @Override
    public void append(String owner, String description) {
        table.addLease(new WriterLeaseEntry(owner, description, System.currentTimeMillis()));
    }

    @Override
    public void release(String owner, String description) {
        table.addLease(new WriterLeaseEntry(owner, description, System.currentTimeMillis(), true));
    }

    @Override
    public List<WriterLeaseEntry> readNew() {
        List<WriterLeaseEntry> entries = table.leasesFrom(read);
        read += entries.size();
        return entries;
    }

    @Override
    public String resumableId() {
        // the registry gives a table created again under the same name another id, and the
        // instance tells apart tables of two registries (a test's processes in one JVM)
        return "memory:" + table.name + "#" + table.id + "@" + table.instanceId;
    }

    @Override
    public long position() {
        return read;
    }

    @Override
    public void seek(long position) {
        read = Math.toIntExact(position);
    }

    @Override
    public void close() {}
}
