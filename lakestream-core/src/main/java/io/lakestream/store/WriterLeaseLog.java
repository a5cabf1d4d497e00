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

package io.lakestream.store;

import org.apache.paimon.annotation.Experimental;

import javax.annotation.Nullable;

import java.util.List;

/**
 * The durable, totally ordered log of writer lease claims of one stream table. It holds no logic of
 * its own: who holds the lease follows from replaying the entries in log order, the same way in
 * every process, so the store only has to append and read back.
 */
@Experimental
public interface WriterLeaseLog extends AutoCloseable {

    /**
     * Appends a claim or renewal by {@code owner} durably; returns once every reader can see it.
     * The store stamps it with its own append time.
     */
    void append(String owner, String description);

    /**
     * Appends a release by {@code owner} durably: once it is read, the lease is free if the owner
     * held it, and later renewals by the entries the owner appended before are no claims.
     */
    void release(String owner, String description);

    /**
     * Returns the entries appended since the previous call (all retained ones on the first call),
     * in log order, up to at least every entry whose {@link #append} returned before this call
     * started.
     */
    List<WriterLeaseEntry> readNew();

    /**
     * A name of this log that no other log this process can open shares (a log dropped and created
     * again under the same table name included, where the store can tell them apart), or null when
     * the log cannot be read from a position: then every reader replays it from its start.
     *
     * <p>With a name, a process replays a log once and then only what was appended since (see
     * {@code ReplayedLeaseLog}); a reader checks that the entry before the position it resumes at
     * is the one it saw there, so a name that two logs happen to share costs a replay from the
     * start, never a wrong holder.
     */
    @Nullable
    default String resumableId() {
        return null;
    }

    /**
     * The position after the last entry {@link #readNew} returned (the position a {@link #seek} was
     * given, before any read). Positions are the log's own, count up by one per entry and are never
     * given to another entry of the same log. Only for logs with a {@link #resumableId}.
     */
    default long position() {
        throw new UnsupportedOperationException(getClass().getName() + " has no positions.");
    }

    /**
     * Makes the first {@link #readNew} return the entries from {@code position} on instead of all
     * retained ones. Only before the first read, and only for logs with a {@link #resumableId}.
     */
    default void seek(long position) {
        throw new UnsupportedOperationException(getClass().getName() + " has no positions.");
    }

    @Override
    void close();
}
