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

package io.lakestream.flink.sink;

import org.apache.flink.annotation.Internal;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * How far Paimon's commits trail the stream store on one write subtask: the records sealed at
 * barriers whose checkpoint has not completed yet, and how long the last completed one took from
 * its seal to the completion that commits it. Sealed records are readable in the store at once, but
 * read-committed readers and Paimon readers see them only from that moment on.
 */
@Internal
final class CommitLagTracker {

    /** Per pending checkpoint: when it was sealed and how many records it sealed. */
    private final TreeMap<Long, long[]> pending = new TreeMap<>();

    // read by metric gauges from the reporter thread
    private volatile long uncommittedRecords;
    private volatile long lastLagMillis;

    void sealed(long checkpointId, long records) {
        pending.put(checkpointId, new long[] {System.currentTimeMillis(), records});
        uncommittedRecords += records;
    }

    /** A completed checkpoint commits its own seal and every earlier one. */
    void committed(long checkpointId) {
        Iterator<Map.Entry<Long, long[]>> it =
                pending.headMap(checkpointId, true).entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, long[]> entry = it.next();
            if (entry.getKey() == checkpointId) {
                lastLagMillis = System.currentTimeMillis() - entry.getValue()[0];
            }
            uncommittedRecords -= entry.getValue()[1];
            it.remove();
        }
    }

    long uncommittedRecords() {
        return uncommittedRecords;
    }

    long lastLagMillis() {
        return lastLagMillis;
    }
}
