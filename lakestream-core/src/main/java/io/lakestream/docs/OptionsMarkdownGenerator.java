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

import org.apache.paimon.annotation.Documentation;
import org.apache.paimon.options.ConfigOption;
import org.apache.paimon.options.description.Formatter;
import org.apache.paimon.options.description.TextElement;
import org.apache.paimon.utils.TimeUtils;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders the {@link ConfigOption}s of options classes as Markdown, one table per class, so that
 * the options page of the documentation is generated from the code and cannot drift from it.
 *
 * <p>Every {@code public static final ConfigOption} field of a class becomes a row (Key, Default,
 * Type, Set on, Description), sorted by key; "Set on" says where a user may give the option ({@link
 * OptionPlacement}). Fields annotated with {@link Documentation.ExcludeFromDocumentation} are left
 * out and {@link Documentation.OverrideDefault} replaces the shown default, as in Flink's own
 * option tables. The type is taken from the field's declared type argument, because {@link
 * ConfigOption} does not expose its value class publicly.
 *
 * <p>Each class's table lives in a hand-written page between the class's own markers ({@link
 * #startMarker} and {@link #endMarker}), so that a module can write the table of its options class
 * without the classes of the modules that depend on it, and the page keeps the text around the
 * tables; {@link #main} rewrites only those parts of the page.
 */
public final class OptionsMarkdownGenerator {

    private static final String START_MARKER = "<!-- generated options start: %s -->";
    private static final String END_MARKER = "<!-- generated options end: %s -->";

    private static final String NO_DEFAULT = "(none)";

    private OptionsMarkdownGenerator() {}

    /**
     * Writes the options of each given class into the Markdown page {@code args[0]}, between the
     * class's markers, leaving the rest of the page as it is; a page that does not exist yet is
     * created with the generated sections only. The classes are given by name in {@code args[1..]};
     * without any, the options of this module ({@link LakeStreamOptions}) are written.
     */
    public static void main(String[] args) throws IOException, ClassNotFoundException {
        if (args.length < 1) {
            throw new IllegalArgumentException(
                    "Usage: "
                            + OptionsMarkdownGenerator.class.getName()
                            + " <markdown page> [<options class>...]");
        }
        Path page = Paths.get(args[0]);
        List<Class<?>> classes = new ArrayList<>();
        if (args.length == 1) {
            classes.add(LakeStreamOptions.class);
        } else {
            // exec:java and IDEs put the project's class path on the context class loader
            ClassLoader classLoader = Thread.currentThread().getContextClassLoader();
            for (String className : Arrays.asList(args).subList(1, args.length)) {
                classes.add(Class.forName(className, true, classLoader));
            }
        }
        String content = Files.exists(page) ? Files.readString(page, StandardCharsets.UTF_8) : "";
        for (Class<?> optionsClass : classes) {
            String table = generate(optionsClass);
            content =
                    content.contains(startMarker(optionsClass))
                            ? replaceSection(content, optionsClass, table)
                            : content
                                    + (content.isEmpty() ? "" : "\n")
                                    + startMarker(optionsClass)
                                    + "\n\n"
                                    + table
                                    + "\n\n"
                                    + endMarker(optionsClass)
                                    + "\n";
        }
        Files.writeString(page, content, StandardCharsets.UTF_8);
        System.out.println(
                "Wrote the options of "
                        + classes.stream().map(Class::getName).collect(Collectors.toList())
                        + " to "
                        + page.toAbsolutePath().normalize());
    }

    /**
     * The Markdown of the options of {@code optionsClass}: a heading with the class's simple name
     * and a table of its options sorted by key.
     *
     * @throws IllegalArgumentException when the class declares no documented option, which is
     *     almost always a wrong class name
     */
    public static String generate(Class<?> optionsClass) {
        return table(optionsClass);
    }

    /** The line that starts the generated table of {@code optionsClass} in a page. */
    public static String startMarker(Class<?> optionsClass) {
        return String.format(START_MARKER, optionsClass.getSimpleName());
    }

    /** The line that ends the generated table of {@code optionsClass} in a page. */
    public static String endMarker(Class<?> optionsClass) {
        return String.format(END_MARKER, optionsClass.getSimpleName());
    }

    /**
     * Returns {@code page} with the text between the markers of {@code optionsClass} replaced by
     * {@code section}.
     *
     * @throws IllegalArgumentException when the page lacks the markers
     */
    public static String replaceSection(String page, Class<?> optionsClass, String section) {
        int[] bounds = sectionBounds(page, optionsClass);
        return page.substring(0, bounds[0])
                + "\n\n"
                + section.strip()
                + "\n\n"
                + page.substring(bounds[1]);
    }

    /**
     * The text between the markers of {@code optionsClass} in {@code page}, without surrounding
     * blank lines.
     *
     * @throws IllegalArgumentException when the page lacks the markers
     */
    public static String extractSection(String page, Class<?> optionsClass) {
        int[] bounds = sectionBounds(page, optionsClass);
        return page.substring(bounds[0], bounds[1]).strip();
    }

    /** The start (after the start marker) and end (at the end marker) of a class's table. */
    private static int[] sectionBounds(String page, Class<?> optionsClass) {
        String startMarker = startMarker(optionsClass);
        String endMarker = endMarker(optionsClass);
        int start = page.indexOf(startMarker);
        int end = start < 0 ? -1 : page.indexOf(endMarker, start);
        if (start < 0 || end < 0) {
            throw new IllegalArgumentException(
                    String.format(
                            "The page has no generated section of %s: it needs a line '%s' "
                                    + "followed by a line '%s'.",
                            optionsClass.getName(), startMarker, endMarker));
        }
        return new int[] {start + startMarker.length(), end};
    }

    private static String table(Class<?> optionsClass) {
        List<OptionField> options = optionFields(optionsClass);
        if (options.isEmpty()) {
            throw new IllegalArgumentException(
                    optionsClass.getName()
                            + " has no documented public static final ConfigOption field.");
        }
        StringBuilder table = new StringBuilder();
        table.append("### ").append(optionsClass.getSimpleName()).append("\n\n");
        table.append("| Key | Default | Type | Set on | Description |\n");
        table.append("| --- | --- | --- | --- | --- |");
        for (OptionField option : options) {
            table.append("\n| ")
                    .append(cell(code(option.option.key())))
                    .append(" | ")
                    .append(cell(defaultOf(option)))
                    .append(" | ")
                    .append(cell(typeName(option.valueType, option.field)))
                    .append(" | ")
                    .append(cell(OptionPlacement.of(option.option.key())))
                    .append(" | ")
                    .append(cell(descriptionOf(option)))
                    .append(" |");
        }
        return table.toString();
    }

    private static List<OptionField> optionFields(Class<?> optionsClass) {
        List<OptionField> options = new ArrayList<>();
        for (Field field : optionsClass.getFields()) {
            int modifiers = field.getModifiers();
            if (!Modifier.isStatic(modifiers)
                    || !Modifier.isFinal(modifiers)
                    || !ConfigOption.class.isAssignableFrom(field.getType())
                    || field.isAnnotationPresent(Documentation.ExcludeFromDocumentation.class)) {
                continue;
            }
            ConfigOption<?> option;
            try {
                option = (ConfigOption<?>) field.get(null);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("Cannot read " + field, e);
            }
            options.add(new OptionField(field, option, valueTypeOf(field)));
        }
        options.sort(Comparator.comparing(o -> o.option.key()));
        return options;
    }

    /** The {@code T} of a field declared as {@code ConfigOption<T>}. */
    private static Type valueTypeOf(Field field) {
        Type declared = field.getGenericType();
        if (declared instanceof ParameterizedType) {
            Type valueType = ((ParameterizedType) declared).getActualTypeArguments()[0];
            if (valueType instanceof Class || valueType instanceof ParameterizedType) {
                return valueType;
            }
        }
        throw new IllegalArgumentException(
                field
                        + " does not name its value type: declare it as ConfigOption<Boolean>, "
                        + "ConfigOption<Duration> and so on.");
    }

    private static String typeName(Type type, Field field) {
        if (type instanceof Class) {
            Class<?> valueClass = (Class<?>) type;
            return valueClass.isEnum() ? "Enum" : valueClass.getSimpleName();
        }
        if (type instanceof ParameterizedType) {
            // Paimon's options have no list type: a parameterized one is a Map
            return ((Class<?>) ((ParameterizedType) type).getRawType()).getSimpleName();
        }
        throw new IllegalArgumentException(field + " has a value type without a class: " + type);
    }

    private static String defaultOf(OptionField option) {
        Documentation.OverrideDefault override =
                option.field.getAnnotation(Documentation.OverrideDefault.class);
        if (override != null) {
            return code(override.value());
        }
        if (!option.option.hasDefaultValue()) {
            return NO_DEFAULT;
        }
        Object value = option.option.defaultValue();
        if (value instanceof String) {
            // quoted, as in Flink's tables, so that an empty default stays visible
            return code("\"" + value + "\"");
        }
        if (value instanceof Map) {
            List<String> entries = new ArrayList<>();
            ((Map<?, ?>) value).forEach((k, v) -> entries.add(plainValue(k) + ":" + plainValue(v)));
            return code(String.join(",", entries));
        }
        return code(plainValue(value));
    }

    /** A value as a user writes it in a configuration, e.g. {@code 30 s} for a duration. */
    private static String plainValue(Object value) {
        if (value instanceof Duration) {
            return TimeUtils.formatWithHighestUnit((Duration) value);
        }
        if (value instanceof Enum) {
            // what Paimon's option parser matches: the constant's string form, not its name
            return value.toString();
        }
        // Boolean, numbers and MemorySize ("64 mb") print as they are written
        return String.valueOf(value);
    }

    private static String descriptionOf(OptionField option) {
        String description = new MarkdownFormatter().format(option.option.description());
        Class<?> enumClass = enumClassOf(option.valueType);
        if (enumClass == null) {
            return description;
        }
        String values =
                possibleValues(enumClass).stream()
                        .map(OptionsMarkdownGenerator::code)
                        .collect(Collectors.joining(", "));
        return (description.isEmpty() ? "" : description + "<br><br>")
                + "Possible values: "
                + values
                + ".";
    }

    /**
     * The values of an enum option as a user writes them: each constant's string form, which is
     * what Paimon's option parser compares a value with (ignoring case), not the constant's name.
     */
    static List<String> possibleValues(Class<?> enumClass) {
        return Arrays.stream(enumClass.getEnumConstants())
                .map(String::valueOf)
                .collect(Collectors.toList());
    }

    /** The enum class of an enum option, else null. */
    private static Class<?> enumClassOf(Type valueType) {
        return valueType instanceof Class && ((Class<?>) valueType).isEnum()
                ? (Class<?>) valueType
                : null;
    }

    private static String code(String text) {
        return "`" + text + "`";
    }

    /** Keeps a table cell on one line and its pipes from ending the cell. */
    private static String cell(String text) {
        return text.replace("\r\n", "\n").replace("\n", "<br>").replace("|", "\\|");
    }

    /** A documented option field: the field, its option and the option's value type. */
    private static final class OptionField {
        private final Field field;
        private final ConfigOption<?> option;
        private final Type valueType;

        private OptionField(Field field, ConfigOption<?> option, Type valueType) {
            this.field = field;
            this.option = option;
            this.valueType = valueType;
        }
    }

    /**
     * Formats a Paimon {@link org.apache.paimon.options.description.Description} as inline Markdown
     * for a table cell: code-styled text in backticks, links as Markdown links, line breaks and
     * lists as the HTML that table cells allow. Angle brackets of plain text are escaped, because
     * placeholders such as {@code <store>} would otherwise be taken for HTML tags and disappear
     * from the rendered page.
     */
    private static final class MarkdownFormatter extends Formatter {

        @Override
        protected void formatLink(StringBuilder state, String link, String description) {
            state.append('[').append(description).append("](").append(link).append(')');
        }

        @Override
        protected void formatLineBreak(StringBuilder state) {
            state.append("<br>");
        }

        @Override
        protected void formatText(
                StringBuilder state,
                String format,
                String[] elements,
                EnumSet<TextElement.TextStyle> styles) {
            boolean isCode = styles.contains(TextElement.TextStyle.CODE);
            String escaped = isCode ? format : format.replace("<", "&lt;").replace(">", "&gt;");
            String text = String.format(escaped, (Object[]) elements);
            state.append(isCode ? code(text) : text);
        }

        @Override
        protected void formatList(StringBuilder state, String[] entries) {
            state.append("<ul>");
            for (String entry : entries) {
                state.append("<li>").append(entry).append("</li>");
            }
            state.append("</ul>");
        }

        @Override
        protected Formatter newInstance() {
            return new MarkdownFormatter();
        }
    }
}
