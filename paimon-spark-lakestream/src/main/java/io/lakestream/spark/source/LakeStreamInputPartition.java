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

package io.lakestream.spark.source;

import io.lakestream.read.plan.BucketRead;

import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One partition-bucket of a read: Spark reads it in one task. A batch read returns its union rows,
 * merged; a micro-batch of a streaming read returns its changes, unmerged, with their kinds.
 */
public class LakeStreamInputPartition implements InputPartition {

    private static final long serialVersionUID = 1L;

    private final BucketRead read;
    private final boolean changes;

    public LakeStreamInputPartition(BucketRead read, boolean changes) {
        this.read = read;
        this.changes = changes;
    }

    public BucketRead read() {
        return read;
    }

    /** Whether the task returns the changes of the partition-bucket rather than its rows. */
    public boolean changes() {
        return changes;
    }
}
