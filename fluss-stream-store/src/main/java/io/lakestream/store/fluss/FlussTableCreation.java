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

import io.lakestream.store.StreamStoreException;

import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.exception.TableAlreadyExistException;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.metadata.TablePath;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Creates a Fluss table if it does not exist and, when it created it, makes sure that the
 * coordinator took it: that each of its buckets has a leader.
 *
 * <p>Fluss 0.9.1's coordinator can miss a new table (apache/fluss#1018, fixed in later versions):
 * its ZooKeeper cache may read the table's node only after the data was written into it, report the
 * node as created with that data, and never report the change that the coordinator takes for a
 * creation. The table then never gets leaders, and every write to it waits until it times out.
 * Three tables created in a row (a stream table with its fence and writer logs) met it in about one
 * start in four of a fresh local cluster. A table this class created is new and empty, so one
 * without leaders after {@link #LEADER_TIMEOUT} is dropped and created again. A table that already
 * existed is left alone: no leaders there may be an outage, and dropping would lose its records.
 */
final class FlussTableCreation {

    private static final Logger LOG = LoggerFactory.getLogger(FlussTableCreation.class);

    /** Far longer than a leader election of a new table takes (milliseconds). */
    static final Duration LEADER_TIMEOUT = Duration.ofSeconds(10);

    /** How often a table is created before the store gives up. */
    static final int ATTEMPTS = 3;

    private static final long LEADER_POLL_MILLIS = 200;

    private FlussTableCreation() {}

    /** Creates {@code path} with {@code descriptor} unless it exists; see the class comment. */
    static void create(
            Admin admin, FlussAdminCalls calls, TablePath path, TableDescriptor descriptor) {
        create(admin, calls, path, () -> admin.createTable(path, descriptor, false));
    }

    /**
     * As {@link #create(Admin, FlussAdminCalls, TablePath, TableDescriptor)}, with the creating
     * call given: a future that fails with {@link TableAlreadyExistException} when the table
     * exists.
     */
    static void create(
            Admin admin,
            FlussAdminCalls calls,
            TablePath path,
            Supplier<CompletableFuture<Void>> creation) {
        for (int attempt = 1; ; attempt++) {
            boolean created =
                    calls.awaitRetrying(
                            () ->
                                    creation.get()
                                            .thenApply(done -> true)
                                            .exceptionally(
                                                    e -> {
                                                        if (FlussAdminCalls.causedBy(
                                                                e,
                                                                TableAlreadyExistException.class)) {
                                                            return false;
                                                        }
                                                        throw new CompletionException(e);
                                                    }),
                            "create table " + path);
            if (!created) {
                return;
            }
            TableInfo info = calls.await(admin.getTableInfo(path), "describe table " + path);
            if (info.isPartitioned() || hasLeaders(admin, calls, path, info)) {
                // a partitioned table has buckets, and so leaders, only in its partitions
                return;
            }
            if (attempt == ATTEMPTS) {
                throw new StreamStoreException(
                        String.format(
                                "Fluss table %s got no bucket leader within %s of its creation, "
                                        + "%d times: are the Fluss cluster's tablet servers up "
                                        + "(%s)? The coordinator's log tells which of its events "
                                        + "it handled.",
                                path,
                                FlussAdminCalls.format(LEADER_TIMEOUT),
                                ATTEMPTS,
                                calls.bootstrapServers()));
            }
            LOG.warn(
                    "Fluss table {} got no bucket leader within {} of its creation: the "
                            + "coordinator missed it (apache/fluss#1018). Dropping it, new and "
                            + "empty, and creating it again.",
                    path,
                    FlussAdminCalls.format(LEADER_TIMEOUT));
            calls.awaitRetrying(() -> admin.dropTable(path, true), "drop table " + path);
        }
    }

    /** Waits up to {@link #LEADER_TIMEOUT} until every bucket of the table has a leader. */
    private static boolean hasLeaders(
            Admin admin, FlussAdminCalls calls, TablePath path, TableInfo info) {
        List<Integer> buckets =
                IntStream.range(0, info.getNumBuckets()).boxed().collect(Collectors.toList());
        long deadline = System.nanoTime() + LEADER_TIMEOUT.toNanos();
        while (true) {
            try {
                // the client looks up each bucket's leader first, and fails at once without one
                calls.await(
                        admin.listOffsets(path, buckets, new OffsetSpec.LatestSpec()).all(),
                        "list the end offsets of table " + path);
                return true;
            } catch (RuntimeException noLeaderYet) {
                if (System.nanoTime() > deadline) {
                    LOG.debug("Table {} has no leaders yet", path, noLeaderYet);
                    return false;
                }
            }
            try {
                Thread.sleep(LEADER_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StreamStoreException(
                        "Interrupted while waiting for the leaders of table " + path, e);
            }
        }
    }
}
