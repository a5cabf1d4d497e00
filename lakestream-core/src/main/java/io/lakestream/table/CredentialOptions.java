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

import io.lakestream.StatementErrors;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Keeps the stream store's credentials and security settings out of table options. A table's
 * options are written in clear text into its schema files in the warehouse, where everyone who can
 * read the table can read them, and a hint is shown in plans and logs; credentials belong in the
 * options of the {@code paimon-lakestream} catalog. A lake-stream option is a credential when its
 * key holds one of the words Flink takes for sensitive (password, secret, token, jaas.config and
 * the like, {@link #SENSITIVE_WORDS}), or when it is one of a store client's {@code
 * client.security.*} settings.
 */
public final class CredentialOptions {

    private static final String PREFIX = "lake-stream.";

    /**
     * The words that make a configuration key sensitive in Flink ({@code
     * GlobalConfiguration.isSensitive} of Flink 1.20), written out here because the core has no
     * Flink dependency and Paimon 1.3 has no such list.
     */
    static final List<String> SENSITIVE_WORDS =
            Arrays.asList(
                    "password",
                    "secret",
                    "fs.azure.account.key",
                    "apikey",
                    "api-key",
                    "auth-params",
                    "service-key",
                    "token",
                    "basic-auth",
                    "jaas.config",
                    "http-headers");

    private CredentialOptions() {}

    /** Whether {@code key} is a lake-stream option that holds a credential or security setting. */
    public static boolean isCredential(String key) {
        if (!key.startsWith(PREFIX)) {
            return false; // Paimon's own options are Paimon's business
        }
        String lower = key.toLowerCase(Locale.ROOT);
        return SENSITIVE_WORDS.stream().anyMatch(lower::contains)
                || lower.contains(".client.security.")
                || lower.contains("jaas");
    }

    /**
     * Refuses {@code keys} of table {@code table} given {@code where} (as table options, in a hint)
     * if any is a credential, naming the keys and never their values, with the engine's error of a
     * refused statement ({@code refusal}).
     */
    public static void refuse(
            String table,
            Collection<String> keys,
            String where,
            Function<String, ? extends RuntimeException> refusal) {
        List<String> credentials = new ArrayList<>();
        for (String key : keys) {
            if (isCredential(key)) {
                credentials.add("'" + key + "'");
            }
        }
        if (credentials.isEmpty()) {
            return;
        }
        throw StatementErrors.rootOf(
                refusal,
                String.format(
                        "Table %s: %s %s a credential or security setting of the stream store "
                                + "and cannot be given %s: table options are written in clear "
                                + "text into the table's schema files in the warehouse, and hints "
                                + "show in plans and logs. Set %s as options of the "
                                + "paimon-lakestream catalog instead (CREATE CATALOG ... WITH "
                                + "(...)), or of the DataStream builders.",
                        table,
                        String.join(", ", credentials),
                        credentials.size() == 1 ? "is" : "are",
                        where,
                        credentials.size() == 1 ? "it" : "them"),
                null);
    }
}
