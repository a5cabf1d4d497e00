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

package io.lakestream.flink.table;

import io.lakestream.LakeStreamOptions;

import org.apache.paimon.flink.FlinkConnectorOptions;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.TableConfig;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.factories.DynamicTableFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The options a session sets for a table with Flink's {@code SET}, read from the session's
 * configuration as Paimon's table factory reads its dynamic options:
 *
 * <ul>
 *   <li>{@code 'paimon.<catalog>.<database>.<table>.<option>'}, each of the three names or {@code
 *       *} for any, Paimon's form, for any option of the table; a named table's beats a wildcard's;
 *   <li>{@code 'lake-stream.<option>'}, for every table of the session, below Paimon's form.
 * </ul>
 */
final class SessionOptions {

    private SessionOptions() {}

    /** The options the session of {@code context} sets for its table. */
    static Map<String, String> of(DynamicTableFactory.Context context) {
        Map<String, String> session = allOptions(context.getConfiguration());
        Map<String, String> options = new HashMap<>();
        session.forEach(
                (key, value) -> {
                    if (key.startsWith(LakeStreamOptions.PREFIX)) {
                        options.put(key, value);
                    }
                });
        ObjectIdentifier table = context.getObjectIdentifier();
        Pattern dynamic =
                Pattern.compile(
                        String.format(
                                "%s(%s|\\*)\\.(%s|\\*)\\.(%s|\\*)\\.(.+)",
                                Pattern.quote(FlinkConnectorOptions.TABLE_DYNAMIC_OPTION_PREFIX),
                                Pattern.quote(table.getCatalogName()),
                                Pattern.quote(table.getDatabaseName()),
                                Pattern.quote(table.getObjectName())));
        // from the most wildcards to none: the most specific setting of an option wins
        for (int wildcards = 3; wildcards >= 0; wildcards--) {
            for (Map.Entry<String, String> entry : session.entrySet()) {
                Matcher matcher = dynamic.matcher(entry.getKey());
                if (matcher.matches() && wildcards(matcher) == wildcards) {
                    options.put(matcher.group(4), entry.getValue());
                }
            }
        }
        return options;
    }

    private static int wildcards(Matcher matcher) {
        int wildcards = 0;
        for (int group = 1; group <= 3; group++) {
            if (matcher.group(group).equals("*")) {
                wildcards++;
            }
        }
        return wildcards;
    }

    private static Map<String, String> allOptions(ReadableConfig config) {
        if (config instanceof TableConfig) {
            return ((TableConfig) config).getConfiguration().toMap();
        }
        if (config instanceof Configuration) {
            return ((Configuration) config).toMap();
        }
        return new HashMap<>();
    }
}
