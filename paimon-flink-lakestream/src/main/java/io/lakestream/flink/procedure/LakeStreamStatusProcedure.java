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

package io.lakestream.flink.procedure;

import io.lakestream.LakeStreamOptions;
import io.lakestream.StatementErrors;
import io.lakestream.offsets.AbortedRanges;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.protocol.WriterLeases;
import io.lakestream.store.FenceLog;
import io.lakestream.store.OffsetPosition;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.WriterLeaseEntry;
import io.lakestream.table.LakeStreamEnablement;

import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.flink.procedure.ProcedureBase;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.InternalRowPartitionComputer;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.types.Row;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code CALL sys.lake_stream_status(`table` => 'db.t')}: one row per partition-bucket with its
 * tiered offset (in the latest Paimon snapshot), committed offset (covered by a completed
 * checkpoint of the writing job, which the sink commits as that snapshot), readable offset (the
 * store's end), the lag in records and in time, the records fenced, the records past the committed
 * offset, and the sink job holding the table's writer lease with whether that lease expired.
 *
 * <p>The last three tell a live job's tail, which its next checkpoint commits, from the tail of a
 * stopped job (cancelled, or failed for good), which no checkpoint will commit and which {@code
 * read-uncommitted} readers see until the next writer, or enabling the table again, fences it. The
 * procedure only reads: it fences nothing, so calling it never races a job that is restarting.
 */
@PublicEvolving
public class LakeStreamStatusProcedure extends ProcedureBase {

    public static final String IDENTIFIER = "lake_stream_status";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @ProcedureHint(
            argument = {@ArgumentHint(name = "table", type = @DataTypeHint("STRING"))},
            output =
                    @DataTypeHint(
                            "ROW<`partition` STRING, `bucket` INT, `tiered_offset` BIGINT, "
                                    + "`committed_offset` BIGINT, `readable_offset` BIGINT, "
                                    + "`lag_records` BIGINT, `lag_millis` BIGINT, "
                                    + "`fenced_records` BIGINT, `uncommitted_records` BIGINT, "
                                    + "`writer` STRING, `writer_lease_expired` BOOLEAN>"))
    public Row[] call(ProcedureContext context, String table) {
        Identifier identifier = LakeStreamProcedures.identifier(table);
        LakeStreamEnablement enablement = LakeStreamProcedures.enablement(catalog);
        FileStoreTable paimon = enablement.fileStoreTable(identifier);
        if (!LakeStreamEnablement.isEnabled(paimon.options())) {
            throw new ValidationException(
                    String.format(
                            "Table %s is not in lake-stream mode: enable it with CALL "
                                    + "sys.enable_lake_stream(`table` => '%s').",
                            identifier.getFullName(), identifier.getFullName()));
        }
        Snapshot latest = paimon.snapshotManager().latestSnapshot();
        StreamOffsets tiered =
                latest == null
                        ? StreamOffsets.empty()
                        : SnapshotOffsets.ofSnapshot(paimon, latest.id())
                                .orElse(StreamOffsets.empty());
        List<Row> rows = new ArrayList<>();
        try (StreamStore store = enablement.openStore(paimon.options())) {
            StreamTable streamTable = store.get(StreamTableSpec.of(identifier, paimon));
            Set<PartitionBucket> all = new LinkedHashSet<>(tiered.asMap().keySet());
            all.addAll(store.listPartitionBuckets(streamTable));
            Map<PartitionBucket, Long> readable =
                    store.listOffsets(streamTable, all, OffsetPosition.LATEST);
            AbortedRanges fences = new AbortedRanges();
            try (FenceLog log = store.openFenceLog(streamTable)) {
                fences.addAll(log.readNew());
            }
            Duration leaseTimeout =
                    Options.fromMap(
                                    LakeStreamOptions.forTable(
                                            paimon.options(), enablement.catalogOptions()))
                            .get(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT);
            WriterLeaseEntry holder =
                    WriterLeases.holder(store, streamTable, leaseTimeout).orElse(null);
            long now = System.currentTimeMillis();
            // the lease is the table's, so every partition-bucket shows the same writer; judged by
            // this client's clock against the store's timestamps, which is good enough for a report
            String writer = holder == null ? null : holder.description();
            Boolean leaseExpired =
                    holder == null ? null : WriterLeases.isExpired(holder, leaseTimeout, now);
            for (PartitionBucket pb : all) {
                long tier = tiered.offsetOr(pb, 0L);
                long end = readable.getOrDefault(pb, tier);
                long fenced = fences.countAborted(pb, tier, end);
                long lag = Math.max(0, end - tier - fenced);
                rows.add(
                        Row.of(
                                partitionString(paimon, pb.partition()),
                                pb.bucket(),
                                tier,
                                tier,
                                end,
                                lag,
                                lag == 0 || latest == null ? 0L : now - latest.timeMillis(),
                                fences.countAborted(pb, 0, end),
                                Math.max(0, end - tier),
                                writer,
                                leaseExpired));
            }
        } catch (StreamStoreException e) {
            throw StatementErrors.rootOf(
                    ValidationException::new,
                    String.format(
                            "Cannot report the lake-stream status of table %s: %s",
                            identifier.getFullName(), e.getMessage()),
                    e);
        }
        return rows.toArray(new Row[0]);
    }

    private static String partitionString(FileStoreTable table, BinaryRow partition) {
        if (partition.getFieldCount() == 0) {
            return "";
        }
        return InternalRowPartitionComputer.partToSimpleString(
                table.schema().logicalPartitionType(), partition, "/", 200);
    }
}
