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

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A call started ahead gives its result or its own exception, as if made in place. */
class AheadCallTest {

    @Test
    void joinGivesTheResultOfACallOnAThreadOfItsOwn() {
        AheadCall<String> call =
                AheadCall.start("ahead-test", () -> Thread.currentThread().getName());
        assertThat(call.join()).isEqualTo("ahead-test");
    }

    @Test
    void callsGivenAnExecutorRunOnItsThreadOneAfterTheOther() throws Exception {
        ExecutorService executor =
                Executors.newSingleThreadExecutor(task -> new Thread(task, "ahead-test-executor"));
        try {
            for (int i = 0; i < 3; i++) {
                AheadCall<String> call =
                        AheadCall.start(executor, () -> Thread.currentThread().getName());
                assertThat(call.join()).isEqualTo("ahead-test-executor");
            }
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void joinThrowsTheCallsOwnExceptionAndAwaitDoesNot() {
        StreamStoreException failure = new StreamStoreException("the store is gone");
        AheadCall<String> call =
                AheadCall.start(
                        "ahead-test-failing",
                        () -> {
                            throw failure;
                        });
        call.await();
        assertThatThrownBy(call::join).isSameAs(failure);
    }

    @Test
    void awaitReturnsOnlyOnceTheCallEnded() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean ended = new AtomicBoolean();
        AheadCall<Void> call =
                AheadCall.start(
                        "ahead-test-waiting",
                        () -> {
                            try {
                                release.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            ended.set(true);
                            return null;
                        });
        Thread releaser = new Thread(release::countDown);
        releaser.start();
        call.await();
        assertThat(ended).isTrue();
        releaser.join();
    }
}
