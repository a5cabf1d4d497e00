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

package io.lakestream.table;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which lake-stream options are credentials, and how a refusal reads. */
class CredentialOptionsTest {

    @Test
    void credentialsAndSecuritySettingsOfTheStoreAreTold() {
        for (String key :
                List.of(
                        "lake-stream.fluss.client.security.sasl.password",
                        "lake-stream.fluss.client.security.sasl.username",
                        "lake-stream.fluss.client.security.protocol",
                        "lake-stream.fluss.client.security.sasl.jaas.config",
                        "lake-stream.memory.access-token",
                        "lake-stream.fluss.some.secret")) {
            assertThat(CredentialOptions.isCredential(key)).as(key).isTrue();
        }
        for (String key :
                List.of(
                        "lake-stream.enabled",
                        "lake-stream.fluss.bootstrap.servers",
                        "lake-stream.read.isolation",
                        // Paimon's own options are left to Paimon
                        "fs.s3.secret-key",
                        "password")) {
            assertThat(CredentialOptions.isCredential(key)).as(key).isFalse();
        }
    }

    @Test
    void aRefusalNamesTheTableAndTheKeysOnly() {
        assertThatThrownBy(
                        () ->
                                CredentialOptions.refuse(
                                        "db.t",
                                        List.of(
                                                "bucket",
                                                "lake-stream.fluss.client.security.sasl.password"),
                                        "in a hint",
                                        IllegalArgumentException::new))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Table db.t")
                .hasMessageContaining("'lake-stream.fluss.client.security.sasl.password' is")
                .hasMessageContaining("in a hint")
                .hasMessageNotContaining("'bucket'");
        CredentialOptions.refuse(
                "db.t",
                List.of("bucket", "lake-stream.enabled"),
                "in a hint",
                IllegalArgumentException::new);
    }
}
