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

import io.lakestream.flink.store.StreamStoreException;

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

        assertThat(rooted.getCause()).isNull();
        assertThat(rooted.getMessage())
                .isEqualTo(
                        "Cannot enable lake-stream mode on table db.t. Cause: "
                                + "java.net.ConnectException: Connection refused");
        assertThat(StatementErrors.findThrowable(rooted, ConnectException.class))
                .containsSame(refused);
        assertThat(ExceptionUtils.stringifyException(rooted))
                .contains("Failed on the Fluss cluster")
                .contains("Connection refused");
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
