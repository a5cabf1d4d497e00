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
import org.apache.flink.types.Row;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Probes of a lookup join: every 10 ms, for each lag of {@link #LAGS_MS}, the id that {@link
 * WriteSchedule} wrote that long ago, as the row (id, lag in ms). Which probes find their row says
 * how long after its write a lookup finds a row. Ids of the first {@code warmUpRows} are not
 * probed.
 */
final class LagProbes implements SourceFunction<Row> {

    private static final long serialVersionUID = 1L;

    /** The lags probed, in ms. */
    static final long[] LAGS_MS = {
        25, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 120_000, 180_000,
        240_000, 300_000
    };

    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final int warmUpRows;
    private final int rows;
    private volatile boolean running = true;

    LagProbes(int warmUpRows, int rows) {
        this.warmUpRows = warmUpRows;
        this.rows = rows;
    }

    @Override
    public void run(SourceContext<Row> ctx) {
        while (running && WriteSchedule.written() < rows) {
            long now = System.nanoTime();
            for (long lag : LAGS_MS) {
                int id = WriteSchedule.lastWrittenAtOrBefore(now - lag * 1_000_000L);
                if (id >= warmUpRows) {
                    synchronized (ctx.getCheckpointLock()) {
                        ctx.collect(Row.of((long) id, lag));
                    }
                }
            }
            LockSupport.parkNanos(TICK_NANOS);
        }
    }

    @Override
    public void cancel() {
        running = false;
    }
}
