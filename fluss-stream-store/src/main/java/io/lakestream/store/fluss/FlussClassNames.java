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

import org.apache.fluss.config.ConfigOptions;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fluss client options whose values name Fluss classes, pointed at where the Fluss client's classes
 * are at run time.
 *
 * <p>The project's bundle jar relocates the Fluss client (to {@code
 * io.lakestream.shaded.org.apache.fluss}) so that it can share Flink's {@code lib/} with Fluss's
 * own connector. Relocation rewrites the class names in the client's code, but not those a user
 * writes into an option, such as the JAAS login module of {@code client.security.sasl.jaas.config}
 * as Fluss's documentation spells it ({@code
 * org.apache.fluss.security.auth.sasl.plain.PlainLoginModule required ...}). Such names are
 * rewritten here; with the thin jars nothing changes.
 */
final class FlussClassNames {

    /**
     * Fluss's package as its documentation names it, joined at run time so that the bundle's
     * relocation, which rewrites string constants that start with it, leaves it alone.
     */
    static final String FLUSS_PACKAGE = String.join(".", "org", "apache", "fluss");

    /** The options whose values may name Fluss classes. */
    private static final String[] CLASS_NAMING_OPTIONS = {
        ConfigOptions.CLIENT_SASL_JAAS_CONFIG.key()
    };

    private FlussClassNames() {}

    /**
     * Where the Fluss client's classes are at run time: {@link #FLUSS_PACKAGE} or its relocation.
     */
    static String runtimePackage() {
        String name = ConfigOptions.class.getName();
        return name.substring(0, name.length() - ".config.ConfigOptions".length());
    }

    /**
     * {@code options} with the Fluss class names in its class-naming options made run-time names.
     */
    static Map<String, String> atRuntime(Map<String, String> options) {
        return withPackage(options, runtimePackage());
    }

    /** {@code options} with Fluss class names in its class-naming options moved to {@code pkg}. */
    static Map<String, String> withPackage(Map<String, String> options, String pkg) {
        if (pkg.equals(FLUSS_PACKAGE)) {
            return options;
        }
        // a JAAS entry starts with its login module's class name (several entries are separated
        // by ';'); quoted values and already relocated names stay as they are
        Pattern loginModule = Pattern.compile("(^|;)(\\s*)" + Pattern.quote(FLUSS_PACKAGE + "."));
        Map<String, String> adjusted = new LinkedHashMap<>(options);
        for (String key : CLASS_NAMING_OPTIONS) {
            String value = adjusted.get(key);
            if (value != null) {
                adjusted.put(
                        key,
                        loginModule
                                .matcher(value)
                                .replaceAll("$1$2" + Matcher.quoteReplacement(pkg + ".")));
            }
        }
        return adjusted;
    }
}
