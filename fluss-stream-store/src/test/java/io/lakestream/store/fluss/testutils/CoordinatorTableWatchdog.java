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

package io.lakestream.store.fluss.testutils;

import org.apache.fluss.metadata.SchemaInfo;
import org.apache.fluss.metadata.TableInfo;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.server.coordinator.CoordinatorContext;
import org.apache.fluss.server.coordinator.CoordinatorEventProcessor;
import org.apache.fluss.server.coordinator.event.CreateTableEvent;
import org.apache.fluss.server.testutils.FlussClusterExtension;
import org.apache.fluss.server.zk.ZooKeeperClient;
import org.apache.fluss.server.zk.data.TableAssignment;
import org.apache.fluss.server.zk.data.TableRegistration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Works around a race in the Fluss 0.9.1 coordinator for the in-process test cluster. The
 * coordinator learns of a new table from a ZooKeeper cache event: the server first creates the
 * table's node empty (with its schema below it), then sets its data, and the coordinator takes the
 * data change as the creation. When the cache reads the node only after its data is set, it reports
 * a creation with data and no change, which the coordinator ignores: the table stays unknown to it,
 * the first partition created for it fails the coordinator's leader election with a
 * NullPointerException, and from then on no new bucket of any table gets a leader, so every later
 * write to a new partition waits forever.
 *
 * <p>This watchdog compares the tables in ZooKeeper with the coordinator's and hands the
 * coordinator the creation event it missed, built as the coordinator's own watcher builds it, long
 * before the table's first partition is created (a writer needs seconds to start).
 */
final class CoordinatorTableWatchdog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorTableWatchdog.class);
    private static final long PERIOD_MILLIS = 200;

    private final FlussClusterExtension cluster;
    private final ScheduledExecutorService executor;
    private final Set<Long> known = new HashSet<>();
    private final Set<Long> missingOnce = new HashSet<>();

    CoordinatorTableWatchdog(FlussClusterExtension cluster) {
        this.cluster = cluster;
        this.executor =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread thread = new Thread(r, "fluss-coordinator-table-watchdog");
                            thread.setDaemon(true);
                            return thread;
                        });
        executor.scheduleWithFixedDelay(
                this::check, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void check() {
        try {
            CoordinatorEventProcessor processor =
                    cluster.getCoordinatorServer().getCoordinatorEventProcessor();
            CoordinatorContext context = processor.getCoordinatorContext();
            ZooKeeperClient zk = cluster.getZooKeeperClient();
            for (String database : zk.listDatabases()) {
                for (String name : zk.listTables(database)) {
                    TablePath path = TablePath.of(database, name);
                    Optional<TableRegistration> registration = zk.getTable(path);
                    if (!registration.isPresent() || known.contains(registration.get().tableId)) {
                        continue;
                    }
                    long tableId = registration.get().tableId;
                    if (context.containsTableId(tableId)) {
                        known.add(tableId);
                        missingOnce.remove(tableId);
                    } else if (!missingOnce.add(tableId)) {
                        // missing at two checks in a row: the coordinator missed its creation
                        repair(processor, zk, path, registration.get());
                        missingOnce.remove(tableId);
                    }
                }
            }
        } catch (Throwable t) {
            // tables come and go while the tests run; the next check sees a settled state
            LOG.debug("Coordinator table check failed", t);
        }
    }

    private static void repair(
            CoordinatorEventProcessor processor,
            ZooKeeperClient zk,
            TablePath path,
            TableRegistration table)
            throws Exception {
        TableAssignment assignment;
        if (!table.partitionKeys.isEmpty()) {
            assignment = TableAssignment.builder().build();
        } else {
            Optional<TableAssignment> stored = zk.getTableAssignment(table.tableId);
            if (!stored.isPresent()) {
                return;
            }
            assignment = stored.get();
        }
        Optional<SchemaInfo> schema = zk.getSchemaById(path, zk.getCurrentSchemaId(path));
        if (!schema.isPresent()) {
            return;
        }
        TableInfo info = table.toTableInfo(path, schema.get());
        LOG.warn(
                "The Fluss coordinator missed the creation of table {} (id {}); handing it the "
                        + "event.",
                path,
                table.tableId);
        processor.getCoordinatorEventManager().put(new CreateTableEvent(info, assignment));
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
