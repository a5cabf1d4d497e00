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

import io.lakestream.store.StreamStoreException;

import org.apache.fluss.exception.LeaderNotAvailableException;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A call sent ahead of its wait ({@link FlussAdminCalls#sendRetrying}) is sent once, at once, and
 * waited for as {@link FlussAdminCalls#awaitRetrying} waits: asked again on a retriable failure or
 * when it could not be sent, failed at once otherwise.
 */
class FlussAdminCallsTest {

    private final FlussAdminCalls calls =
            new FlussAdminCalls("fluss-host:9123", Duration.ofSeconds(10));

    /** How many times the call was sent. */
    private final AtomicInteger sent = new AtomicInteger();

    /** Sends a call whose {@code n}-th sending (from 1) is {@code attempt.apply(n)}. */
    private Supplier<String> send(IntFunction<CompletableFuture<String>> attempt) {
        return calls.sendRetrying(() -> attempt.apply(sent.incrementAndGet()), "describe a table");
    }

    @Test
    void isSentBeforeItsWaitAndOnlyOnce() {
        Supplier<String> wait = send(n -> CompletableFuture.completedFuture("described"));
        assertThat(sent).hasValue(1);
        assertThat(wait.get()).isEqualTo("described");
        assertThat(sent).hasValue(1);
    }

    @Test
    void isAskedAgainAfterARetriableFailure() {
        Supplier<String> wait =
                send(
                        n ->
                                n == 1
                                        ? CompletableFuture.failedFuture(
                                                new LeaderNotAvailableException("moving"))
                                        : CompletableFuture.completedFuture("described"));
        assertThat(wait.get()).isEqualTo("described");
        assertThat(sent).hasValue(2);
    }

    @Test
    void isAskedAgainWhenItCouldNotBeSent() {
        Supplier<String> wait =
                send(
                        n -> {
                            if (n == 1) {
                                throw new IllegalStateException("no leader in the metadata yet");
                            }
                            return CompletableFuture.completedFuture("described");
                        });
        assertThat(wait.get()).isEqualTo("described");
        assertThat(sent).hasValue(2);
    }

    @Test
    void failsAtOnceOnAnotherFailure() {
        Supplier<String> wait =
                send(
                        n ->
                                CompletableFuture.failedFuture(
                                        new IllegalArgumentException("no such table")));
        assertThatThrownBy(wait::get)
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(
                        "Failed to describe a table on the Fluss cluster at fluss-host:9123")
                .hasMessageContaining("no such table");
        assertThat(sent).hasValue(1);
    }
}
