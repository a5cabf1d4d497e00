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

package io.lakestream.flink.catalog;

import io.lakestream.LakeStreamOptions;
import io.lakestream.offsets.SnapshotOffsets;
import io.lakestream.offsets.StreamOffsets;
import io.lakestream.protocol.StreamPartitionDrops;
import io.lakestream.protocol.WriterLeases;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.table.LakeStreamEnablement;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.FileStoreTable;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.UUID;

/**
 * After partitions of a lake-stream table are dropped through the catalog: drops their stream
 * partitions and commits a snapshot without data whose offsets map leaves them out, at once, when
 * no sink job writes the table. The writer lease is held meanwhile, so no writer creates one of
 * those partitions again between the drop and the commit. While a job writes the table, its
 * committer does the same at a commit ({@link StreamPartitionDrops}); drops by other means
 * (procedures, Paimon's own catalog, other engines, partition expiry) are followed that way too.
 */
@Internal
final class CatalogPartitionDrops {

    private static final Logger LOG = LoggerFactory.getLogger(CatalogPartitionDrops.class);

    private CatalogPartitionDrops() {}

    /** Follows a drop of partitions of {@code table}, a lake-stream table; never throws. */
    static void afterDrop(
            LakeStreamEnablement enablement, Identifier identifier, FileStoreTable table) {
        if (table.partitionKeys().isEmpty()) {
            return;
        }
        Duration leaseTimeout =
                Options.fromMap(
                                LakeStreamOptions.forTable(
                                        table.options(), enablement.catalogOptions()))
                        .get(LakeStreamOptions.SINK_WRITER_LEASE_TIMEOUT);
        try (StreamStore store = enablement.openStore(table.options())) {
            StreamTable streamTable = store.get(StreamTableSpec.of(identifier, table));
            WriterLeases.runExclusively(
                    store,
                    streamTable,
                    "dropping the stream partitions of partitions dropped from table "
                            + identifier.getFullName(),
                    leaseTimeout,
                    () -> {
                        StreamOffsets parent =
                                SnapshotOffsets.ofLatestSnapshot(table)
                                        .orElse(StreamOffsets.empty());
                        // the store is this method's to close, not the drops'
                        StreamOffsets kept =
                                new StreamPartitionDrops(
                                                table,
                                                streamTable,
                                                () -> store,
                                                Duration.ZERO,
                                                System::currentTimeMillis)
                                        .beforeCommit(parent, StreamOffsets.empty());
                        if (!kept.equals(parent)) {
                            LakeStreamEnablement.commitOffsets(
                                    identifier,
                                    table,
                                    "lake-stream-partition-drop-" + UUID.randomUUID(),
                                    kept,
                                    ValidationException::new);
                        }
                        return null;
                    });
        } catch (WriterLeases.LeaseHeldException e) {
            LOG.info(
                    "Partitions of table {} were dropped while a sink job writes it; its "
                            + "committer drops their stream partitions at a commit. {}",
                    identifier.getFullName(),
                    e.getMessage());
        } catch (RuntimeException e) {
            // the partitions are gone from Paimon, as the statement asked; the next committer or
            // drop follows them
            LOG.warn(
                    "Partitions of table {} were dropped, but their stream partitions are kept "
                            + "for now.",
                    identifier.getFullName(),
                    e);
        }
    }
}
