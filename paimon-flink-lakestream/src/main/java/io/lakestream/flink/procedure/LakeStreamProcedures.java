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

package io.lakestream.flink.procedure;

import io.lakestream.StatementErrors;
import io.lakestream.flink.catalog.LakeStreamPaimonCatalog;
import io.lakestream.table.LakeStreamEnablement;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.utils.ParameterUtils;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;

import java.util.Collections;
import java.util.Map;

/** What the lake-stream procedures share: parsing their arguments and reaching the enablement. */
@Internal
final class LakeStreamProcedures {

    private LakeStreamProcedures() {}

    static Identifier identifier(String table) {
        if (table == null || table.trim().isEmpty()) {
            throw new ValidationException(
                    "Argument 'table' is required: the table as 'database.table'.");
        }
        try {
            return Identifier.fromString(table.trim());
        } catch (IllegalArgumentException e) {
            throw StatementErrors.rootOf(
                    ValidationException::new,
                    String.format(
                            "Argument 'table' = '%s' is not a table name of the form "
                                    + "'database.table'.",
                            table),
                    e);
        }
    }

    /** Parses {@code 'k=v,k2=v2'}; empty or null is no options. */
    static Map<String, String> options(String options) {
        if (options == null || options.trim().isEmpty()) {
            return Collections.emptyMap();
        }
        try {
            return ParameterUtils.parseCommaSeparatedKeyValues(options);
        } catch (IllegalArgumentException e) {
            throw StatementErrors.rootOf(
                    ValidationException::new,
                    String.format(
                            "Argument 'options' = '%s' is malformed: use 'key=value,key2=value2'. "
                                    + "%s",
                            options, e.getMessage()),
                    e);
        }
    }

    static LakeStreamEnablement enablement(Catalog catalog) {
        return catalog instanceof LakeStreamPaimonCatalog
                ? ((LakeStreamPaimonCatalog) catalog).enablement()
                : new LakeStreamEnablement(
                        catalog,
                        catalog.options(),
                        ValidationException.class,
                        ValidationException::new);
    }
}
