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

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.flink.procedure.ProcedureBase;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;

/**
 * {@code CALL sys.disable_lake_stream(`table` => 'db.t', drop_stream_table => false)}: new writes
 * go to Paimon alone and reads read Paimon alone; the stream table is kept unless {@code
 * drop_stream_table} is true. Idempotent.
 */
@PublicEvolving
public class DisableLakeStreamProcedure extends ProcedureBase {

    public static final String IDENTIFIER = "disable_lake_stream";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @ProcedureHint(
            argument = {
                @ArgumentHint(name = "table", type = @DataTypeHint("STRING")),
                @ArgumentHint(
                        name = "drop_stream_table",
                        type = @DataTypeHint("BOOLEAN"),
                        isOptional = true)
            })
    public String[] call(ProcedureContext context, String table, Boolean dropStreamTable) {
        Identifier identifier = LakeStreamProcedures.identifier(table);
        boolean drop = dropStreamTable != null && dropStreamTable;
        LakeStreamProcedures.enablement(catalog).disable(identifier, drop);
        return new String[] {
            "Lake-stream mode disabled on "
                    + identifier.getFullName()
                    + (drop ? "; stream table dropped" : "; stream table kept")
        };
    }
}
