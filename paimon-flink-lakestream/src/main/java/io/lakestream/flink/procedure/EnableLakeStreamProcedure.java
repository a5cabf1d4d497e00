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

import io.lakestream.LakeStreamOptions;
import io.lakestream.table.LakeStreamEnablement;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.flink.procedure.ProcedureBase;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.procedure.ProcedureContext;

import java.util.Map;

/**
 * {@code CALL sys.enable_lake_stream(`table` => 'db.t', options => 'k=v,k2=v2')}: puts a table in
 * lake-stream mode in place, keeping its data: provisions the stream table, records its start
 * offsets in a snapshot and sets {@code 'lake-stream.enabled' = 'true'} with the given {@code
 * lake-stream.*} options. Safe to run again after a failure halfway.
 */
@PublicEvolving
public class EnableLakeStreamProcedure extends ProcedureBase {

    public static final String IDENTIFIER = "enable_lake_stream";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @ProcedureHint(
            argument = {
                @ArgumentHint(name = "table", type = @DataTypeHint("STRING")),
                @ArgumentHint(name = "options", type = @DataTypeHint("STRING"), isOptional = true)
            })
    public String[] call(ProcedureContext context, String table, String options) {
        Identifier identifier = LakeStreamProcedures.identifier(table);
        Map<String, String> extra = LakeStreamProcedures.options(options);
        for (String key : extra.keySet()) {
            if (!key.startsWith(LakeStreamOptions.PREFIX)) {
                throw new ValidationException(
                        String.format(
                                "Option '%s' given to %s is not a lake-stream option; set Paimon "
                                        + "options with ALTER TABLE.",
                                key, IDENTIFIER));
            }
        }
        LakeStreamEnablement enablement = LakeStreamProcedures.enablement(catalog);
        FileStoreTable current = enablement.fileStoreTable(identifier);
        if (LakeStreamEnablement.isEnabled(current.options())) {
            throw new ValidationException(
                    String.format(
                            "Table %s is already in lake-stream mode.", identifier.getFullName()));
        }
        enablement.enable(identifier, extra);
        return new String[] {"Lake-stream mode enabled on " + identifier.getFullName()};
    }
}
