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
package io.lakestream.store;

import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.types.RowType;

import java.util.Optional;

/** The schema history of a Paimon table, read from its schema files by Paimon's own manager. */
final class PaimonSchemaHistory implements SchemaHistory {

    private static final long serialVersionUID = 1L;

    /** Serializable; reads one file per id, and a schema file never changes once written. */
    private final SchemaManager schemas;

    PaimonSchemaHistory(SchemaManager schemas) {
        this.schemas = schemas;
    }

    @Override
    public Optional<RowType> rowType(long schemaId) {
        // Paimon keeps every schema of a table (a rollback keeps them too); a schema file that is
        // missing all the same leaves the caller to read the record as written
        return schemas.schemaExists(schemaId)
                ? Optional.of(schemas.schema(schemaId).logicalRowType())
                : Optional.empty();
    }
}
