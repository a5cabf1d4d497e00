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

package io.lakestream.store.fluss;

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.StreamStoreException;

import org.apache.fluss.exception.DisconnectException;
import org.apache.fluss.exception.NetworkException;
import org.apache.fluss.exception.RetriableException;
import org.apache.fluss.utils.ExceptionUtils;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Waits for Fluss client futures within the store's request timeout, and turns their failures into
 * {@link StreamStoreException}s that say what was attempted and against which cluster. Fluss's
 * admin calls retry internally and can otherwise block for as long as the cluster is unreachable.
 */
final class FlussAdminCalls {

    private static final long RETRY_PAUSE_MILLIS = 100;

    private final String bootstrapServers;
    private final Duration timeout;
    private volatile Runnable onGivingUp = () -> {};

    FlussAdminCalls(String bootstrapServers, Duration timeout) {
        this.bootstrapServers = bootstrapServers;
        this.timeout = timeout;
    }

    /**
     * Runs {@code action} whenever a call gives up because the cluster did not answer in time: the
     * store then stops sharing its connection, which may know a server's old address (a Fluss 0.9.1
     * client never learns the new one), so that the next store gets a connection of its own.
     */
    void onGivingUp(Runnable action) {
        this.onGivingUp = action;
    }

    <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            onGivingUp.run();
            throw new StreamStoreException(
                    String.format(
                            "Timed out after %s to %s on the Fluss cluster at %s (option '%s').",
                            format(timeout),
                            what,
                            bootstrapServers,
                            LakeStreamOptions.STORE_REQUEST_TIMEOUT.key()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamStoreException("Interrupted while trying to " + what, e);
        } catch (ExecutionException e) {
            // a combined future (allOf) wraps its first failure once more
            Throwable cause =
                    ExceptionUtils.stripCompletionException(
                            ExceptionUtils.stripExecutionException(e));
            if (causedBy(cause, DisconnectException.class)
                    || causedBy(cause, NetworkException.class)) {
                // a server this connection knows is gone or moved: the next store must bootstrap
                // a connection of its own rather than share this one
                onGivingUp.run();
            }
            throw new StreamStoreException(
                    String.format(
                            "Failed to %s on the Fluss cluster at %s: %s",
                            what, bootstrapServers, cause.getMessage()),
                    cause);
        }
    }

    /**
     * Calls {@code call} and waits for it, calling it again on a retriable Fluss error (a
     * disconnected server, stale metadata after a server restart) until the request timeout runs
     * out. Only for calls that are safe to repeat.
     */
    <T> T awaitRetrying(Supplier<CompletableFuture<T>> call, String what) {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (true) {
            CompletableFuture<T> future;
            boolean sent;
            try {
                future = call.get();
                sent = true;
            } catch (RuntimeException e) {
                // the client looks up bucket leaders before it sends, and fails at once while a
                // table or partition just created has none in its metadata yet
                future = CompletableFuture.failedFuture(e);
                sent = false;
            }
            try {
                return await(future, what);
            } catch (StreamStoreException e) {
                boolean retriable = !sent || causedBy(e, RetriableException.class);
                if (!retriable) {
                    throw e;
                }
                if (System.currentTimeMillis() + RETRY_PAUSE_MILLIS > deadline) {
                    onGivingUp.run();
                    throw e;
                }
            }
            try {
                // the client refreshes its metadata on the failed request; give it a moment
                Thread.sleep(RETRY_PAUSE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamStoreException("Interrupted while trying to " + what, e);
            }
        }
    }

    /**
     * Sends {@code call} now and returns its wait, which behaves as {@link #awaitRetrying}: calls
     * that do not depend on each other are all sent before the first is waited for, so that their
     * round trips overlap instead of adding up.
     */
    <T> Supplier<T> sendRetrying(Supplier<CompletableFuture<T>> call, String what) {
        CompletableFuture<T> sent;
        RuntimeException notSent = null;
        try {
            sent = call.get();
        } catch (RuntimeException e) {
            sent = null;
            notSent = e;
        }
        CompletableFuture<T> first = sent;
        RuntimeException firstFailure = notSent;
        AtomicBoolean firstTaken = new AtomicBoolean();
        return () ->
                awaitRetrying(
                        () -> {
                            if (firstTaken.getAndSet(true)) {
                                return call.get();
                            }
                            if (firstFailure != null) {
                                // as if thrown now: a call that could not be sent is retried
                                throw firstFailure;
                            }
                            return first;
                        },
                        what);
    }

    /** Whether {@code e} was caused by a Fluss exception of type {@code type}. */
    static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        return ExceptionUtils.findThrowable(e, type).isPresent();
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    Duration timeout() {
        return timeout;
    }

    static String format(Duration duration) {
        return duration.toMillis() % 1000 == 0
                ? duration.getSeconds() + " s"
                : duration.toMillis() + " ms";
    }
}
