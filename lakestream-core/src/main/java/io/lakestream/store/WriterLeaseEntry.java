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

import java.util.Objects;

/**
 * One entry of a {@link WriterLeaseLog}: a sink job claiming or renewing its lease on a stream
 * table, or releasing it after its final commit. The owner identifies the writing job across
 * restarts (Paimon's commit user); the description says which job and subtask wrote the entry, for
 * error messages; the timestamp is the store's append time, so that every reader judges lease
 * expiry by the same clock.
 */
@Experimental
public final class WriterLeaseEntry {

    private final String owner;
    private final String description;
    private final long timestamp;
    private final boolean release;

    /** A claim or renewal. */
    public WriterLeaseEntry(String owner, String description, long timestamp) {
        this(owner, description, timestamp, false);
    }

    /** A claim or renewal, or a release when {@code release} is true. */
    public WriterLeaseEntry(String owner, String description, long timestamp, boolean release) {
        this.owner = Objects.requireNonNull(owner, "owner");
        this.description = Objects.requireNonNull(description, "description");
        this.timestamp = timestamp;
        this.release = release;
    }

    /** Whether the owner gave the lease up with this entry (it will not write the table again). */
    public boolean isRelease() {
        return release;
    }

    public String owner() {
        return owner;
    }

    public String description() {
        return description;
    }

    /** The store's append time in epoch milliseconds. */
    public long timestamp() {
        return timestamp;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof WriterLeaseEntry)) {
            return false;
        }
        WriterLeaseEntry that = (WriterLeaseEntry) o;
        return timestamp == that.timestamp
                && release == that.release
                && owner.equals(that.owner)
                && description.equals(that.description);
    }

    @Override
    public int hashCode() {
        return Objects.hash(owner, description, timestamp, release);
    }

    @Override
    public String toString() {
        return (release ? "release by " : "") + owner + " (" + description + ") @" + timestamp;
    }
}
