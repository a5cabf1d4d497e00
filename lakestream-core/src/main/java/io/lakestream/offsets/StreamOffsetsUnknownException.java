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

package io.lakestream.offsets;

import org.apache.paimon.annotation.Experimental;

/**
 * The stream offsets of a lake-stream table at a snapshot cannot be determined: the table's offsets
 * chain was started, but neither the snapshot nor any earlier one that is still known records a
 * map. Reading the store from offset 0 would return records the snapshot already holds, so the read
 * or write fails instead.
 */
@Experimental
public class StreamOffsetsUnknownException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public StreamOffsetsUnknownException(String table, long snapshotId) {
        super(
                String.format(
                        "The stream offsets of lake-stream table %s at snapshot %d cannot be "
                                + "determined: the snapshot that recorded them is gone and no "
                                + "offsets anchor leads to it (a table whose chain was started "
                                + "by an earlier version of lake-stream mode, expired before it "
                                + "was anchored). Turn the mode off and on again "
                                + "(CALL sys.disable_lake_stream(`table` => '%s') and then "
                                + "CALL sys.enable_lake_stream(`table` => '%s')): enabling records "
                                + "the store's current offsets; store records that Paimon did not "
                                + "commit before are then not read.",
                        table, snapshotId, table, table));
    }
}
