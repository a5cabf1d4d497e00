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

package io.lakestream.local.cluster;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Flink's SQL client with a Flink cluster in its own process: starts a {@link MiniCluster} (one
 * TaskManager, {@value #SLOTS} slots, a REST endpoint on a free port of the loopback address), then
 * runs Flink's {@code SqlClient} with the given arguments, its session pointed at that endpoint.
 *
 * <p>It is what the shell runs for the process-local {@code memory} store: the statements are
 * planned, the jobs' enumerators run and their tasks write and read in one JVM, the one the {@code
 * memory} store serves. The configuration is Flink's usual {@code config.yaml} in {@code
 * FLINK_CONF_DIR}; its {@code rest.port} is replaced by the port the cluster took.
 */
public final class MiniClusterSqlClient {

    /** A streaming INSERT, a streaming SELECT and batch queries at once, as the banner suggests. */
    static final int SLOTS = 4;

    private static final String SQL_CLIENT = "org.apache.flink.table.client.SqlClient";

    private MiniClusterSqlClient() {}

    public static void main(String[] args) throws Exception {
        Configuration config = GlobalConfiguration.loadConfiguration();
        config.set(RestOptions.ADDRESS, LocalPorts.HOST);
        config.set(RestOptions.BIND_ADDRESS, LocalPorts.HOST);
        config.set(RestOptions.BIND_PORT, "0");
        int exitCode = 0;
        try (MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(config)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(SLOTS)
                                .build())) {
            cluster.start();
            int port = cluster.getRestAddress().get().getPort();
            System.out.println(
                    "Flink: http://" + LocalPorts.HOST + ":" + port + " (Flink's REST API)");
            System.out.flush();
            try {
                // by name: Flink's SQL client is on the class path of the JVM this runs in
                // (flink-dist's opt/), not a compile dependency, whose scope makes the class path
                // files of this module (see its pom)
                Class.forName(SQL_CLIENT)
                        .getMethod("main", String[].class)
                        .invoke(null, (Object) withRestPort(args, port));
            } catch (InvocationTargetException clientFailed) {
                // the client printed its error; its exit code says so, as sql-client.sh's does
                exitCode = 1;
            }
        }
        // the cluster's and the client's non-daemon threads must not keep the process alive
        System.exit(exitCode);
    }

    /**
     * {@code args} with the session's {@code rest.port} set after the mode, SqlClient's {@code -D}.
     */
    private static String[] withRestPort(String[] args, int port) {
        List<String> withPort = new ArrayList<>(Arrays.asList(args));
        int afterMode = !withPort.isEmpty() && !withPort.get(0).startsWith("-") ? 1 : 0;
        withPort.add(afterMode, "-D" + RestOptions.PORT.key() + "=" + port);
        withPort.add(afterMode, "-D" + RestOptions.ADDRESS.key() + "=" + LocalPorts.HOST);
        return withPort.toArray(new String[0]);
    }
}
