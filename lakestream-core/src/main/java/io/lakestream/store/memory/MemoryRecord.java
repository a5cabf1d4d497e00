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

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

/**
 * One record of a {@link MemoryLog} as a reader gets it: the row as its writer encoded it (a view
 * of the log's bytes), with the row type the writer was planned with (readers of another schema
 * convert it by field id), its kind and its append time.
 */
final class MemoryRecord {

    /**
     * What the budget counts for a record beside its row's bytes: its kind, time and the slots that
     * hold them, with room to spare (the count a limit was set by, when a record was an object of
     * its own with its own row).
     */
    static final int OVERHEAD_BYTES = 64;

    final RowKind kind;
    final BinaryRow row;
    final RowType writtenType;
    final long timestamp;

    MemoryRecord(RowKind kind, BinaryRow row, RowType writtenType, long timestamp) {
        this.kind = kind;
        this.row = row;
        this.writtenType = writtenType;
        this.timestamp = timestamp;
    }
}
