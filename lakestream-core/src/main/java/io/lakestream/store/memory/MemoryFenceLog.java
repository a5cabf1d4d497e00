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

import io.lakestream.offsets.AbortedRange;
import io.lakestream.store.FenceLog;

import java.util.List;

/** The fences of a {@link MemoryStreamTable}: visible to every reader of the process at once. */
final class MemoryFenceLog implements FenceLog {

    private final MemoryStreamTable table;
    private int read;

    MemoryFenceLog(MemoryStreamTable table) {
        this.table = table;
    }

    @Override
    public void recordAll(List<AbortedRange> ranges) {
        table.addFences(ranges);
    }

    @Override
    public List<AbortedRange> readNew() {
        List<AbortedRange> fences = table.fencesFrom(read);
        read += fences.size();
        return fences;
    }

    @Override
    public void close() {}
}
