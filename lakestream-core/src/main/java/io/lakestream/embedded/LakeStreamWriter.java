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

package io.lakestream.embedded;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.protocol.OffsetsCommit;
import io.lakestream.protocol.SealedOffsetsProperty;
import io.lakestream.protocol.StreamSegmentWriter;
import io.lakestream.protocol.WriterLease;
import io.lakestream.store.FenceLog;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;

import org.apache.paimon.Snapshot;
import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.RowKindGenerator;
import org.apache.paimon.table.sink.SinkRecord;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;

import java.lang.management.ManagementFactory;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Writes rows into a lake-stream table and its stream store at once, and commits them to Paimon
 * with the store's offsets in the snapshot: PIP-46's {@code Write} and {@code SealForCommit}
 * followed by Paimon's commit. Each row is readable by a {@link LakeStreamScan} as soon as {@link
 * #write} returns with the {@code memory} store; with a store of its own cluster, once the store
 * client's batch went out (within milliseconds) or at once after {@link #flush}; both long before
 * {@link #commit} makes it part of a snapshot.
 *
 * <p>It runs the Flink sink's protocol ({@code docs/consistency.md}): it takes the table's writer
 * lease before anything else and renews it while open; on start it fences what an earlier writer
 * wrote and never committed; each commit seals the segment written since the previous one and gives
 * the snapshot the full offsets map. Rows keep Paimon's semantics: the row kind of each row (or of
 * its {@code rowkind.field}), a row Paimon's writer drops ({@code ignore-delete}) is not sent to
 * the store. Not thread-safe: one thread writes and commits.
 */
@Experimental
public final class LakeStreamWriter implements AutoCloseable {

    private final FileStoreTable table;
    private final StreamStore store;
    private final StreamTable streamTable;
    private final String commitUser;
    private final String description;
    private final WriterLease lease;
    private final StreamSegmentWriter segments;
    private final IOManager ioManager;
    private final TableWriteImpl<?> write;
    private final TableCommitImpl commit;
    private final OffsetsCommit offsetsCommit;
    private final RowKindGenerator rowKindGenerator;
    private long nextIdentifier;

    LakeStreamWriter(LakeStreamTable lakeStreamTable, String commitUser) {
        this.table = lakeStreamTable.paimonTable();
        this.store = lakeStreamTable.store();
        this.streamTable = lakeStreamTable.streamTable();
        this.commitUser = commitUser;
        this.description =
                String.format(
                        "embedded writer %s in process %s",
                        commitUser, ManagementFactory.getRuntimeMXBean().getName());
        this.lease =
                new WriterLease(
                        store,
                        streamTable,
                        commitUser,
                        description,
                        Options.fromMap(lakeStreamTable.options())
                                .get(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT));
        try {
            lease.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lease.close();
            throw new IllegalStateException(
                    "Interrupted while taking the writer lease of table " + table.fullName(), e);
        } catch (RuntimeException e) {
            lease.close();
            throw e;
        }
        lease.startRenewing();
        try {
            this.segments =
                    StreamSegmentWriter.start(
                            store, streamTable, table, Collections.emptyMap(), pb -> true);
        } catch (RuntimeException e) {
            lease.close();
            throw e;
        }
        // Paimon's writer spills and keeps lookup files on local disk: 'first-row', the 'lookup'
        // changelog producer and deletion vectors need it, as Flink's writer has its io dirs
        this.ioManager = IOManager.create(System.getProperty("java.io.tmpdir"));
        this.write = table.newWrite(commitUser).withIOManager(ioManager);
        this.commit = table.newCommit(commitUser);
        this.offsetsCommit =
                new OffsetsCommit(
                        table,
                        fences -> {
                            try (FenceLog log = store.openFenceLog(streamTable)) {
                                log.recordAll(fences);
                            }
                        },
                        null,
                        store.isProcessLocal()
                                ? offsets ->
                                        store.advanceCommittedOffsets(streamTable, offsets.asMap())
                                : null);
        this.rowKindGenerator = RowKindGenerator.create(table.schema(), table.coreOptions());
        this.nextIdentifier =
                table.snapshotManager()
                                .latestSnapshotOfUser(commitUser)
                                .map(Snapshot::commitIdentifier)
                                .orElse(0L)
                        + 1;
    }

    /**
     * Writes {@code row}, with its row kind, into Paimon's writer and the store's log of its
     * partition-bucket, where it is readable at once.
     */
    public void write(InternalRow row) throws Exception {
        SinkRecord record = write.writeAndReturn(row);
        if (record == null) {
            // Paimon's writer dropped it ('ignore-delete', 'ignore-update-before'): so does the
            // store, which must hold exactly what Paimon writes
            return;
        }
        segments.write(
                record.partition(),
                record.bucket(),
                RowKindGenerator.getRowKind(rowKindGenerator, record.row()),
                record.row());
    }

    /**
     * Sends every row written so far to the store and waits until the store holds it: a read that
     * starts after this returns, in this process or any other, sees them. It neither seals nor
     * commits; use it where a reader must see a row at once (read-your-writes), not after each row.
     *
     * @throws io.lakestream.store.StreamStoreException when the store did not take a row within
     *     {@code lake-stream.store.write-timeout}
     */
    public void flush() {
        segments.flush();
    }

    /**
     * Commits everything written since the previous commit: Paimon's files and, in the same
     * snapshot, the store offsets up to which the snapshot holds the store's records.
     *
     * @return the id of the table's latest snapshot after the commit
     */
    public long commit() throws Exception {
        long identifier = nextIdentifier++;
        // as Paimon's Flink writer prepares it: tables that look up ('first-row', the 'lookup'
        // changelog producer, deletion vectors) compact level 0 before the commit unless
        // 'lookup-wait' is false, since Paimon's batch read leaves their level-0 files out
        List<CommitMessage> messages =
                write.prepareCommit(table.coreOptions().prepareCommitWaitCompaction(), identifier);
        StreamSegmentWriter.Sealed sealed = segments.seal(0, lease::checkHeld);
        ManifestCommittable committable = new ManifestCommittable(identifier);
        messages.forEach(committable::addFileCommittable);
        if (!sealed.isEmpty()) {
            SealedOffsetsProperty.add(committable, sealed.segment());
        }
        long before = offsetsCommit.beforeCommit(Collections.singletonList(committable));
        commit.commit(committable);
        offsetsCommit.afterCommit(before);
        Long latest = table.snapshotManager().latestSnapshotId();
        return latest == null ? 0L : latest;
    }

    /** The store end offset of every partition-bucket this writer wrote, as of the last commit. */
    public Map<PartitionBucket, Long> endOffsets() {
        return segments.endOffsets();
    }

    /**
     * Closes the writer and releases the table's writer lease, so that the next writer starts at
     * once. Rows written since the last commit are not committed: the next writer fences them.
     */
    @Override
    public void close() throws Exception {
        try (AutoCloseable closeIo = ioManager;
                AutoCloseable closeSegments = segments;
                AutoCloseable closeCommit = commit;
                AutoCloseable closeWrite = write) {
            // renewing stops before the release, so that no renewal claims the table again
            lease.close();
            WriterLease.release(store, streamTable, commitUser, description);
        }
    }
}
