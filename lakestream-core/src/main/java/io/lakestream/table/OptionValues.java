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

import io.lakestream.LakeStreamOptions;
import io.lakestream.StatementErrors;

import org.apache.paimon.options.ConfigOption;
import org.apache.paimon.options.Options;
import org.apache.paimon.utils.TimeUtils;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Refuses a {@code lake-stream.*} option whose value its option cannot read (a duration without a
 * number, a word that is not one of an enum's values) where it is given (a table's options, an
 * enabling procedure's, a statement's hints and its session's {@code SET}s), with the table, the
 * option and the value named. Written into the table's schema, such a value would be found only by
 * the next job that reads the option, with Paimon's error that names neither the table nor how the
 * value got there.
 */
public final class OptionValues {

    private static final List<ConfigOption<?>> OPTIONS = declaredOptions();

    private OptionValues() {}

    /**
     * Refuses {@code options} of table {@code table} if any {@link LakeStreamOptions} among them
     * has a value its option cannot read, with the engine's error of a refused statement.
     */
    public static void refuseUnreadable(
            String table,
            Map<String, String> options,
            Function<String, ? extends RuntimeException> refusal) {
        Options given = Options.fromMap(options);
        for (ConfigOption<?> option : OPTIONS) {
            String value = options.get(option.key());
            if (value == null) {
                continue;
            }
            try {
                given.get(option);
            } catch (IllegalArgumentException e) {
                throw StatementErrors.rootOf(
                        refusal,
                        String.format(
                                "Table %s: '%s' cannot be '%s' (%s). Its default is '%s'; docs/options.md says what it "
                                        + "takes.",
                                table, option.key(), value, reason(e), defaultOf(option)),
                        null);
            }
        }
    }

    /** The default as a user writes it: {@code 10 ms}, not {@code PT0.01S}. */
    private static String defaultOf(ConfigOption<?> option) {
        Object value = option.defaultValue();
        return value instanceof Duration
                ? TimeUtils.formatWithHighestUnit((Duration) value)
                : String.valueOf(value);
    }

    private static String reason(IllegalArgumentException e) {
        // Paimon's message repeats the key and value; its cause says what is wrong with the value
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return cause.getMessage();
    }

    private static List<ConfigOption<?>> declaredOptions() {
        List<ConfigOption<?>> options = new ArrayList<>();
        for (Field field : LakeStreamOptions.class.getFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isStatic(modifiers)
                    && ConfigOption.class.isAssignableFrom(field.getType())) {
                try {
                    options.add((ConfigOption<?>) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("Cannot read " + field, e);
                }
            }
        }
        return Collections.unmodifiableList(options);
    }
}
