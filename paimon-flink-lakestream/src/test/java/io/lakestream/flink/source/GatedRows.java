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

package io.lakestream.flink.source;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.streaming.api.functions.source.SourceFunction;
import org.apache.flink.types.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A one-task source that emits rows, then waits until the test opens the gate, then ends: a writing
 * job whose records are all in the stream store while nothing is committed (its checkpoint interval
 * is longer than the test), and that commits them when it ends.
 */
final class GatedRows implements SourceFunction<Row>, ResultTypeQueryable<Row> {

    private static final long serialVersionUID = 1L;

    private static List<Row> rows = new ArrayList<>();
    private static CountDownLatch gate = new CountDownLatch(1);

    private final RowTypeInfo type;
    private final int timeField;
    private volatile boolean running = true;

    private GatedRows(RowTypeInfo type, int timeField) {
        this.type = type;
        this.timeField = timeField;
    }

    /** The source of {@code toEmit}, with a closed gate; one at a time per JVM. */
    static GatedRows of(List<Row> toEmit, RowTypeInfo type) {
        return of(toEmit, type, -1);
    }

    /**
     * Like {@link #of(List, RowTypeInfo)}, setting field {@code timeField} (a BIGINT) of each row
     * to the time it is emitted, in epoch milliseconds.
     */
    static GatedRows of(List<Row> toEmit, RowTypeInfo type, int timeField) {
        rows = new ArrayList<>(toEmit);
        gate = new CountDownLatch(1);
        return new GatedRows(type, timeField);
    }

    static void open() {
        gate.countDown();
    }

    @Override
    public void run(SourceContext<Row> ctx) throws Exception {
        for (Row row : rows) {
            if (timeField >= 0) {
                row.setField(timeField, System.currentTimeMillis());
            }
            synchronized (ctx.getCheckpointLock()) {
                ctx.collect(row);
            }
        }
        while (running && !gate.await(50, java.util.concurrent.TimeUnit.MILLISECONDS)) {
            // the records are in the store; the test reads them before they are committed
        }
    }

    @Override
    public void cancel() {
        running = false;
    }

    @Override
    public TypeInformation<Row> getProducedType() {
        return type;
    }
}
