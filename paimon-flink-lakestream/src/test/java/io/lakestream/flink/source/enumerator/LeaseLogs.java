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

package io.lakestream.flink.source.enumerator;

import io.lakestream.store.WriterLeaseEntry;
import io.lakestream.store.WriterLeaseLog;

import java.util.List;

/** Writer lease logs of the planning tests' in-memory stores, read-only. */
final class LeaseLogs {

    private LeaseLogs() {}

    /** A lease log with one claim renewed just now when {@code held}; empty otherwise. */
    static WriterLeaseLog of(boolean held) {
        return new WriterLeaseLog() {
            @Override
            public void append(String owner, String description) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void release(String owner, String description) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<WriterLeaseEntry> readNew() {
                return held
                        ? List.of(
                                new WriterLeaseEntry(
                                        "job", "a running job", System.currentTimeMillis()))
                        : List.of();
            }

            @Override
            public void close() {}
        };
    }
}
