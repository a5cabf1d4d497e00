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

package io.lakestream.flink.source.enumerator;

import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.offsets.PartitionBucket;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the enumerator must remember across a restore: every partition-bucket it has made a split
 * for (so that discovery never makes a second one, and never starts a known partition-bucket's log
 * again from 0), the splits not assigned to a reader yet, and up to which Paimon schema the table
 * is known to have stayed in lake-stream mode since the read started (a restored unbounded read
 * checks the schemas after it, so that a disable it has not seen yet still fails it).
 */
@Internal
public final class LakeStreamEnumeratorState {

    private final Set<PartitionBucket> planned;
    private final List<LakeStreamSplit> unassigned;
    @Nullable private final Long checkedSchemaId;
    @Nullable private final Long nextFollowedSnapshotId;

    public LakeStreamEnumeratorState(
            Collection<PartitionBucket> planned, List<LakeStreamSplit> unassigned) {
        this(planned, unassigned, null);
    }

    /**
     * @param checkedSchemaId the last Paimon schema id the read has checked: it and every earlier
     *     schema since the read started keep lake-stream mode on; null when unknown (state written
     *     before the enumerator kept it)
     */
    public LakeStreamEnumeratorState(
            Collection<PartitionBucket> planned,
            List<LakeStreamSplit> unassigned,
            @Nullable Long checkedSchemaId) {
        this(planned, unassigned, checkedSchemaId, null);
    }

    /**
     * @param nextFollowedSnapshotId the id of the next snapshot the read looks at for a commit of
     *     another writer; null when unknown (not planned yet, or state written before the
     *     enumerator followed other writers)
     */
    public LakeStreamEnumeratorState(
            Collection<PartitionBucket> planned,
            List<LakeStreamSplit> unassigned,
            @Nullable Long checkedSchemaId,
            @Nullable Long nextFollowedSnapshotId) {
        this.nextFollowedSnapshotId = nextFollowedSnapshotId;
        this.planned = Collections.unmodifiableSet(new LinkedHashSet<>(planned));
        this.unassigned = Collections.unmodifiableList(unassigned);
        this.checkedSchemaId = checkedSchemaId;
    }

    public Set<PartitionBucket> planned() {
        return planned;
    }

    public List<LakeStreamSplit> unassigned() {
        return unassigned;
    }

    /** The last Paimon schema id checked to keep lake-stream mode on; null when unknown. */
    @Nullable
    public Long checkedSchemaId() {
        return checkedSchemaId;
    }

    /** The id of the next snapshot to look at for another writer's commit; null when unknown. */
    @Nullable
    public Long nextFollowedSnapshotId() {
        return nextFollowedSnapshotId;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LakeStreamEnumeratorState)) {
            return false;
        }
        LakeStreamEnumeratorState that = (LakeStreamEnumeratorState) o;
        return planned.equals(that.planned)
                && unassigned.equals(that.unassigned)
                && Objects.equals(checkedSchemaId, that.checkedSchemaId)
                && Objects.equals(nextFollowedSnapshotId, that.nextFollowedSnapshotId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(planned, unassigned, checkedSchemaId, nextFollowedSnapshotId);
    }

    @Override
    public String toString() {
        return planned.size()
                + " partition-buckets planned, "
                + unassigned.size()
                + " unassigned, schemas checked up to "
                + checkedSchemaId
                + ", next snapshot followed "
                + nextFollowedSnapshotId;
    }
}
