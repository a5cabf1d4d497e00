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

package io.lakestream.read.plan;

import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;

import java.util.ArrayList;
import java.util.List;

/**
 * The reads a bounded read with a pushed-down {@code LIMIT} needs: for an append table, whose every
 * row read is a row of the query, the first partition-buckets whose files hold that many rows
 * between them, as Paimon's own scan prunes its splits by their row counts. The rows the store
 * holds past the snapshot are not counted: a fence recorded after planning may still remove some,
 * while a snapshot's files never change. A primary-key table's rows are known only after the merge
 * with the store, which may delete some, so all of its reads stay.
 */
public final class LimitedRead {

    private LimitedRead() {}

    /** {@code reads} of {@code table}, pruned to those that hold {@code limit} rows. */
    public static List<BucketRead> enoughFor(
            FileStoreTable table, List<BucketRead> reads, long limit) {
        if (!table.primaryKeys().isEmpty()) {
            return reads;
        }
        long rows = 0;
        for (int i = 0; i < reads.size(); i++) {
            for (DataSplit split : reads.get(i).lakeSplits()) {
                if (split.mergedRowCountAvailable()) {
                    rows += split.mergedRowCount();
                }
            }
            if (rows >= limit) {
                return new ArrayList<>(reads.subList(0, i + 1));
            }
        }
        return reads;
    }
}
