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

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A streaming SELECT that polls a table and measures, for each row, the time from its writing (its
 * {@code written_at} column) to its arrival here: write-to-visible latency as a reader sees it.
 */
final class VisibilityProbe implements AutoCloseable {

    private final TableResult result;
    private final CloseableIterator<Row> rows;
    private final int expected;
    private final int measuredFromId;
    private final BitSet seen;
    private final List<Long> latencies;

    /** Written to read by the job's source, where the statement selects a third column NOW(). */
    private final List<Long> readLatencies;

    /** When each measured row was written (epoch ms), in the order of {@link #latencies}. */
    private final List<Long> writtenAt;

    private final Thread thread;
    private volatile Throwable failure;

    /**
     * Starts {@code query}, which selects {@code id} (0 until {@code expected}) and written_at; the
     * rows below {@code measuredFromId} (the writer's warm-up) are awaited but not measured.
     */
    VisibilityProbe(TableEnvironment tEnv, String query, int expected, int measuredFromId) {
        this.result = tEnv.executeSql(query);
        this.rows = result.collect();
        this.expected = expected;
        this.measuredFromId = measuredFromId;
        this.seen = new BitSet(expected);
        this.latencies = new ArrayList<>(expected);
        this.readLatencies = new ArrayList<>(expected);
        this.writtenAt = new ArrayList<>(expected);
        this.thread = new Thread(this::poll, "visibility-probe");
        thread.setDaemon(true);
        thread.start();
    }

    JobClient job() {
        return result.getJobClient().orElseThrow();
    }

    private void poll() {
        try {
            while (rows.hasNext()) {
                Row row = rows.next();
                long now = System.currentTimeMillis();
                int id = ((Number) row.getField(0)).intValue();
                Instant written = (Instant) row.getField(1);
                synchronized (this) {
                    if (!seen.get(id)) {
                        seen.set(id);
                        if (id >= measuredFromId) {
                            latencies.add(now - written.toEpochMilli());
                            writtenAt.add(written.toEpochMilli());
                            if (row.getArity() > 2) {
                                Instant read = (Instant) row.getField(2);
                                readLatencies.add(read.toEpochMilli() - written.toEpochMilli());
                            }
                        }
                    }
                    if (seen.cardinality() >= expected) {
                        notifyAll();
                        return;
                    }
                }
            }
        } catch (Throwable t) {
            failure = t;
            synchronized (this) {
                notifyAll();
            }
        }
    }

    /** Waits until every row arrived or {@code deadlineNanos} passed; true if all arrived. */
    synchronized boolean await(long deadlineNanos) throws InterruptedException {
        while (seen.cardinality() < expected && failure == null) {
            long left = (deadlineNanos - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        if (failure != null) {
            throw new IllegalStateException("The reading job failed", failure);
        }
        return true;
    }

    /**
     * The latencies to the reading job's own {@code NOW()}, evaluated right after its source: the
     * freshness without the time Flink's collect client takes to fetch the rows (it polls every 100
     * ms); empty unless the statement selects that third column.
     */
    synchronized List<Long> readLatencies() {
        return new ArrayList<>(readLatencies);
    }

    /**
     * Each measured row as {@code written at (epoch ms), latency to the source, latency to this
     * client}: where in the run the slow rows were written (near a checkpoint, a GC, the start).
     */
    synchronized List<long[]> trace() {
        List<long[]> trace = new ArrayList<>(writtenAt.size());
        for (int i = 0; i < writtenAt.size(); i++) {
            trace.add(
                    new long[] {
                        writtenAt.get(i),
                        i < readLatencies.size() ? readLatencies.get(i) : -1,
                        latencies.get(i)
                    });
        }
        return trace;
    }

    synchronized List<Long> latencies() {
        return new ArrayList<>(latencies);
    }

    synchronized int rowsSeen() {
        return seen.cardinality();
    }

    @Override
    public void close() throws Exception {
        // closing the iterator of a streaming query cancels its job
        rows.close();
    }
}
