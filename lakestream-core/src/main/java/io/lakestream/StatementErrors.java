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

package io.lakestream;

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
 * <p>Flink's SQL client prints one exception of a failed statement's chain, and which one depends
 * on how it runs the statement. Run in-process ({@code TableEnvironment}, the client's own executor
 * before Flink 1.18), it prints the deepest exception of the chain that has a message. Through the
 * SQL Gateway (Flink 1.20's client, also in {@code embedded} mode, and any REST client), it
 * receives the server's stack trace as text and prints what follows its last {@code "Caused by:"},
 * up to the first stack frame ({@code CliStrings.messageError}). An exception of ours that wraps
 * the failure it reports (a refused connection, a Paimon or store error) would be hidden behind
 * that failure's bare message, without the table, option or address.
 *
 * <p>So the exception built here carries its message twice, at the end of both: it is caused by a
 * restatement of itself (same type, same message), which is the deepest exception of the chain and
 * the last {@code "Caused by:"} of its stack trace. The original failure is attached as a
 * suppressed exception of the outer one, whose trace (and its own {@code "Caused by:"} lines)
 * prints before the restatement: in full in every stack trace (logs, the SQL Gateway's REST answer,
 * the SQL client's verbose mode), and found by {@link #findThrowable}. The message carries the
 * deepest cause's message when it does not already hold it.
 *
 * <p>Only the outermost exception toward a statement is built this way: inside the store, failures
 * keep their causes chained, because retry decisions classify them by cause.
 */
public final class StatementErrors {

    private StatementErrors() {}

    /**
     * An exception of {@code type} with {@code message}, caused only by a restatement of itself,
     * with {@code cause} (if any) attached as a suppressed exception; see the class comment.
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
        String shown = withDeepestMessage(message, cause);
        E error = type.apply(shown);
        error.addSuppressed(cause);
        error.initCause(type.apply(shown));
        return error;
    }

    /**
     * An exception of {@code type} with {@code message}, which already tells what {@code cause}
     * does, built as {@link #rootOf} builds one, without adding the cause's message to it.
     */
    public static <E extends RuntimeException> E withSuppressed(
            Function<String, E> type, String message, Throwable cause) {
        E error = type.apply(message);
        error.addSuppressed(cause);
        error.initCause(type.apply(message));
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
