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

import io.lakestream.flink.offsets.PartitionBucket;
import io.lakestream.flink.source.split.LakeStreamSplit;

import org.apache.flink.annotation.Internal;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the enumerator must remember across a restore: every partition-bucket it has made a split
 * for (so that discovery never makes a second one, and never starts a known partition-bucket's log
 * again from 0), and the splits not assigned to a reader yet.
 */
@Internal
public final class LakeStreamEnumeratorState {

    private final Set<PartitionBucket> planned;
    private final List<LakeStreamSplit> unassigned;

    public LakeStreamEnumeratorState(
            Collection<PartitionBucket> planned, List<LakeStreamSplit> unassigned) {
        this.planned = Collections.unmodifiableSet(new LinkedHashSet<>(planned));
        this.unassigned = Collections.unmodifiableList(unassigned);
    }

    public Set<PartitionBucket> planned() {
        return planned;
    }

    public List<LakeStreamSplit> unassigned() {
        return unassigned;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LakeStreamEnumeratorState)) {
            return false;
        }
        LakeStreamEnumeratorState that = (LakeStreamEnumeratorState) o;
        return planned.equals(that.planned) && unassigned.equals(that.unassigned);
    }

    @Override
    public int hashCode() {
        return Objects.hash(planned, unassigned);
    }

    @Override
    public String toString() {
        return planned.size() + " partition-buckets planned, " + unassigned.size() + " unassigned";
    }
}
