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

package io.lakestream.flink.sink;

import io.lakestream.offsets.AbortedRange;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.protocol.SealedSegment;
import io.lakestream.testutils.LocalPaimonTables;

import org.apache.paimon.Snapshot;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.flink.sink.CommitterOperatorFactory;
import org.apache.paimon.flink.sink.RestoreAndFailCommittableStateManager;
import org.apache.paimon.flink.sink.StoreCommitter;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.manifest.ManifestCommittableSerializer;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.types.DataTypes;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Paimon table on a local warehouse and {@link LakeStreamCommitter} inside Paimon 1.3.1's own
 * {@code CommitterOperator} (with its restore-and-fail state manager, as the sink runs it), driven
 * by Flink's operator test harness: committables arrive, checkpoints are taken, completed or not,
 * and the operator is restored, exactly as in a job.
 */
final class CommitterHarness implements AutoCloseable {

    static final int BUCKETS = 2;

    final FileStoreTable table;
    final String commitUser;
    final AtomicInteger leaseReleases = new AtomicInteger();

    /** The ranges the committer fenced, in order. */
    final List<AbortedRange> fenced = new CopyOnWriteArrayList<>();

    private final OneInputStreamOperatorTestHarness<Committable, Committable> harness;
    private final StreamTableWrite write;
    private long time;

    private CommitterHarness(FileStoreTable table, String commitUser) throws Exception {
        this.table = table;
        this.commitUser = commitUser;
        this.harness = createHarness(table, commitUser, leaseReleases, fenced);
        // without compaction: an asynchronous one could write files after the test closed
        this.write =
                table.copy(Collections.singletonMap("write-only", "true"))
                        .newStreamWriteBuilder()
                        .withCommitUser(commitUser)
                        .newWrite();
    }

    /** A new unpartitioned append table with {@value #BUCKETS} buckets in {@code warehouse}. */
    static FileStoreTable createTable(java.nio.file.Path warehouse, Map<String, String> options)
            throws Exception {
        return LocalPaimonTables.create(
                warehouse,
                "t",
                Schema.newBuilder()
                        .column("id", DataTypes.INT())
                        .column("v", DataTypes.STRING())
                        .option("bucket", String.valueOf(BUCKETS))
                        .option("bucket-key", "id")
                        .options(options)
                        .build());
    }

    /** A committer operator of a new job, not started yet. */
    static CommitterHarness newJob(FileStoreTable table) throws Exception {
        return new CommitterHarness(table, "job-" + UUID.randomUUID());
    }

    /** A committer operator of the job {@code commitUser}, as a restore creates it. */
    static CommitterHarness sameJob(FileStoreTable table, String commitUser) throws Exception {
        return new CommitterHarness(table, commitUser);
    }

    void open() throws Exception {
        harness.open();
    }

    void initializeState(OperatorSubtaskState state) throws Exception {
        harness.initializeState(state);
    }

    /**
     * What one write subtask hands over at a checkpoint barrier: Paimon's commit messages for one
     * row written to the bucket of {@code id}, then its sealed segment.
     */
    void sealed(long checkpointId, int subtask, Map<PartitionBucket, Long> segment)
            throws Exception {
        sealed(checkpointId, subtask, Collections.emptyMap(), segment);
    }

    /** As {@link #sealed(long, int, Map)}, for a segment that starts at {@code starts}. */
    void sealed(
            long checkpointId,
            int subtask,
            Map<PartitionBucket, Long> starts,
            Map<PartitionBucket, Long> segment)
            throws Exception {
        write.write(GenericRow.of(subtask, null));
        for (CommitMessage message : write.prepareCommit(false, checkpointId)) {
            harness.processElement(
                    new Committable(checkpointId, Committable.Kind.FILE, message), time);
        }
        harness.processElement(
                new Committable(
                        checkpointId,
                        Committable.Kind.FILE,
                        new SealedSegment(
                                subtask, StreamOffsets.of(starts), StreamOffsets.of(segment))),
                time);
    }

    /** The barrier of {@code checkpointId} reaches the committer: it snapshots its state. */
    OperatorSubtaskState snapshot(long checkpointId) throws Exception {
        return harness.snapshot(checkpointId, ++time);
    }

    void notifyComplete(long checkpointId) throws Exception {
        harness.notifyOfCompletedCheckpoint(checkpointId);
    }

    void endInput() throws Exception {
        harness.endInput();
    }

    @Override
    public void close() throws Exception {
        write.close();
        harness.close();
    }

    /** The offsets map of every snapshot of the table, in snapshot order. */
    static List<StreamOffsets> mapsOfAllSnapshots(FileStoreTable table) {
        List<StreamOffsets> maps = new ArrayList<>();
        Long earliest = table.snapshotManager().earliestSnapshotId();
        Long latest = table.snapshotManager().latestSnapshotId();
        for (long id = earliest; id <= latest; id++) {
            maps.add(SnapshotOffsets.ofSnapshot(table, id).orElse(StreamOffsets.empty()));
        }
        return maps;
    }

    /** The offsets maps of the snapshots {@code commitUser} committed, in snapshot order. */
    static List<StreamOffsets> mapsCommittedBy(FileStoreTable table, String commitUser) {
        List<StreamOffsets> maps = new ArrayList<>();
        Long earliest = table.snapshotManager().earliestSnapshotId();
        Long latest = table.snapshotManager().latestSnapshotId();
        for (long id = earliest; id <= latest; id++) {
            Snapshot snapshot = table.snapshotManager().snapshot(id);
            if (snapshot.commitUser().equals(commitUser)) {
                maps.add(SnapshotOffsets.ofSnapshot(table, id).orElse(StreamOffsets.empty()));
            }
        }
        return maps;
    }

    /** Commits {@code rows} rows as another engine or job would: no offsets recorded. */
    static void commitWithoutOffsets(FileStoreTable table, int rows) throws Exception {
        List<GenericRow> written = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            written.add(GenericRow.of(i, null));
        }
        LocalPaimonTables.commitWithoutOffsets(table, written);
    }

    /** Offsets of buckets of the unpartitioned table, as bucket, offset, bucket, offset, .... */
    static Map<PartitionBucket, Long> offsets(long... bucketsAndOffsets) {
        Map<PartitionBucket, Long> map = new HashMap<>();
        for (int i = 0; i < bucketsAndOffsets.length; i += 2) {
            map.put(
                    PartitionBucket.ofUnpartitioned((int) bucketsAndOffsets[i]),
                    bucketsAndOffsets[i + 1]);
        }
        return map;
    }

    static StreamOffsets map(long... bucketsAndOffsets) {
        return StreamOffsets.of(offsets(bucketsAndOffsets));
    }

    private static OneInputStreamOperatorTestHarness<Committable, Committable> createHarness(
            FileStoreTable table,
            String commitUser,
            AtomicInteger leaseReleases,
            List<AbortedRange> fenced)
            throws Exception {
        CommitterOperatorFactory<Committable, ManifestCommittable> factory =
                new CommitterOperatorFactory<>(
                        true,
                        true,
                        commitUser,
                        context ->
                                new LakeStreamCommitter(
                                        table,
                                        new StoreCommitter(
                                                table,
                                                table.newCommit(context.commitUser())
                                                        .ignoreEmptyCommit(
                                                                !context
                                                                        .streamingCheckpointEnabled()),
                                                context),
                                        context.commitUser(),
                                        leaseReleases::incrementAndGet,
                                        fenced::addAll),
                        new RestoreAndFailCommittableStateManager<>(
                                ManifestCommittableSerializer::new, true));
        TypeSerializer<Committable> serializer =
                new LakeStreamCommittableTypeInfo().createSerializer(new ExecutionConfig());
        OneInputStreamOperatorTestHarness<Committable, Committable> harness =
                new OneInputStreamOperatorTestHarness<>(factory, 1, 1, 0, new OperatorID());
        harness.getStreamConfig().setupNetworkInputs(serializer);
        harness.getStreamConfig().serializeAllConfigs();
        harness.setup(serializer);
        return harness;
    }
}
