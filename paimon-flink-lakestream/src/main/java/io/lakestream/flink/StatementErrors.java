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

package io.lakestream.flink;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Builds the exceptions that the project throws toward a statement (catalog DDL, procedures, the
 * planning of a source or sink) so that the project's own message is the one users see.
 *
 * <p>Flink's SQL client prints only the deepest exception of a chain that has a message; an
 * exception of ours that wraps the failure it reports (a refused connection, a Paimon or store
 * error) would be hidden behind that failure's bare message, without the table, option or address.
 * So the exception built here has no cause: it is the root. Its message carries the deepest cause's
 * message when it does not already hold it, and the whole original chain stays attached as a
 * suppressed exception, printed in full by every stack trace (logs, the SQL Gateway's REST answer,
 * the SQL client's verbose mode) and found by {@link #findThrowable}.
 *
 * <p>Only the outermost exception toward a statement is built this way: inside the store, failures
 * keep their causes chained, because retry decisions classify them by cause.
 */
@Internal
public final class StatementErrors {

    private StatementErrors() {}

    /**
     * An exception of {@code type} with {@code message} that is the root of its chain, with {@code
     * cause} (if any) attached as a suppressed exception.
     *
     * @param type the constructor from a message, for example {@code ValidationException::new}
     * @param message what failed, naming the table and the option, value or address at fault
     * @param cause the failure reported, or null
     */
    public static <E extends RuntimeException> E rootOf(
            Function<String, E> type, String message, @Nullable Throwable cause) {
        if (cause == null) {
            return type.apply(message);
        }
        E error = type.apply(withDeepestMessage(message, cause));
        error.addSuppressed(cause);
        return error;
    }

    /**
     * {@code error}, whose message already tells what {@code cause} does, with {@code cause}
     * attached as a suppressed exception; {@code error} must have no cause of its own.
     */
    public static <E extends Throwable> E withSuppressed(E error, Throwable cause) {
        error.addSuppressed(cause);
        return error;
    }

    /**
     * {@code message}, followed by the message of the deepest exception of {@code cause}'s chain
     * that has one (what Flink's SQL client would have shown), unless {@code message} holds it.
     */
    static String withDeepestMessage(String message, Throwable cause) {
        Throwable deepest = cause;
        while (deepest.getCause() != null
                && deepest.getCause() != deepest
                && deepest.getCause().getMessage() != null
                && !deepest.getCause().getMessage().isEmpty()) {
            deepest = deepest.getCause();
        }
        String reason = deepest.getMessage();
        if (reason == null || reason.isEmpty()) {
            reason = deepest.getClass().getName();
        }
        if (message.contains(reason)) {
            return message;
        }
        return String.format(
                "%s%s Cause: %s: %s",
                message, message.endsWith(".") ? "" : ".", deepest.getClass().getName(), reason);
    }

    /**
     * The first exception of {@code type} in {@code error}'s chain, looking into the exceptions
     * suppressed along it as well: where {@link #rootOf} keeps the original failure.
     */
    public static <T extends Throwable> Optional<T> findThrowable(Throwable error, Class<T> type) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> pending = new ArrayDeque<>();
        pending.add(error);
        while (!pending.isEmpty()) {
            Throwable next = pending.poll();
            if (next == null || !seen.add(next)) {
                continue;
            }
            if (type.isInstance(next)) {
                return Optional.of(type.cast(next));
            }
            if (next.getCause() != null) {
                pending.add(next.getCause());
            }
            Collections.addAll(pending, next.getSuppressed());
        }
        return Optional.empty();
    }
}
