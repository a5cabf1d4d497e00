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

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.RowType;

import java.io.Serializable;
import java.util.Optional;

/**
 * The schemas a Paimon table has had, by schema id: what a stream store reads a record with when
 * the record says it was written under another schema than the reader's. Paimon reads a data file
 * written under an older or newer schema by casting each field whose type differs in the two
 * schemas ({@code SchemaEvolutionUtil}); a store that keeps each record's schema id does the same
 * with the schema this history returns.
 */
@Experimental
@FunctionalInterface
public interface SchemaHistory extends Serializable {

    /** The row type of schema {@code schemaId}; empty when the table holds no such schema. */
    Optional<RowType> rowType(long schemaId);

    /** The schema files of {@code table}, read on demand (they never change once written). */
    static SchemaHistory of(FileStoreTable table) {
        return new PaimonSchemaHistory(table.schemaManager());
    }
}
