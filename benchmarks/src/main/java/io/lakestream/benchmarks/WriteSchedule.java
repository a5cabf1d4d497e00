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

package io.lakestream.benchmarks;

import org.apache.flink.streaming.api.functions.source.SourceFunction;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * A writer's source that emits ids 0, 1, 2, ... at a steady rate and records when it emitted each,
 * so that a probe in the same JVM (the benchmark's MiniCluster runs in its process) can ask for the
 * id written a given time ago. After the last id it keeps running, so that no end-of-input commit
 * makes Paimon fresher than its checkpoints.
 */
final class WriteSchedule implements SourceFunction<Long> {

    private static final long serialVersionUID = 1L;

    /** When each id was emitted, in {@link System#nanoTime} (this JVM's clock). */
    private static volatile long[] writtenAt = new long[0];

    private static volatile int written;

    private final int rows;
    private final int rowsPerSecond;
    private volatile boolean running = true;

    private WriteSchedule(int rows, int rowsPerSecond) {
        this.rows = rows;
        this.rowsPerSecond = rowsPerSecond;
    }

    /** The source of {@code rows} ids at {@code rowsPerSecond}; one schedule at a time per JVM. */
    static WriteSchedule of(int rows, int rowsPerSecond) {
        writtenAt = new long[rows];
        written = 0;
        return new WriteSchedule(rows, rowsPerSecond);
    }

    /** How many ids were emitted. */
    static int written() {
        return written;
    }

    /** The last id emitted at or before {@code nanoTime}, or -1 for none. */
    static int lastWrittenAtOrBefore(long nanoTime) {
        int count = written;
        int index = Arrays.binarySearch(writtenAt, 0, count, nanoTime);
        return index >= 0 ? index : -index - 2;
    }

    @Override
    public void run(SourceContext<Long> ctx) {
        long start = System.nanoTime();
        long period = 1_000_000_000L / rowsPerSecond;
        for (int id = 0; id < rows && running; id++) {
            long due = start + id * period;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            synchronized (ctx.getCheckpointLock()) {
                writtenAt[id] = System.nanoTime();
                ctx.collect((long) id);
                written = id + 1;
            }
        }
        while (running) {
            LockSupport.parkNanos(100_000_000L);
        }
    }

    @Override
    public void cancel() {
        running = false;
    }
}
