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

import org.apache.paimon.annotation.Documentation;
import org.apache.paimon.options.ConfigOption;
import org.apache.paimon.options.ConfigOptions;
import org.apache.paimon.options.MemorySize;
import org.apache.paimon.options.description.Description;
import org.apache.paimon.options.description.TextElement;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests for {@link OptionsMarkdownGenerator}, on options classes of every supported kind. */
class OptionsMarkdownGeneratorTest {

    @Test
    void rendersEveryKindOfOptionSortedByKey() {
        String expected =
                String.join(
                        "\n",
                        "### SampleOptions",
                        "",
                        "| Key | Default | Type | Set on | Description |",
                        "| --- | --- | --- | --- | --- |",
                        "| `sample.buffer` | `64 mb` | MemorySize |  | Buffer size. |",
                        "| `sample.empty-prefix` | `\"\"` | String |  | Prefix, empty by default. |",
                        "| `sample.labels` | `team:lake` | Map |  | Labels. |",
                        "| `sample.mode` | `FAST` | Enum |  | Either a \\| b.<br><br>"
                                + "Possible values: `FAST`, `SAFE`. |",
                        "| `sample.overridden` | `the core count` | Integer |  | Threads. |",
                        "| `sample.parallelism` | `4` | Integer |  | Parallelism. |",
                        "| `sample.size` | (none) | Long |  | Use `x\\|y` for "
                                + "'&lt;store&gt;'.<br>Second line. |",
                        "| `sample.timeout` | `2 min` | Duration |  | Timeout. |",
                        "| `sample.wait` | `1500 ms` | Duration |  | Wait. |");

        assertThat(OptionsMarkdownGenerator.generate(SampleOptions.class)).isEqualTo(expected);
    }

    @Test
    void saysWhereEachLakeStreamOptionMayBeSet() {
        String generated = OptionsMarkdownGenerator.generate(PlacedOptions.class);

        assertThat(generated)
                .contains("| `lake-stream.enabled` | `false` | Boolean | table |")
                .contains("| `lake-stream.store` | `\"memory\"` | String | catalog |")
                .contains("| `lake-stream.store.database-prefix` | (none) | String | catalog |")
                .contains("| `lake-stream.memory.other` | (none) | String | catalog |")
                .contains(
                        "| `lake-stream.read.other` | (none) | String | catalog, table, statement |");
    }

    @Test
    void eachClassHasASectionOfItsOwn(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("options.md");
        Files.writeString(
                page,
                "Intro.\n\n"
                        + section(OtherOptions.class, "stale other")
                        + "\n\nBetween.\n\n"
                        + section(SampleOptions.class, "stale sample")
                        + "\n",
                StandardCharsets.UTF_8);

        OptionsMarkdownGenerator.main(new String[] {page.toString(), OtherOptions.class.getName()});

        String written = Files.readString(page, StandardCharsets.UTF_8);
        assertThat(written)
                .startsWith("Intro.\n\n")
                .doesNotContain("stale other")
                .contains("stale sample", "Between.");
        assertThat(OptionsMarkdownGenerator.extractSection(written, OtherOptions.class))
                .isEqualTo(OptionsMarkdownGenerator.generate(OtherOptions.class))
                .contains("| `other.flag` | `true` | Boolean |  |  |");
    }

    @Test
    void classWithoutOptionsIsRefused() {
        assertThatThrownBy(() -> OptionsMarkdownGenerator.generate(String.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.String");
    }

    @Test
    void sectionIsReplacedBetweenTheMarkersOnly() {
        String page =
                "# Title\n\nIntro.\n\n"
                        + section(SampleOptions.class, "old table")
                        + "\n\nTrailer.\n";

        String replaced =
                OptionsMarkdownGenerator.replaceSection(page, SampleOptions.class, "new table\n");

        assertThat(replaced)
                .isEqualTo(
                        "# Title\n\nIntro.\n\n"
                                + section(SampleOptions.class, "\nnew table\n")
                                + "\n\nTrailer.\n");
        assertThat(OptionsMarkdownGenerator.extractSection(replaced, SampleOptions.class))
                .isEqualTo("new table");
    }

    @Test
    void pageWithoutMarkersIsRefusedNamingTheMarkers() {
        assertThatThrownBy(() -> OptionsMarkdownGenerator.extractSection("# Title\n", Mode.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(OptionsMarkdownGenerator.startMarker(Mode.class))
                .hasMessageContaining(OptionsMarkdownGenerator.endMarker(Mode.class));
    }

    @Test
    void mainCreatesAMissingPage(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("new.md");

        OptionsMarkdownGenerator.main(new String[] {page.toString(), OtherOptions.class.getName()});

        assertThat(
                        OptionsMarkdownGenerator.extractSection(
                                Files.readString(page, StandardCharsets.UTF_8), OtherOptions.class))
                .isEqualTo(OptionsMarkdownGenerator.generate(OtherOptions.class));
    }

    /** A page's generated section of {@code optionsClass} holding {@code body}. */
    private static String section(Class<?> optionsClass, String body) {
        return OptionsMarkdownGenerator.startMarker(optionsClass)
                + "\n"
                + body
                + "\n"
                + OptionsMarkdownGenerator.endMarker(optionsClass);
    }

    /** Options of every kind the generator renders, declared out of key order. */
    public static final class SampleOptions {

        public static final ConfigOption<Duration> WAIT =
                ConfigOptions.key("sample.wait")
                        .durationType()
                        .defaultValue(Duration.ofMillis(1500))
                        .withDescription("Wait.");

        public static final ConfigOption<Integer> PARALLELISM =
                ConfigOptions.key("sample.parallelism")
                        .intType()
                        .defaultValue(4)
                        .withDescription("Parallelism.");

        public static final ConfigOption<Long> SIZE =
                ConfigOptions.key("sample.size")
                        .longType()
                        .noDefaultValue()
                        .withDescription(
                                Description.builder()
                                        .text("Use %s for '<store>'.", TextElement.code("x|y"))
                                        .linebreak()
                                        .text("Second line.")
                                        .build());

        public static final ConfigOption<MemorySize> BUFFER =
                ConfigOptions.key("sample.buffer")
                        .memoryType()
                        .defaultValue(MemorySize.parse("64 mb"))
                        .withDescription("Buffer size.");

        public static final ConfigOption<Mode> MODE =
                ConfigOptions.key("sample.mode")
                        .enumType(Mode.class)
                        .defaultValue(Mode.FAST)
                        .withDescription("Either a | b.");

        public static final ConfigOption<Duration> TIMEOUT =
                ConfigOptions.key("sample.timeout")
                        .durationType()
                        .defaultValue(Duration.ofMinutes(2))
                        .withDescription("Timeout.");

        public static final ConfigOption<Map<String, String>> LABELS =
                ConfigOptions.key("sample.labels")
                        .mapType()
                        .defaultValue(Map.of("team", "lake"))
                        .withDescription("Labels.");

        public static final ConfigOption<String> EMPTY_PREFIX =
                ConfigOptions.key("sample.empty-prefix")
                        .stringType()
                        .defaultValue("")
                        .withDescription("Prefix, empty by default.");

        @Documentation.OverrideDefault("the core count")
        public static final ConfigOption<Integer> OVERRIDDEN =
                ConfigOptions.key("sample.overridden")
                        .intType()
                        .defaultValue(8)
                        .withDescription("Threads.");

        @Documentation.ExcludeFromDocumentation("internal")
        public static final ConfigOption<String> HIDDEN =
                ConfigOptions.key("sample.hidden").stringType().defaultValue("x");

        // not a constant, so not an option of the class
        public static ConfigOption<String> notFinal =
                ConfigOptions.key("sample.not-final").stringType().defaultValue("x");

        public static final String NOT_AN_OPTION = "sample.not-an-option";
    }

    /** A second options class. */
    public static final class OtherOptions {
        public static final ConfigOption<Boolean> FLAG =
                ConfigOptions.key("other.flag").booleanType().defaultValue(true);
    }

    /** Lake-stream options of each place a user may set one. */
    public static final class PlacedOptions {
        public static final ConfigOption<Boolean> ENABLED =
                ConfigOptions.key("lake-stream.enabled").booleanType().defaultValue(false);
        public static final ConfigOption<String> STORE =
                ConfigOptions.key("lake-stream.store").stringType().defaultValue("memory");
        public static final ConfigOption<String> PREFIX =
                ConfigOptions.key("lake-stream.store.database-prefix")
                        .stringType()
                        .noDefaultValue();
        public static final ConfigOption<String> MEMORY =
                ConfigOptions.key("lake-stream.memory.other").stringType().noDefaultValue();
        public static final ConfigOption<String> READ =
                ConfigOptions.key("lake-stream.read.other").stringType().noDefaultValue();
    }

    /** The values of {@link SampleOptions#MODE}. */
    public enum Mode {
        FAST,
        SAFE
    }
}
