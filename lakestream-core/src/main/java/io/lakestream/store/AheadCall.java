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

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * A call to the store started on a thread of its own before its result is needed, so that its round
 * trips overlap other work (a Paimon plan, a lake part's read); {@link #join} then gives its
 * result, or throws what the call would have thrown made in place.
 *
 * <p>A thread per call, not a pool: these calls are few (one per planning or per split reader),
 * each waits on the network for its whole life, and a shared pool would be one more thing a process
 * must size and close. A caller that makes one such call at a time, again and again, gives its own
 * executor instead.
 */
public final class AheadCall<T> {

    private final CompletableFuture<T> result;

    private AheadCall(CompletableFuture<T> result) {
        this.result = result;
    }

    /** Starts {@code call} on a daemon thread named {@code threadName}. */
    public static <T> AheadCall<T> start(String threadName, Supplier<T> call) {
        return new AheadCall<>(
                CompletableFuture.supplyAsync(
                        call,
                        task -> {
                            Thread thread = new Thread(task, threadName);
                            thread.setDaemon(true);
                            thread.start();
                        }));
    }

    /**
     * Starts {@code call} on {@code executor}: for a caller that makes such a call again and again
     * (a writer's seal at every checkpoint) and keeps one thread for them.
     */
    public static <T> AheadCall<T> start(Executor executor, Supplier<T> call) {
        return new AheadCall<>(CompletableFuture.supplyAsync(call, executor));
    }

    /** Whether the call ended, whichever way: {@link #join} then does not wait. */
    public boolean isDone() {
        return result.isDone();
    }

    /** Waits until the call ended, whichever way; {@link #join} then gives how. */
    public void await() {
        result.handle((value, error) -> null).join();
    }

    /** Waits for the call; its result, or the exception the call threw. */
    public T join() {
        try {
            return result.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw e;
        }
    }
}
