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

package io.lakestream.flink.lookup;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.connector.source.LookupTableSource.LookupRuntimeProvider;
import org.apache.flink.table.connector.source.lookup.AsyncLookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.Serializable;
import java.util.Collection;
import java.util.concurrent.ExecutionException;

/**
 * Paimon's own lookup function of a table, synchronous or asynchronous as Paimon's {@code
 * lookup.async} chose, called synchronously: what a lake-stream lookup falls back to. Opened only
 * when it is needed, since it loads the table's committed rows.
 */
@Internal
public final class CommittedLookup implements Serializable {

    private static final long serialVersionUID = 1L;

    @Nullable private final LookupFunction sync;
    @Nullable private final AsyncLookupFunction async;

    /** Why Paimon refused to look the table up, when it did. */
    @Nullable private final String refusal;

    private CommittedLookup(
            @Nullable LookupFunction sync,
            @Nullable AsyncLookupFunction async,
            @Nullable String refusal) {
        this.sync = sync;
        this.async = async;
        this.refusal = refusal;
    }

    /**
     * The function of {@code provider}, Paimon's table source's answer to a lookup join.
     *
     * @throws IllegalArgumentException for a provider of another kind
     */
    public static CommittedLookup of(LookupRuntimeProvider provider) {
        if (provider instanceof LookupFunctionProvider) {
            return new CommittedLookup(
                    ((LookupFunctionProvider) provider).createLookupFunction(), null, null);
        }
        if (provider instanceof AsyncLookupFunctionProvider) {
            return new CommittedLookup(
                    null,
                    ((AsyncLookupFunctionProvider) provider).createAsyncLookupFunction(),
                    null);
        }
        throw new IllegalArgumentException(
                "Paimon's lookup provider " + provider.getClass().getName() + " is not supported.");
    }

    /** None: Paimon refused to look the table up, for {@code reason}. */
    public static CommittedLookup refused(String reason) {
        return new CommittedLookup(null, null, reason);
    }

    /** Why Paimon refuses to look the table up, or null when it does not. */
    @Nullable
    String refusal() {
        return refusal;
    }

    void open(FunctionContext context) throws Exception {
        if (refusal != null) {
            throw new IllegalStateException(refusal);
        }
        if (sync != null) {
            sync.open(context);
        } else {
            async.open(context);
        }
    }

    Collection<RowData> lookup(RowData key) throws IOException {
        if (sync != null) {
            return sync.lookup(key);
        }
        try {
            return async.asyncLookup(key).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        } catch (ExecutionException e) {
            throw new IOException(e.getCause());
        }
    }

    void close() throws Exception {
        if (sync != null) {
            sync.close();
        } else if (async != null) {
            async.close();
        }
    }
}
