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

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReaderIterator;
import org.apache.paimon.table.source.ReadBuilder;

import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CollectionUtil;

import java.util.Map;
import java.util.TreeMap;

/**
 * The rows of a table with columns {@code (k INT, v STRING, n BIGINT)}, key to {@code "v:n"}: as a
 * query returns them, and as Paimon's own read of the table returns them (the oracle).
 */
final class KeyedRows {

    private KeyedRows() {}

    /** The rows {@code query} returns; its first three columns are k, v and n. */
    static Map<Integer, String> ofQuery(TableEnvironment tEnv, String query) {
        Map<Integer, String> rows = new TreeMap<>();
        for (Row row : CollectionUtil.iteratorToList(tEnv.executeSql(query).collect())) {
            rows.put((Integer) row.getField(0), row.getField(1) + ":" + row.getField(2));
        }
        return rows;
    }

    /** Paimon's own read of the latest snapshot of {@code db.<table>}. */
    static Map<Integer, String> ofPaimon(TableEnvironment tEnv, String table) throws Exception {
        ReadBuilder read = LakeSqlEnvironments.paimonTable(tEnv, "db." + table).newReadBuilder();
        Map<Integer, String> rows = new TreeMap<>();
        try (RecordReaderIterator<InternalRow> it =
                new RecordReaderIterator<>(
                        read.newRead().createReader(read.newScan().plan().splits()))) {
            while (it.hasNext()) {
                InternalRow row = it.next();
                rows.put(
                        row.getInt(0),
                        (row.isNullAt(1) ? "null" : row.getString(1).toString())
                                + ":"
                                + (row.isNullAt(2) ? "null" : String.valueOf(row.getLong(2))));
            }
        }
        return rows;
    }
}
