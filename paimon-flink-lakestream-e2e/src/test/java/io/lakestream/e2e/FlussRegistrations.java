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

package io.lakestream.e2e;

import io.lakestream.local.cluster.FlussProcessCluster;
import io.lakestream.testutils.Await;

import org.apache.fluss.metadata.TableBucket;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.server.zk.NOPErrorHandler;
import org.apache.fluss.server.zk.ZooKeeperClient;
import org.apache.fluss.server.zk.ZooKeeperTestUtils;
import org.apache.fluss.server.zk.data.LeaderAndIsr;

import java.util.ArrayList;
import java.util.List;

/**
 * What the coordinator of a {@link FlussProcessCluster} recorded in ZooKeeper: tablet server
 * registrations and bucket leaders, read through Fluss's own ZooKeeper client (a test utility of
 * Fluss's, hence here and not in the cluster class).
 */
final class FlussRegistrations {

    private final FlussProcessCluster cluster;

    FlussRegistrations(FlussProcessCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * Waits until killed tablet server 0 is unregistered; see {@link
     * #awaitTabletServerUnregistered(int)}.
     */
    void awaitTabletServerUnregistered() throws Exception {
        awaitTabletServerUnregistered(0);
    }

    /**
     * Waits until killed tablet server {@code id}'s registration is gone from ZooKeeper, which is
     * when its session expires and the coordinator takes it for dead. Asked of ZooKeeper through
     * Fluss's own client of it, which knows where Fluss keeps the registrations.
     */
    void awaitTabletServerUnregistered(int id) throws Exception {
        try (ZooKeeperClient zooKeeperClient =
                ZooKeeperTestUtils.createZooKeeperClient(
                        cluster.zooKeeperAddress(), NOPErrorHandler.INSTANCE)) {
            Await.until(
                    () -> !zooKeeperClient.getTabletServer(id).isPresent(),
                    FlussProcessCluster.startupTimeout(),
                    () ->
                            String.format(
                                    "Tablet server %d was still registered in ZooKeeper %s after "
                                            + "it was killed; logs in %s",
                                    id, FlussProcessCluster.startupTimeout(), cluster.logDir()));
        }
    }

    /**
     * The leader and in-sync replicas (tablet server ids, leader first) of bucket {@code bucket} of
     * the unpartitioned Fluss table {@code database.table}, as the coordinator recorded them in
     * ZooKeeper.
     */
    List<Integer> leaderAndIsr(String database, String table, int bucket) throws Exception {
        try (ZooKeeperClient zooKeeperClient =
                ZooKeeperTestUtils.createZooKeeperClient(
                        cluster.zooKeeperAddress(), NOPErrorHandler.INSTANCE)) {
            TablePath path = TablePath.of(database, table);
            long tableId =
                    zooKeeperClient
                            .getTable(path)
                            .orElseThrow(() -> new IllegalStateException("No Fluss table " + path))
                            .tableId;
            LeaderAndIsr leaderAndIsr =
                    zooKeeperClient
                            .getLeaderAndIsr(new TableBucket(tableId, bucket))
                            .orElseThrow(
                                    () ->
                                            new IllegalStateException(
                                                    "No leader of bucket "
                                                            + bucket
                                                            + " of "
                                                            + path));
            List<Integer> replicas = new ArrayList<>();
            replicas.add(leaderAndIsr.leader());
            for (int replica : leaderAndIsr.isr()) {
                if (replica != leaderAndIsr.leader()) {
                    replicas.add(replica);
                }
            }
            return replicas;
        }
    }
}
