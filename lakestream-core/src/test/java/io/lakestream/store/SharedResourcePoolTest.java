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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests for {@link SharedResourcePool}: sharing, counting, idle close and invalidation. */
class SharedResourcePoolTest {

    private static final Duration NO_IDLE = Duration.ZERO;
    private static final Duration LONG_IDLE = Duration.ofMinutes(10);

    /** A fake connection factory: numbered connections, and the ones closed, in order. */
    private final AtomicInteger opened = new AtomicInteger();

    private final List<String> closed = new CopyOnWriteArrayList<>();
    private final List<String> closedBy = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstClose = new CountDownLatch(1);

    private final SharedResourcePool<String, String> pool =
            new SharedResourcePool<>(
                    "test-connection",
                    key -> key + "#" + opened.incrementAndGet(),
                    connection -> {
                        closed.add(connection);
                        closedBy.add(Thread.currentThread().getName());
                        firstClose.countDown();
                    });

    @Test
    void acquiresOfOneKeyShareOneResourceAndOtherKeysGetTheirOwn() {
        SharedResourcePool.Lease<String> a = pool.acquire("conf-a", LONG_IDLE);
        SharedResourcePool.Lease<String> b = pool.acquire("conf-a", LONG_IDLE);
        SharedResourcePool.Lease<String> c = pool.acquire("conf-b", LONG_IDLE);

        assertThat(a.resource()).isEqualTo("conf-a#1").isSameAs(b.resource());
        assertThat(c.resource()).isEqualTo("conf-b#2");
        assertThat(pool.size()).isEqualTo(2);
    }

    @Test
    void theResourceIsClosedInTheBackgroundOnlyAfterItsLastLease() throws Exception {
        SharedResourcePool.Lease<String> a = pool.acquire("conf", NO_IDLE);
        SharedResourcePool.Lease<String> b = pool.acquire("conf", NO_IDLE);

        a.close();
        a.close(); // idempotent: it does not count as b's release
        assertThat(pool.size()).isEqualTo(1);
        assertThat(closed).isEmpty();

        b.close();
        assertThat(firstClose.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(closed).containsExactly("conf#1");
        assertThat(closedBy).allMatch(thread -> thread.startsWith("test-connection-idle-close"));
        assertThat(pool.size()).isZero();

        // the next user gets a new one
        assertThat(pool.acquire("conf", NO_IDLE).resource()).isEqualTo("conf#2");
    }

    @Test
    void releaseNeverWaitsForTheClose() throws Exception {
        CountDownLatch closing = new CountDownLatch(1);
        CountDownLatch mayFinish = new CountDownLatch(1);
        SharedResourcePool<String, String> slowToClose =
                new SharedResourcePool<>(
                        "slow",
                        key -> key,
                        connection -> {
                            closing.countDown();
                            try {
                                // a Fluss connection takes seconds to close
                                mayFinish.await(1, TimeUnit.MINUTES);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        });

        long start = System.nanoTime();
        slowToClose.acquire("conf", NO_IDLE).close();
        assertThat(closing.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
        // and a new user does not wait for it either
        assertThat(slowToClose.acquire("conf", NO_IDLE).resource()).isEqualTo("conf");
        mayFinish.countDown();
    }

    @Test
    void aResourceAcquiredAgainWithinTheIdleTimeoutIsKept() throws Exception {
        Duration idle = Duration.ofMillis(300);
        pool.acquire("conf", idle).close();
        SharedResourcePool.Lease<String> again = pool.acquire("conf", idle);
        assertThat(again.resource()).isEqualTo("conf#1");

        // well past the first release's idle timeout: it was cancelled by the second acquire
        Thread.sleep(idle.toMillis() * 3);
        assertThat(closed).isEmpty();
        assertThat(pool.acquire("conf", idle).resource()).isEqualTo("conf#1");
    }

    @Test
    void anIdleResourceIsClosedAfterTheIdleTimeout() throws Exception {
        Duration idle = Duration.ofMillis(200);
        long start = System.nanoTime();
        pool.acquire("conf", idle).close();
        assertThat(closed).isEmpty();

        assertThat(firstClose.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                .isGreaterThanOrEqualTo(idle.toMillis());
        assertThat(closed).containsExactly("conf#1");
        assertThat(pool.size()).isZero();
    }

    @Test
    void anInvalidatedResourceIsHandedToNobodyAndClosedByItsLastUserAtOnce() {
        SharedResourcePool.Lease<String> failedWriter = pool.acquire("conf", LONG_IDLE);
        SharedResourcePool.Lease<String> reader = pool.acquire("conf", LONG_IDLE);

        failedWriter.invalidate();
        SharedResourcePool.Lease<String> next = pool.acquire("conf", LONG_IDLE);
        assertThat(next.resource()).isEqualTo("conf#2");

        failedWriter.close();
        assertThat(closed).isEmpty(); // the reader still uses it

        reader.close();
        // closed in the releasing thread, before it goes on, despite the long idle timeout
        assertThat(closed).containsExactly("conf#1");
        assertThat(closedBy).containsExactly(Thread.currentThread().getName());
        assertThat(next.resource()).isEqualTo("conf#2");
        assertThat(pool.size()).isEqualTo(1);
    }

    @Test
    void invalidatingAnIdleResourceClosesItAtOnce() {
        SharedResourcePool.Lease<String> lease = pool.acquire("conf", LONG_IDLE);
        lease.close();
        lease.invalidate();
        assertThat(closed).containsExactly("conf#1");
        assertThat(pool.size()).isZero();
    }

    @Test
    void aFailedOpenIsNotKeptAndTheNextAcquireTriesAgain() {
        AtomicInteger attempts = new AtomicInteger();
        SharedResourcePool<String, String> flaky =
                new SharedResourcePool<>(
                        "flaky",
                        key -> {
                            if (attempts.incrementAndGet() == 1) {
                                throw new StreamStoreException("cannot reach " + key);
                            }
                            return key;
                        },
                        connection -> {});

        assertThatThrownBy(() -> flaky.acquire("cluster:9123", NO_IDLE))
                .isInstanceOf(StreamStoreException.class)
                .hasMessage("cannot reach cluster:9123");
        assertThat(flaky.size()).isZero();
        assertThat(flaky.acquire("cluster:9123", NO_IDLE).resource()).isEqualTo("cluster:9123");
    }

    @Test
    void concurrentAcquiresOpenOneResource() throws Exception {
        CountDownLatch opening = new CountDownLatch(1);
        CountDownLatch mayOpen = new CountDownLatch(1);
        AtomicInteger opens = new AtomicInteger();
        SharedResourcePool<String, String> slowToOpen =
                new SharedResourcePool<>(
                        "slow-open",
                        key -> {
                            opens.incrementAndGet();
                            opening.countDown();
                            try {
                                mayOpen.await(1, TimeUnit.MINUTES);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return key;
                        },
                        connection -> {});
        List<String> got = new CopyOnWriteArrayList<>();
        Thread first = new Thread(() -> got.add(slowToOpen.acquire("k", NO_IDLE).resource()));
        first.start();
        assertThat(opening.await(10, TimeUnit.SECONDS)).isTrue();
        Thread second = new Thread(() -> got.add(slowToOpen.acquire("k", NO_IDLE).resource()));
        second.start();
        mayOpen.countDown();
        first.join(10_000);
        second.join(10_000);
        assertThat(got).containsExactly("k", "k");
        assertThat(opens).hasValue(1);
    }
}
