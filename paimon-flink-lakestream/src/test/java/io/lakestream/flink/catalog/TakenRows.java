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

import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The rows of a streaming query, taken from its iterator by a thread of their own, so that a test
 * waiting for rows that never come fails its wait instead of blocking in {@code hasNext}.
 */
final class TakenRows {

    private final BlockingQueue<Row> taken = new LinkedBlockingQueue<>();

    TakenRows(CloseableIterator<Row> rows, String name) {
        Thread taker =
                new Thread(
                        () -> {
                            try {
                                while (rows.hasNext()) {
                                    taken.add(rows.next());
                                }
                            } catch (RuntimeException e) {
                                // the job was cancelled at the end of the test
                            }
                        },
                        name);
        taker.setDaemon(true);
        taker.start();
    }

    /** Moves the rows taken so far to {@code into}, in the order the query returned them. */
    void drainTo(List<Row> into) {
        taken.drainTo(into);
    }
}
