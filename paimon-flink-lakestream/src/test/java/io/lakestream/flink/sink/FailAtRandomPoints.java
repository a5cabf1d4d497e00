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

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.table.data.RowData;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A pass-through map in front of the sink that fails the job at points drawn at random from a seed:
 * while a record passes (records written since the last barrier are then in the store but not
 * committed) or when a checkpoint completes (while the committer commits it). The plan lives in
 * static fields, shared by every attempt and subtask in the MiniCluster's JVM; one job at a time.
 */
final class FailAtRandomPoints implements MapFunction<RowData, RowData>, CheckpointListener {

    private static final long serialVersionUID = 1L;

    /** Where a failure strikes. */
    enum Where {
        RECORD,
        CHECKPOINT_COMPLETE
    }

    /** One planned failure: once {@code afterRecords} records passed, at the next {@code where}. */
    static final class Failure {
        final long afterRecords;
        final Where where;

        Failure(long afterRecords, Where where) {
            this.afterRecords = afterRecords;
            this.where = where;
        }

        @Override
        public String toString() {
            return where + " after " + afterRecords + " records";
        }
    }

    private static final AtomicLong SEEN = new AtomicLong();
    private static final ConcurrentLinkedQueue<Failure> PLAN = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger INJECTED = new AtomicInteger();

    /**
     * Plans {@code wheres.length} failures at random record counts between 10% and 90% of {@code
     * rows}, in ascending order, the i-th striking at {@code wheres[i]}; returns the plan.
     */
    static List<Failure> plan(long seed, long rows, Where... wheres) {
        Random random = new Random(seed);
        long[] points = new long[wheres.length];
        for (int i = 0; i < points.length; i++) {
            points[i] = rows / 10 + (long) (random.nextDouble() * rows * 8 / 10);
        }
        java.util.Arrays.sort(points);
        List<Failure> plan = new ArrayList<>();
        for (int i = 0; i < points.length; i++) {
            plan.add(new Failure(points[i], wheres[i]));
        }
        SEEN.set(0);
        INJECTED.set(0);
        PLAN.clear();
        PLAN.addAll(plan);
        return plan;
    }

    static int injected() {
        return INJECTED.get();
    }

    @Override
    public RowData map(RowData value) {
        strike(Where.RECORD, SEEN.incrementAndGet());
        return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        strike(Where.CHECKPOINT_COMPLETE, SEEN.get());
    }

    private static void strike(Where where, long seen) {
        Failure next = PLAN.peek();
        // remove() lets exactly one subtask take a planned failure
        if (next != null && next.where == where && seen >= next.afterRecords && PLAN.remove(next)) {
            INJECTED.incrementAndGet();
            throw new RuntimeException("Injected failure: " + next);
        }
    }
}
