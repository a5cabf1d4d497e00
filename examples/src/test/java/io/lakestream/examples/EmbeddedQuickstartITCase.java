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

package io.lakestream.examples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the embedded quickstart as a user would, and checks what it prints and commits. */
class EmbeddedQuickstartITCase {

    @Test
    void theScanReturnsBeforeTheCommitWhatPaimonReturnsAfterIt() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<String> committed;
        try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            committed = EmbeddedQuickstart.run(out);
        }
        String output = printed.toString(StandardCharsets.UTF_8);
        assertThat(committed).containsExactly("apple=5", "plum=7");
        assertThat(output)
                .contains("  lake-stream scan: [apple=5, plum=7]")
                .contains("  Paimon alone:     [apple=3, pear=4]")
                .contains("Paimon alone: [apple=5, plum=7]");
    }
}
