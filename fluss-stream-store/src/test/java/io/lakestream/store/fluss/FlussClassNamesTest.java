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

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Tests {@link FlussClassNames}: what the bundle jar's relocated Fluss client needs. */
class FlussClassNamesTest {

    private static final String JAAS = "client.security.sasl.jaas.config";
    private static final String RELOCATED = "io.lakestream.shaded.org.apache.fluss";

    @Test
    void namesTheLoginModuleWhereTheRelocatedClientHasIt() {
        Map<String, String> options = new HashMap<>();
        options.put("bootstrap.servers", "127.0.0.1:9123");
        options.put(
                JAAS,
                "org.apache.fluss.security.auth.sasl.plain.PlainLoginModule required "
                        + "username=\"admin\" password=\"org.apache.fluss.x\";");

        Map<String, String> relocated = FlussClassNames.withPackage(options, RELOCATED);

        assertThat(relocated.get(JAAS))
                .startsWith(RELOCATED + ".security.auth.sasl.plain.PlainLoginModule required ")
                // only names: a quoted value is not a class name to move
                .endsWith("password=\"org.apache.fluss.x\";");
        assertThat(relocated.get("bootstrap.servers")).isEqualTo("127.0.0.1:9123");
        assertThat(options.get(JAAS)).startsWith("org.apache.fluss.");
    }

    @Test
    void keepsAnAlreadyRelocatedNameAndTheThinJarsNames() {
        Map<String, String> options = new HashMap<>();
        options.put(JAAS, RELOCATED + ".security.auth.sasl.plain.PlainLoginModule required;");

        assertThat(FlussClassNames.withPackage(options, RELOCATED)).isEqualTo(options);
        assertThat(FlussClassNames.withPackage(options, FlussClassNames.FLUSS_PACKAGE))
                .isSameAs(options);
        // the test's class path has the thin jars: Fluss where its documentation says
        assertThat(FlussClassNames.runtimePackage()).isEqualTo("org.apache.fluss");
    }
}
