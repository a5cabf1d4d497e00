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

import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.admin.OffsetSpec;
import org.apache.fluss.client.table.Table;
import org.apache.fluss.metadata.DatabaseDescriptor;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TableDescriptor;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.server.zk.ZooKeeperClient;
import org.apache.fluss.server.zk.data.BucketAssignment;
import org.apache.fluss.server.zk.data.TableAssignment;
import org.apache.fluss.server.zk.data.TableRegistration;
import org.apache.fluss.types.DataTypes;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A table the store just created that gets no bucket leader, as one that Fluss 0.9.1's coordinator
 * missed (apache/fluss#1018) does not, is dropped and created again, and then takes writes; a table
 * that existed is not touched. The leaderless table is made for real in the shared cluster: it is
 * registered in ZooKeeper with its bucket assigned to a tablet server that does not exist (the race
 * itself depends on timing).
 */
@ExtendWith(SharedFlussCluster.class)
class FlussTableCreationITCase {

    private static final String DATABASE = "creation_it";

    private static final int NO_SUCH_TABLET_SERVER = 999;

    private static final TableDescriptor DESCRIPTOR =
            TableDescriptor.builder()
                    .schema(Schema.newBuilder().column("v", DataTypes.INT()).build())
                    .distributedBy(1)
                    .build();

    private static Connection connection;
    private static Admin admin;
    private static FlussAdminCalls calls;

    @BeforeAll
    static void connect() throws Exception {
        connection =
                ConnectionFactory.createConnection(SharedFlussCluster.cluster().getClientConfig());
        admin = connection.getAdmin();
        admin.createDatabase(DATABASE, DatabaseDescriptor.EMPTY, true).get();
        calls = new FlussAdminCalls(SharedFlussCluster.bootstrapServers(), Duration.ofSeconds(30));
    }

    @AfterAll
    static void close() throws Exception {
        admin.close();
        connection.close();
    }

    @Test
    void aTableTheCoordinatorMissedIsCreatedAgainAndTakesWrites() throws Exception {
        TablePath path = TablePath.of(DATABASE, "missed");
        AtomicInteger creations = new AtomicInteger();
        FlussTableCreation.create(
                admin,
                calls,
                path,
                () ->
                        creations.incrementAndGet() == 1
                                ? registerWithoutALeader(path)
                                : admin.createTable(path, DESCRIPTOR, false));

        assertThat(creations).hasValue(2);
        try (Table table = connection.getTable(path)) {
            table.newAppend().createWriter().append(GenericRow.of(7)).get(30, TimeUnit.SECONDS);
        }
        assertThat(
                        admin.listOffsets(
                                        path,
                                        Collections.singletonList(0),
                                        new OffsetSpec.LatestSpec())
                                .all()
                                .get(30, TimeUnit.SECONDS))
                .containsEntry(0, 1L);
    }

    @Test
    void anExistingTableIsNotCreatedAgain() {
        TablePath path = TablePath.of(DATABASE, "existing");
        AtomicInteger creations = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            FlussTableCreation.create(
                    admin,
                    calls,
                    path,
                    () -> {
                        creations.incrementAndGet();
                        return admin.createTable(path, DESCRIPTOR, false);
                    });
        }
        // the second call found it: one creation each, no drop
        assertThat(creations).hasValue(2);
        assertThat(admin.tableExists(path).join()).isTrue();
    }

    /**
     * Registers the table in ZooKeeper as Fluss's coordinator does on {@code createTable}, but with
     * its only bucket assigned to a tablet server that does not exist: the coordinator takes the
     * table and can elect no leader, which leaves the table as the missed creation leaves it.
     */
    private static CompletableFuture<Void> registerWithoutALeader(TablePath path) {
        try {
            ZooKeeperClient zooKeeper = SharedFlussCluster.cluster().getZooKeeperClient();
            long tableId = zooKeeper.getTableIdAndIncrement();
            zooKeeper.registerTableAssignment(
                    tableId,
                    TableAssignment.builder()
                            .add(0, BucketAssignment.of(NO_SUCH_TABLET_SERVER))
                            .build());
            zooKeeper.registerFirstSchema(path, DESCRIPTOR.getSchema());
            zooKeeper.registerTable(path, TableRegistration.newTable(tableId, DESCRIPTOR), false);
            return CompletableFuture.completedFuture(null);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
