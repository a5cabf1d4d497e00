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

import java.io.Serializable;
import java.util.Objects;

/**
 * A provisioned stream table: the spec of the Paimon table it serves, the store's name for it and
 * the store's id of it. The id changes when the stream table is dropped and created again, which
 * makes every offset recorded against the old one meaningless; stores refuse to serve a handle
 * whose id is not the current one.
 */
@Experimental
public final class StreamTable implements Serializable {

    private static final long serialVersionUID = 1L;

    private final StreamTableSpec spec;
    private final String storeTableName;
    private final long storeTableId;

    public StreamTable(StreamTableSpec spec, String storeTableName, long storeTableId) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.storeTableName = Objects.requireNonNull(storeTableName, "storeTableName");
        this.storeTableId = storeTableId;
    }

    public StreamTableSpec spec() {
        return spec;
    }

    /** The table's name in the store, for messages (for Fluss: {@code database.table}). */
    public String storeTableName() {
        return storeTableName;
    }

    /** The store's id of this incarnation of the stream table. */
    public long storeTableId() {
        return storeTableId;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof StreamTable)) {
            return false;
        }
        StreamTable that = (StreamTable) o;
        return storeTableId == that.storeTableId
                && spec.equals(that.spec)
                && storeTableName.equals(that.storeTableName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(spec, storeTableName, storeTableId);
    }

    @Override
    public String toString() {
        return "stream table " + storeTableName + " (id " + storeTableId + ") of " + spec;
    }
}
