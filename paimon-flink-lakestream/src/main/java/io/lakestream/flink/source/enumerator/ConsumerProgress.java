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
import io.lakestream.flink.source.split.ReaderPositionEvent;

import org.apache.paimon.table.source.DataSplit;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Puts together the position of a read with a {@code consumer-id} at each checkpoint: the
 * enumerator's state at the checkpoint and every reader's splits at it. Flink hands a reader the
 * splits assigned after the enumerator's checkpoint only after the reader's own, so the two hold
 * each split once, as a restore from the checkpoint would find them. A checkpoint's position is
 * ready once the checkpoint has completed and every reader has reported; the newest ready one is
 * handed out once, and the older ones are dropped with it.
 */
@Internal
final class ConsumerProgress {

    /** Checkpoints kept while they wait for their readers; older ones are dropped. */
    private static final int MAX_PENDING = 16;

    private final TreeMap<Long, Pending> pending = new TreeMap<>();

    /** The position of one checkpoint, ready to record. */
    static final class Position {
        final long checkpointId;
        final long nextSnapshot;
        final LakeStreamEnumeratorState state;

        Position(long checkpointId, long nextSnapshot, LakeStreamEnumeratorState state) {
            this.checkpointId = checkpointId;
            this.nextSnapshot = nextSnapshot;
            this.state = state;
        }
    }

    private static final class Pending {
        @Nullable LakeStreamEnumeratorState enumerator;
        final Map<Integer, ReaderPositionEvent> readers = new HashMap<>();
        boolean complete;
    }

    /** The enumerator's state at checkpoint {@code checkpointId}. */
    void enumeratorSnapshot(long checkpointId, LakeStreamEnumeratorState state) {
        entry(checkpointId).enumerator = state;
    }

    /**
     * A reader's splits at a checkpoint. The enumerator's own snapshot of it comes first (Flink
     * checkpoints the enumerator before it tells the readers), so a report of a checkpoint not kept
     * is of one already recorded or dropped, and too late to matter.
     */
    void readerSnapshot(int subtask, ReaderPositionEvent event) {
        Pending p = pending.get(event.checkpointId());
        if (p != null) {
            p.readers.put(subtask, event);
        }
    }

    /** Checkpoint {@code checkpointId} completed; the ones before it that did not are dropped. */
    void checkpointComplete(long checkpointId) {
        entry(checkpointId).complete = true;
        pending.headMap(checkpointId, false).values().removeIf(p -> !p.complete);
    }

    /**
     * The position of the newest checkpoint that completed and whose {@code parallelism} readers
     * all reported, if any: handed out once, with every older checkpoint dropped. A checkpoint at
     * which the enumerator had not planned the read yet, or a reader's splits were too large to
     * report, has none.
     */
    Optional<Position> poll(int parallelism) {
        Long ready = null;
        for (Map.Entry<Long, Pending> entry : pending.descendingMap().entrySet()) {
            Pending p = entry.getValue();
            if (p.complete && p.enumerator != null && p.readers.size() >= parallelism) {
                ready = entry.getKey();
                break;
            }
        }
        if (ready == null) {
            return Optional.empty();
        }
        Pending p = pending.get(ready);
        pending.headMap(ready, true).clear();
        return position(ready, p);
    }

    private Optional<Position> position(long checkpointId, Pending p) {
        LakeStreamEnumeratorState enumerator = p.enumerator;
        if (enumerator.nextFollowedSnapshotId() == null) {
            return Optional.empty();
        }
        // by split id: a reader's split has progressed past the enumerator's copy, if both had one
        Map<String, LakeStreamSplit> splits = new LinkedHashMap<>();
        for (LakeStreamSplit split : enumerator.unassigned()) {
            splits.put(split.splitId(), split);
        }
        for (ReaderPositionEvent reader : p.readers.values()) {
            if (reader.tooLarge()) {
                return Optional.empty();
            }
            for (LakeStreamSplit split : reader.splits()) {
                splits.put(split.splitId(), split);
            }
        }
        List<LakeStreamSplit> all = new ArrayList<>(splits.values());
        return Optional.of(
                new Position(
                        checkpointId,
                        nextSnapshot(enumerator.nextFollowedSnapshotId(), all),
                        new LakeStreamEnumeratorState(
                                enumerator.planned(),
                                all,
                                enumerator.checkedSchemaId(),
                                enumerator.nextFollowedSnapshotId())));
    }

    /**
     * The oldest snapshot the position needs: the next one to look at for another writer's commit,
     * or an older one whose files a split has still to read (a lake part not read to its end, a
     * followed commit not read yet). Paimon's snapshot expiry keeps it and every later one.
     */
    static long nextSnapshot(long nextFollowed, List<LakeStreamSplit> splits) {
        long next = nextFollowed;
        for (LakeStreamSplit split : splits) {
            if (split.lakeFinished()) {
                continue;
            }
            if (split.isFollowed()) {
                next = Math.min(next, split.followedSnapshotId());
            }
            for (DataSplit data : split.lakeSplits()) {
                next = Math.min(next, data.snapshotId());
            }
        }
        return next;
    }

    private Pending entry(long checkpointId) {
        Pending p = pending.computeIfAbsent(checkpointId, k -> new Pending());
        while (pending.size() > MAX_PENDING) {
            Iterator<Long> oldest = pending.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
        return p;
    }

    /** How many checkpoints wait; for tests. */
    int pendingCount() {
        return pending.size();
    }
}
