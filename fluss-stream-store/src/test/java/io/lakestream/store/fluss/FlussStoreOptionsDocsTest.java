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

import io.lakestream.docs.OptionsMarkdownGenerator;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fails when docs/options.md no longer shows the Fluss store's options as the code declares them,
 * naming the command that brings it up to date.
 */
class FlussStoreOptionsDocsTest {

    /** Run from the repository root, as for the core options' table. */
    private static final String REGENERATE_COMMAND =
            "mvn -pl lakestream-core,fluss-stream-store compile exec:java@options-docs";

    @Test
    void optionsPageShowsTheFlussStoresOptions() throws IOException {
        // tests run in the module directory; the page is at the repository root
        String page =
                Files.readString(Paths.get("..", "docs", "options.md"), StandardCharsets.UTF_8);

        assertThat(OptionsMarkdownGenerator.extractSection(page, FlussStoreOptions.class))
                .as(
                        "docs/options.md is out of date with the options declared in the code. "
                                + "Regenerate it by running, from the repository root: %s",
                        REGENERATE_COMMAND)
                .isEqualTo(OptionsMarkdownGenerator.generate(FlussStoreOptions.class));
        assertThat(page).contains(REGENERATE_COMMAND);
    }
}
