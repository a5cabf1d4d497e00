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

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * A lake-stream SQL program for a JVM whose class path is Flink's {@code lib/} as {@code
 * docs/deploy.md} lists it: the bundle jar, {@code paimon-flink-1.20}, Hadoop's client jars and
 * Flink's own. It uses Flink's public API only, so that every project and Fluss class it reaches is
 * the bundle's, found the way Flink finds connectors: through the catalog factory's service file.
 *
 * <p>It prints {@code RESULT <name>=<sorted ids>} lines to standard output for the test to check,
 * and exits with 0 once everything ran, with 1 and the error otherwise.
 *
 * <p>Arguments: the warehouse URI, the Fluss bootstrap servers, a savepoint directory URI, the
 * catalog's {@code lake-stream.store.database-prefix}, and optionally {@code with-fluss-connector}:
 * Fluss's own Flink connector is on the class path too, and the program then checks that Fluss's
 * {@code fluss} catalog works beside lake-stream mode (it prints {@code FLUSS_DATABASES <names>})
 * instead of running the streaming part.
 */
public final class BundleSqlMain {

    /** The streaming INSERT writes this many rows a second, from id 101 on. */
    private static final int ROWS_PER_SECOND = 5;

    /** How many store rows the union read waits for before it reads. */
    private static final int TAIL_ROWS = 10;

    private static final long TIMEOUT_MILLIS = TimeUnit.MINUTES.toMillis(2);

    private BundleSqlMain() {}

    public static void main(String[] args) {
        try {
            run(
                    args[0],
                    args[1],
                    args[2],
                    args[3],
                    args.length > 4 && "with-fluss-connector".equals(args[4]));
            System.out.flush();
            // Flink's and Fluss's pooled threads are not the program's concern: a CLI exits here
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(
            String warehouse,
            String bootstrapServers,
            String savepoints,
            String databasePrefix,
            boolean withFlussConnector)
            throws Exception {
        String createCatalog =
                String.format(
                        "CREATE CATALOG lake WITH ('type' = 'paimon-lakestream', 'warehouse' = "
                                + "'%s', 'lake-stream.fluss.bootstrap.servers' = '%s', "
                                + "'lake-stream.store.database-prefix' = '%s')",
                        warehouse, bootstrapServers, databasePrefix);

        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.getConfig().set("parallelism.default", "1");
        batch.executeSql(createCatalog);
        batch.executeSql("USE CATALOG lake");
        batch.executeSql("CREATE DATABASE db");
        batch.executeSql(
                "CREATE TABLE db.orders (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) "
                        + "WITH ('bucket' = '2', 'lake-stream.enabled' = 'true')");
        batch.executeSql("INSERT INTO db.orders VALUES (1, 'a'), (2, 'b'), (3, 'c')").await();
        result("committed.union", ids(batch, "SELECT id FROM db.orders"));
        result("committed.lake", ids(batch, lakeOnly()));
        if (withFlussConnector) {
            // Fluss's connector with its own, unrelocated Fluss client, in the same class loader
            batch.executeSql(
                    String.format(
                            "CREATE CATALOG fluss WITH ('type' = 'fluss', 'bootstrap.servers' = "
                                    + "'%s')",
                            bootstrapServers));
            List<String> databases = new ArrayList<>();
            try (CloseableIterator<Row> rows =
                    batch.executeSql("SHOW DATABASES IN fluss").collect()) {
                rows.forEachRemaining(row -> databases.add(String.valueOf(row.getField(0))));
            }
            databases.sort(String::compareTo);
            System.out.println("FLUSS_DATABASES " + databases);
            return;
        }

        // a streaming INSERT whose first checkpoint, and so its Paimon commit, is far away
        TableEnvironment streaming = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        streaming.getConfig().set("parallelism.default", "1");
        streaming.getConfig().set("execution.checkpointing.interval", "10 min");
        streaming.executeSql(
                String.format(
                        "CREATE TEMPORARY TABLE gen (id BIGINT) WITH ('connector' = 'datagen', "
                                + "'rows-per-second' = '%d', 'fields.id.kind' = 'sequence', "
                                + "'fields.id.start' = '101', 'fields.id.end' = '100000')",
                        ROWS_PER_SECOND));
        streaming.executeSql(createCatalog);
        TableResult insert =
                streaming.executeSql(
                        "INSERT INTO lake.db.orders SELECT id, CONCAT('n', CAST(id AS STRING)) "
                                + "FROM gen");
        JobClient job = insert.getJobClient().orElseThrow(IllegalStateException::new);

        long deadline = System.currentTimeMillis() + TIMEOUT_MILLIS;
        List<Long> union = ids(batch, "SELECT id FROM db.orders");
        while (union.size() < 3 + TAIL_ROWS) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("The union read saw only " + union);
            }
            Thread.sleep(500);
            union = ids(batch, "SELECT id FROM db.orders");
        }
        result("uncommitted.union", union);
        result("uncommitted.lake", ids(batch, lakeOnly()));

        // stop with drain: the sink's end of input commits everything to Paimon
        job.stopWithSavepoint(true, savepoints, SavepointFormatType.CANONICAL)
                .get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        job.getJobExecutionResult().get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        result("final.union", ids(batch, "SELECT id FROM db.orders"));
        result("final.lake", ids(batch, lakeOnly()));
    }

    private static String lakeOnly() {
        return "SELECT id FROM db.orders /*+ OPTIONS('lake-stream.read.lake-only' = 'true') */";
    }

    /** The ids a batch query returns, sorted; a duplicate fails the program. */
    private static List<Long> ids(TableEnvironment env, String query) throws Exception {
        List<Long> ids = new ArrayList<>();
        try (CloseableIterator<Row> rows = env.executeSql(query).collect()) {
            rows.forEachRemaining(row -> ids.add((Long) row.getField(0)));
        }
        if (new TreeSet<>(ids).size() != ids.size()) {
            throw new IllegalStateException(query + " returned duplicates: " + ids);
        }
        ids.sort(Long::compare);
        return ids;
    }

    private static void result(String name, List<Long> ids) {
        System.out.println("RESULT " + name + "=" + ids);
    }
}
