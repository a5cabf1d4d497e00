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
package io.lakestream.testutils;

import java.time.Duration;
import java.util.function.Predicate;

/**
 * The one way tests wait: for a condition or a polled value, up to a deadline, failing with a
 * message that says what did not happen (built when the time is up, so that it can carry the state
 * of that moment, such as a job's exceptions). Shipped in the test jar for every module's tests.
 */
public final class Await {

    /** How long {@link #until(Condition, String)} waits. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(1);

    private static final Duration POLL_INTERVAL = Duration.ofMillis(100);

    private Await() {}

    /** A condition to wait for. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /** A value to poll. */
    @FunctionalInterface
    public interface Probe<T> {
        T get() throws Exception;
    }

    /** Waits up to a minute for {@code condition}; fails naming {@code what}. */
    public static void until(Condition condition, String what) throws Exception {
        until(condition, DEFAULT_TIMEOUT, () -> "Timed out waiting until " + what);
    }

    /**
     * Waits up to {@code timeout} for {@code condition}; fails with the message {@code failure}
     * gives when the time is up.
     */
    public static void until(Condition condition, Duration timeout, Probe<String> failure)
            throws Exception {
        if (!within(timeout, condition)) {
            throw new AssertionError(failure.get());
        }
    }

    /** Waits up to {@code timeout} for {@code condition}; returns whether it held by then. */
    public static boolean within(Duration timeout, Condition condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(POLL_INTERVAL.toMillis());
        }
        return true;
    }

    /**
     * Polls {@code probe} every {@code interval} until {@code done} accepts its value or {@code
     * timeout} passes, and returns the last value polled: the caller asserts on it, so a timeout
     * fails with what was there.
     */
    public static <T> T poll(
            Probe<T> probe, Predicate<? super T> done, Duration timeout, Duration interval)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        T value = probe.get();
        while (!done.test(value) && System.nanoTime() - deadline < 0) {
            Thread.sleep(interval.toMillis());
            value = probe.get();
        }
        return value;
    }
}
