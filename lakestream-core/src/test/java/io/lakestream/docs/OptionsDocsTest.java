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

package io.lakestream.docs;

import io.lakestream.LakeStreamOptions;

import org.apache.paimon.options.ConfigOption;
import org.apache.paimon.options.Options;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fails when docs/options.md no longer shows the options that the code declares, naming the command
 * that brings it up to date.
 */
class OptionsDocsTest {

    /**
     * Run from the repository root; it rewrites only the generated tables of the page, each module
     * the table of its own options class.
     */
    static final String REGENERATE_COMMAND =
            "mvn -pl lakestream-core,fluss-stream-store compile exec:java@options-docs";

    // tests run in the module directory; the page is at the repository root
    private static final Path OPTIONS_PAGE = Paths.get("..", "docs", "options.md");

    @Test
    void optionsPageShowsTheDeclaredOptions() throws IOException {
        String page = Files.readString(OPTIONS_PAGE, StandardCharsets.UTF_8);

        String generated = OptionsMarkdownGenerator.generate(LakeStreamOptions.class);

        assertThat(OptionsMarkdownGenerator.extractSection(page, LakeStreamOptions.class))
                .as(
                        "docs/options.md is out of date with the options declared in the code. "
                                + "Regenerate it by running, from the repository root: %s",
                        REGENERATE_COMMAND)
                .isEqualTo(generated);
    }

    /**
     * Every value the page lists for an enum option is one that the option's own parser takes
     * (Paimon's, which matches a constant's string form): a user who copies it from the page gets
     * that value, not an error.
     */
    @Test
    void everyListedEnumValueIsOneTheOptionsParserTakes() throws Exception {
        String page = Files.readString(OPTIONS_PAGE, StandardCharsets.UTF_8);
        int enumOptions = 0;
        for (Field field : LakeStreamOptions.class.getFields()) {
            if (!(field.getGenericType() instanceof ParameterizedType)
                    || field.getType() != ConfigOption.class) {
                continue;
            }
            Type valueType =
                    ((ParameterizedType) field.getGenericType()).getActualTypeArguments()[0];
            if (!(valueType instanceof Class) || !((Class<?>) valueType).isEnum()) {
                continue;
            }
            enumOptions++;
            @SuppressWarnings("unchecked")
            ConfigOption<Object> option = (ConfigOption<Object>) field.get(null);
            for (String value : OptionsMarkdownGenerator.possibleValues((Class<?>) valueType)) {
                assertThat(page).contains("`" + value + "`");
                Object parsed = Options.fromMap(Map.of(option.key(), value)).get(option);
                assertThat(String.valueOf(parsed)).as(option.key()).isEqualTo(value);
            }
        }
        assertThat(enumOptions).isPositive();
    }

    @Test
    void optionsPageNamesTheRegenerateCommand() throws IOException {
        String page = Files.readString(OPTIONS_PAGE, StandardCharsets.UTF_8);

        assertThat(page)
                .as("the introduction of docs/options.md must say how to regenerate it")
                .contains(REGENERATE_COMMAND);
    }
}
