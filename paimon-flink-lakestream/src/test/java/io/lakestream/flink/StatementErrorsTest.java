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

import io.lakestream.StatementErrors;
import io.lakestream.store.StreamStoreException;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.Test;

import java.net.ConnectException;

import static org.assertj.core.api.Assertions.assertThat;

/** The exceptions {@link StatementErrors} builds: the project's message at the root. */
class StatementErrorsTest {

    @Test
    void theProjectsMessageIsTheRootAndCarriesTheDeepestCausesMessage() {
        ConnectException refused = new ConnectException("Connection refused");
        ValidationException rooted =
                StatementErrors.rootOf(
                        ValidationException::new,
                        "Cannot enable lake-stream mode on table db.t",
                        new StreamStoreException("Failed on the Fluss cluster", refused));

        assertThat(rooted.getMessage())
                .isEqualTo(
                        "Cannot enable lake-stream mode on table db.t. Cause: "
                                + "java.net.ConnectException: Connection refused");
        assertThat(StatementErrors.findThrowable(rooted, ConnectException.class))
                .containsSame(refused);
        assertThat(ExceptionUtils.stringifyException(rooted))
                .contains("Failed on the Fluss cluster")
                .contains("Connection refused");
        // the deepest exception with a message: what a client running the statement in-process
        // prints
        assertThat(ExceptionUtils.findThrowable(rooted, t -> t.getCause() == null))
                .hasValueSatisfying(
                        deepest -> {
                            assertThat(deepest).isInstanceOf(ValidationException.class);
                            assertThat(deepest.getMessage()).isEqualTo(rooted.getMessage());
                        });
    }

    /**
     * Flink's SQL client over the SQL Gateway gets the server's stack trace as text and prints what
     * follows its last "Caused by:" up to the first stack frame: the project's message, not the
     * refused connection of the suppressed original chain, whose own "Caused by:" lines print
     * earlier.
     */
    @Test
    void theLastCausedByOfTheStackTraceIsTheProjectsMessage() {
        StreamStoreException rooted =
                StatementErrors.rootOf(
                        StreamStoreException::new,
                        "Table db.t is in lake-stream mode, but its stream table cannot be looked up",
                        new StreamStoreException(
                                "Cannot connect to the Fluss cluster at 127.0.0.1:1",
                                new IllegalStateException(
                                        "Failed to initialize fluss client connection",
                                        new ConnectException("Connection refused"))));
        String serverTrace =
                ExceptionUtils.stringifyException(
                        new org.apache.flink.table.api.TableException(
                                "Failed to execute the statement.",
                                new RuntimeException("planning failed", rooted)));
        String[] parts = serverTrace.split("Caused by:");
        String shown = parts[parts.length - 1].split("\tat ")[0].trim();
        assertThat(shown)
                .startsWith(StreamStoreException.class.getName() + ": Table db.t is in lake-stream")
                .contains("Connection refused");
    }

    @Test
    void aMessageThatTellsTheCauseAlreadyIsShownAsItIs() {
        IllegalStateException held = new IllegalStateException("lease held by job 1");
        ValidationException refused =
                StatementErrors.withSuppressed(
                        ValidationException::new, "Table db.t: job 1 holds the lease.", held);
        assertThat(refused.getMessage()).isEqualTo("Table db.t: job 1 holds the lease.");
        assertThat(refused.getSuppressed()).containsExactly(held);
        String[] parts = ExceptionUtils.stringifyException(refused).split("Caused by:");
        assertThat(parts[parts.length - 1]).contains("Table db.t: job 1 holds the lease.");
    }

    @Test
    void aMessageThatHoldsTheCausesMessageAlreadyIsKeptAsItIs() {
        StreamStoreException rooted =
                StatementErrors.rootOf(
                        StreamStoreException::new,
                        "Table db.t: Failed at 127.0.0.1:1: Connection refused",
                        new ConnectException("Connection refused"));
        assertThat(rooted.getMessage())
                .isEqualTo("Table db.t: Failed at 127.0.0.1:1: Connection refused");
        assertThat(rooted.getSuppressed()).hasSize(1);
    }

    @Test
    void withoutACauseItIsAPlainException() {
        ValidationException plain =
                StatementErrors.rootOf(ValidationException::new, "Table db.t: bad.", null);
        assertThat(plain.getMessage()).isEqualTo("Table db.t: bad.");
        assertThat(plain.getSuppressed()).isEmpty();
        assertThat(StatementErrors.findThrowable(plain, ConnectException.class)).isEmpty();
    }
}
