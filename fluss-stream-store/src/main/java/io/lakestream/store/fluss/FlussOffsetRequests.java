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

package io.lakestream.store.fluss;

import org.apache.paimon.data.BinaryRow;

import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.metadata.MetadataUpdater;
import org.apache.fluss.client.utils.ClientRpcMessageUtils;
import org.apache.fluss.exception.LeaderNotAvailableException;
import org.apache.fluss.exception.PartitionNotExistException;
import org.apache.fluss.metadata.PhysicalTablePath;
import org.apache.fluss.metadata.TableBucket;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.rpc.gateway.TabletServerGateway;
import org.apache.fluss.rpc.messages.ListOffsetsResponse;
import org.apache.fluss.rpc.messages.PbListOffsetsRespForBucket;
import org.apache.fluss.rpc.protocol.ApiError;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Sends the offset listings of many partitions of one stream table, at several positions, after one
 * refresh of the client's metadata for all of them.
 *
 * <p>Written by hand on Fluss's client metadata and RPC messages because Fluss 0.9.1's {@code
 * Admin#listOffsets} takes one partition per call and, before it sends, refreshes the table's
 * metadata, describes the table and refreshes the partition's metadata, each a round trip made in
 * sequence on the calling thread ({@code FlussAdmin#listOffsets}): three round trips per partition
 * before the first listing leaves. Here one metadata request (two for a table the client has not
 * seen) covers them all, the metadata being fresh as Fluss's own call makes it (a follower answers
 * a listing with its own, lower, high watermark, so a stale leader must not be asked), and the
 * listings (one per partition, bucket leader and position, as Fluss's {@code ListOffsetsRequest}
 * names one partition) all go out before any is awaited. A listing whose partition, leader or
 * answer is missing completes exceptionally; the caller asks it again.
 */
final class FlussOffsetRequests {

    private FlussOffsetRequests() {}

    /**
     * Sends the listings and returns, per partition, one future per position (in the order of
     * {@code specs}) of the offsets of its buckets.
     *
     * @param names the table's partition names, or null when it is not partitioned (its one
     *     partition is then the empty row)
     * @param existingPartitions the names of the partitions the cluster has; asked only when a
     *     partition is missing
     * @param retry whether these listings failed before: the table's metadata is then learned on
     *     its own first, as for a table the client never saw
     */
    static Map<BinaryRow, List<CompletableFuture<Map<Integer, Long>>>> send(
            MetadataUpdater metadata,
            TablePath tablePath,
            @Nullable FlussPartitionNames names,
            Map<BinaryRow, List<Integer>> bucketsPerPartition,
            List<OffsetSpec> specs,
            Supplier<Set<String>> existingPartitions,
            boolean retry) {
        Map<BinaryRow, PhysicalTablePath> paths = new LinkedHashMap<>();
        for (BinaryRow partition : bucketsPerPartition.keySet()) {
            paths.put(
                    partition,
                    names == null
                            ? PhysicalTablePath.of(tablePath)
                            : PhysicalTablePath.of(tablePath, names.nameOf(partition)));
        }
        Map<BinaryRow, List<CompletableFuture<Map<Integer, Long>>>> listings =
                new LinkedHashMap<>();
        Set<BinaryRow> missing;
        RuntimeException refreshFailure = null;
        try {
            missing = refresh(metadata, tablePath, names, paths, existingPartitions, retry);
        } catch (RuntimeException e) {
            // the cluster unreachable or busy: every listing fails with it, and the caller asks
            // again until its timeout, as it does for a listing that failed on its own
            missing = Collections.emptySet();
            refreshFailure = e;
        }
        Optional<Long> tableId = metadata.getCluster().getTableId(tablePath);
        for (Map.Entry<BinaryRow, List<Integer>> entry : bucketsPerPartition.entrySet()) {
            BinaryRow partition = entry.getKey();
            PhysicalTablePath path = paths.get(partition);
            Long partitionId = names == null ? null : metadata.getPartitionId(path).orElse(-1L);
            RuntimeException failure = refreshFailure;
            if (failure == null && missing.contains(partition)) {
                failure = new PartitionNotExistException("Partition " + path + " does not exist.");
            } else if (failure == null
                    && (!tableId.isPresent() || (partitionId != null && partitionId < 0))) {
                failure = new LeaderNotAvailableException("No metadata yet for " + path);
            }
            List<CompletableFuture<Map<Integer, Long>>> perSpec = new ArrayList<>();
            for (OffsetSpec spec : specs) {
                perSpec.add(
                        failure != null
                                ? CompletableFuture.failedFuture(failure)
                                : list(
                                        metadata,
                                        tableId.get(),
                                        partitionId,
                                        entry.getValue(),
                                        spec));
            }
            listings.put(partition, perSpec);
        }
        return listings;
    }

    /**
     * Refreshes the metadata of the table and of {@code paths} and returns the partitions the
     * cluster does not have. One request when the client knows the table; two, the table's first,
     * when it does not or when the listings are asked again: Fluss's client files a partition's
     * answer under the table its metadata knows already ({@code
     * MetadataUtils#getTableMetadataToUpdate}), which a table just created, or dropped and created
     * again, is not. Fluss answers a request naming a missing partition with an error for the whole
     * request: the cluster's partitions are then listed once and the request is made again without
     * the missing ones.
     */
    private static Set<BinaryRow> refresh(
            MetadataUpdater metadata,
            TablePath tablePath,
            @Nullable FlussPartitionNames names,
            Map<BinaryRow, PhysicalTablePath> paths,
            Supplier<Set<String>> existingPartitions,
            boolean retry) {
        Set<TablePath> table = Collections.singleton(tablePath);
        boolean tableKnown = !retry && metadata.getCluster().getTableId(tablePath).isPresent();
        if (names == null || !tableKnown) {
            metadata.updateMetadata(table, null, null);
            if (names == null) {
                return Collections.emptySet();
            }
        }
        // the table's metadata rides along when the client knew it already
        Set<TablePath> withTable = tableKnown ? table : Collections.emptySet();
        try {
            metadata.updateMetadata(withTable, paths.values(), null);
            return Collections.emptySet();
        } catch (PartitionNotExistException e) {
            Set<String> existing = existingPartitions.get();
            Set<BinaryRow> missing = new LinkedHashSet<>();
            List<PhysicalTablePath> present = new ArrayList<>();
            for (Map.Entry<BinaryRow, PhysicalTablePath> entry : paths.entrySet()) {
                if (existing.contains(entry.getValue().getPartitionName())) {
                    present.add(entry.getValue());
                } else {
                    missing.add(entry.getKey());
                }
            }
            try {
                metadata.updateMetadata(withTable, present, null);
            } catch (PartitionNotExistException again) {
                // dropped in between: the listings of the partitions the refresh did not reach
                // fail for want of metadata, and the caller asks them again
            }
            return missing;
        }
    }

    /** One partition's listing at one position: a request per bucket leader. */
    private static CompletableFuture<Map<Integer, Long>> list(
            MetadataUpdater metadata,
            long tableId,
            @Nullable Long partitionId,
            List<Integer> buckets,
            OffsetSpec spec) {
        Map<Integer, List<Integer>> bucketsPerLeader = new HashMap<>();
        for (int bucket : buckets) {
            Integer leader =
                    metadata.getCluster().leaderFor(new TableBucket(tableId, partitionId, bucket));
            if (leader == null) {
                return CompletableFuture.failedFuture(
                        new LeaderNotAvailableException(
                                "No leader known yet for bucket "
                                        + bucket
                                        + " of partition "
                                        + partitionId
                                        + " of table "
                                        + tableId));
            }
            bucketsPerLeader.computeIfAbsent(leader, l -> new ArrayList<>()).add(bucket);
        }
        Map<Integer, Long> offsets = new ConcurrentHashMap<>();
        CompletableFuture<?>[] requests = new CompletableFuture<?>[bucketsPerLeader.size()];
        int i = 0;
        for (Map.Entry<Integer, List<Integer>> entry : bucketsPerLeader.entrySet()) {
            TabletServerGateway gateway = metadata.newTabletServerClientForNode(entry.getKey());
            if (gateway == null) {
                return CompletableFuture.failedFuture(
                        new LeaderNotAvailableException(
                                "Tablet server " + entry.getKey() + " is not in the metadata."));
            }
            requests[i++] =
                    gateway.listOffsets(
                                    ClientRpcMessageUtils.makeListOffsetsRequest(
                                            tableId, partitionId, entry.getValue(), spec))
                            .thenAccept(response -> collect(response, offsets));
        }
        return CompletableFuture.allOf(requests)
                .thenApply(
                        done -> {
                            if (offsets.size() != buckets.size()) {
                                throw new LeaderNotAvailableException(
                                        "The leaders answered for buckets "
                                                + offsets.keySet()
                                                + " of "
                                                + buckets
                                                + " of partition "
                                                + partitionId
                                                + " of table "
                                                + tableId);
                            }
                            return offsets;
                        });
    }

    private static void collect(ListOffsetsResponse response, Map<Integer, Long> offsets) {
        for (PbListOffsetsRespForBucket bucket : response.getBucketsRespsList()) {
            if (bucket.hasErrorCode()) {
                throw ApiError.fromErrorMessage(bucket).exception();
            }
            offsets.put(bucket.getBucketId(), bucket.getOffset());
        }
    }
}
