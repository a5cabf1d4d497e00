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

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.BranchManager;

import java.util.function.Function;

/**
 * Only the main branch of a table is in lake-stream mode. A branch ({@code CALL sys.create_branch})
 * copies the table's options, {@code 'lake-stream.enabled'} included, but no stream table: the
 * stream table's offsets follow the main branch's snapshots, and a branch's snapshots after its
 * creation are its own. A branch is therefore read and written as Paimon's own branch (its
 * committed data, lake-only), never with the main branch's tail; enabling the mode on a branch is
 * refused.
 */
public final class MainBranchOnly {

    private MainBranchOnly() {}

    /** Whether {@code table} is a branch other than the main one. */
    public static boolean isBranch(FileStoreTable table) {
        return !BranchManager.isMainBranch(table.coreOptions().branch());
    }

    /**
     * Refuses to enable lake-stream mode on a branch, naming it and the way out.
     *
     * @param refusal the engine's error of a refused statement, for example Flink's {@code
     *     ValidationException::new}
     */
    public static void checkEnablingAllowed(
            Identifier identifier, Function<String, ? extends RuntimeException> refusal) {
        String branch = identifier.getBranchName();
        if (branch == null || BranchManager.isMainBranch(branch)) {
            return;
        }
        throw refusal.apply(
                String.format(
                        "Cannot set '%s' on %s: it is branch '%s' of table %s.%s, and only the main "
                                + "branch of a table can be in lake-stream mode (the stream "
                                + "table follows the main branch's snapshots). A branch is read "
                                + "and written as Paimon's branch, with its committed data.",
                        LakeStreamOptions.ENABLED.key(),
                        identifier.getFullName(),
                        branch,
                        identifier.getDatabaseName(),
                        identifier.getTableName()));
    }
}
