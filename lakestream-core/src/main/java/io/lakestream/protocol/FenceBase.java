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

package io.lakestream.protocol;

import javax.annotation.Nullable;

/**
 * Where a starting writer fences a partition-bucket from: everything from there to the store's end
 * was written by an attempt whose records no snapshot will hold.
 *
 * <p>The offset restored from the job's checkpoint, because records below it are sealed and are (or
 * are about to be: the restored committer commits pending checkpoints) in a snapshot; without a
 * restored offset, the tiered offset of the table's latest snapshot. Never below that tiered
 * offset: a job restored from an older checkpoint or savepoint restores offsets below records that
 * later snapshots (of this job before, or of another) committed, and fencing those would make every
 * read that starts below them skip committed rows.
 */
public final class FenceBase {

    private FenceBase() {}

    /**
     * @param restored the end offset restored from the job's state, null on a fresh start or for a
     *     partition-bucket the state does not know
     * @param tiered the tiered offset of the table's latest snapshot
     * @param end the store's end offset now
     */
    public static long of(@Nullable Long restored, long tiered, long end) {
        if (restored != null && restored > end && tiered <= end) {
            // a log never shrinks: this one was created anew since the checkpoint (its partition
            // was dropped and written again), and the restored offset belongs to the dropped log
            return tiered;
        }
        return restored == null ? tiered : Math.max(restored, tiered);
    }
}
