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

import io.lakestream.local.cluster.FlinkProcessCluster;
import io.lakestream.local.cluster.FlinkSqlClient;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.lakestream.e2e.LakeStreamScenario.RECOVERY_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/deploy.md} as a user follows it: the Flink cluster runs with the page's Flink
 * settings, the jars its commands copy into {@code lib/} are the ones the clusters run on, the keys
 * of its Fluss settings are Fluss options, and every {@code sql} block of the page runs through
 * Flink's SQL client, in the page's order, against a Flink and a Fluss cluster of separate
 * processes: the walkthrough from {@code CREATE CATALOG} to a streaming {@code INSERT}, the batch
 * {@code SELECT} and {@code lake_stream_status} the page describes, an upgrade by
 * stop-with-savepoint and restore, and turning the mode off. What the page says the user sees is
 * asserted, and at the end Paimon's own read holds every row the job wrote exactly once.
 *
 * <p>The processes' configuration, data and logs are under {@code target/e2e/deploy-guide-*}.
 */
@ExtendWith(NoProcessLeftBehind.class)
class DeployGuideE2ECase {

    /** The placeholders the page uses for what differs from one installation to another. */
    private static final String WAREHOUSE = "file:///path/to/warehouse";

    private static final String FLUSS = "fluss-server:9123";
    private static final String JOB_ID = "<job id>";
    private static final String SAVEPOINT = "<savepoint path>";

    /** The placeholders of the page's Flink settings for the checkpoint and savepoint directory. */
    private static final String CHECKPOINTS_DIR = "file:///path/to/checkpoints";

    private static final String SAVEPOINTS_DIR = "file:///path/to/savepoints";

    /** What the page's walkthrough writes: two committed rows, then datagen's ids from 1000. */
    private static final List<Long> HISTORY_IDS = List.of(1L, 2L);

    private static final long FIRST_STREAMED_ID = 1000;

    private static final Pattern FENCE = Pattern.compile("^```(\\w*)\\s*$");

    private static String page;
    private static LakeStreamScenario scenario;

    /** The directory the page's savepoint setting points at, in place of its placeholder. */
    private static Path savepointsDir;

    @BeforeAll
    static void startClusters() throws Exception {
        page = Files.readString(docsPath(), StandardCharsets.UTF_8);
        // the Flink cluster runs with the settings the page gives
        Map<String, String> flinkSettings = yaml(block("yaml", "execution.checkpointing"));
        // the upgrade steps stop with a savepoint and restore: the page sets both directories
        assertThat(flinkSettings)
                .containsEntry("execution.checkpointing.dir", CHECKPOINTS_DIR)
                .containsEntry("execution.checkpointing.savepoint-dir", SAVEPOINTS_DIR);
        Path stateDir =
                Files.createTempDirectory(
                        Files.createDirectories(
                                Paths.get(System.getProperty("basedir", "."), "target", "e2e")),
                        "deploy-guide-state-");
        savepointsDir = stateDir.resolve("savepoints");
        flinkSettings.replaceAll(
                (key, value) ->
                        value.replace(
                                        CHECKPOINTS_DIR,
                                        stateDir.resolve("checkpoints").toUri().toString())
                                .replace(SAVEPOINTS_DIR, savepointsDir.toUri().toString()));
        scenario = LakeStreamScenario.start("deploy-guide", 3, 2, flinkSettings);
        scenario.log("Flink settings from the page: %s", flinkSettings.keySet());
    }

    @AfterAll
    static void stopClusters() throws Exception {
        if (scenario != null) {
            scenario.close();
        }
    }

    /**
     * The jars of the page's {@code cp} commands and of its jar table are exactly the jars the
     * Flink processes of every end-to-end test run on besides Flink's own: a wrong name fails here.
     */
    @Test
    void jarsOfThePageAreTheOnesTheClustersRun() throws Exception {
        Set<String> onClassPath = new HashSet<>();
        Path userLib =
                Paths.get(
                        System.getProperty("basedir", "."),
                        "target",
                        "flink-classpath",
                        "user-lib.classpath");
        for (String jar :
                Files.readString(userLib, StandardCharsets.UTF_8)
                        .trim()
                        .split(File.pathSeparator)) {
            onClassPath.add(Paths.get(jar).getFileName().toString());
        }
        List<String> commands = blocks("bash");
        assertThat(commands).as("bash blocks of the page").isNotEmpty();
        List<String> copied = jarNames(commands.get(0));
        List<String> inTable = new ArrayList<>();
        for (String line : page.split("\n")) {
            Matcher cell = Pattern.compile("^\\| `([^`]+\\.jar)` \\|").matcher(line);
            if (cell.find()) {
                inTable.add(cell.group(1));
            }
        }
        List<String> upgrade = new ArrayList<>();
        commands.subList(1, commands.size()).forEach(block -> upgrade.addAll(jarNames(block)));
        scenario.log(
                "Jars of the page: copied %s, listed %s, upgraded %s; on the class path: %s",
                copied, inTable, upgrade, onClassPath);

        assertThat(copied.stream().map(DeployGuideE2ECase::matching).collect(Collectors.toList()))
                .as("the jars the page copies into lib/, matched against %s", onClassPath)
                .allSatisfy(name -> assertThat(onClassPath).anyMatch(jar -> jar.matches(name)));
        assertThat(onClassPath)
                .as("the jars the clusters run on, each copied by the page's command: %s", copied)
                .allSatisfy(
                        jar -> assertThat(copied).anyMatch(name -> jar.matches(matching(name))));
        assertThat(inTable).hasSameSizeAs(copied);
        assertThat(inTable)
                .allSatisfy(
                        name ->
                                assertThat(onClassPath)
                                        .anyMatch(jar -> jar.matches(matching(name))));
        assertThat(upgrade).isNotEmpty();
        assertThat(upgrade)
                .allSatisfy(
                        name ->
                                assertThat(onClassPath)
                                        .anyMatch(jar -> jar.matches(matching(name))));
    }

    /** Every key of the page's Fluss {@code server.yaml} lines is an option of Fluss's servers. */
    @Test
    void flussSettingsOfThePageAreFlussOptions() throws Exception {
        Set<String> flussKeys = new HashSet<>();
        for (Field field : org.apache.fluss.config.ConfigOptions.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers())
                    && field.get(null) instanceof org.apache.fluss.config.ConfigOption) {
                flussKeys.add(((org.apache.fluss.config.ConfigOption<?>) field.get(null)).key());
            }
        }
        Map<String, String> settings = yaml(block("yaml", "default.replication.factor"));
        assertThat(settings).isNotEmpty();
        assertThat(flussKeys).as("Fluss's option keys").containsAll(settings.keySet());
    }

    /** The page's {@code sql} blocks in order, with what each step tells the user to expect. */
    @Test
    void walkthroughUpgradeAndTurningOff() throws Exception {
        List<String> sql = blocks("sql");
        List<String> expectedSteps =
                List.of(
                        "CREATE CATALOG lake",
                        "ALTER TABLE shop.orders SET ('lake-stream.enabled' = 'true')",
                        "INSERT INTO shop.orders SELECT",
                        "SELECT COUNT(*) AS all_rows",
                        "lake_stream_status",
                        "STOP JOB '<job id>' WITH SAVEPOINT",
                        "SET 'execution.savepoint.path' = '<savepoint path>'",
                        "STOP JOB '<job id>' WITH SAVEPOINT",
                        "ALTER TABLE shop.orders SET ('lake-stream.enabled' = 'false')");
        assertThat(sql).as("the sql blocks of the page").hasSize(expectedSteps.size());
        for (int i = 0; i < sql.size(); i++) {
            assertThat(sql.get(i))
                    .as("sql block %d of the page", i + 1)
                    .contains(expectedSteps.get(i));
        }
        FlinkProcessCluster flink = scenario.flink();
        FlinkSqlClient client = scenario.sqlClient();
        long clustersStarted = System.nanoTime();
        String warehouse = scenario.warehouse().toUri().toString();
        String catalog =
                sql.get(0)
                        .replace(WAREHOUSE, warehouse)
                        .replace(FLUSS, scenario.fluss().bootstrapServers());
        assertThat(catalog).doesNotContain(WAREHOUSE).doesNotContain(FLUSS);

        // 1 to 3 in one session, as a user types them: the catalog, a table with history enabled
        // in place, and the streaming INSERT, which returns with the job's id
        String jobId =
                LakeStreamScenario.lastJobId(
                        client.run("deploy-insert", catalog + sql.get(1) + sql.get(2)));
        scenario.awaitFullyRunning(jobId);
        // no pause: the next client needs seconds to start, while the job writes 20 rows a second

        // 4 and 5: the union read counts rows no snapshot holds; the status shows them per bucket
        long checkpointsBefore = flink.completedCheckpoints(jobId);
        List<String> read = client.run("deploy-read", catalog + sql.get(3) + sql.get(4));
        long checkpoints = flink.completedCheckpoints(jobId);
        long committedRows = single(read, "committed_rows");
        long allRows = single(read, "all_rows");
        scenario.log(
                "Step 4: %d rows in the union read, %d committed; %d checkpoints before the "
                        + "reads, %d after",
                allRows, committedRows, checkpointsBefore, checkpoints);
        // Flink takes the first checkpoint at a random moment of the first interval
        boolean committedNothing = checkpoints == 0;
        if (committedNothing) {
            assertThat(committedRows).isEqualTo(HISTORY_IDS.size());
        }
        assertThat(committedRows).isGreaterThanOrEqualTo(HISTORY_IDS.size());
        assertThat(allRows)
                .as("rows in the union read, read after the committed ones")
                .isGreaterThan(committedRows);
        List<Map<String, String>> status = table(read, "readable_offset");
        assertThat(status).as("status rows, one per bucket").hasSize(4);
        long readable = 0;
        for (Map<String, String> row : status) {
            long committed = Long.parseLong(row.get("committed_offset"));
            long end = Long.parseLong(row.get("readable_offset"));
            assertThat(row.get("partition")).isEmpty();
            assertThat(row.get("tiered_offset")).isEqualTo(row.get("committed_offset"));
            if (committedNothing) {
                assertThat(committed).isZero();
            }
            assertThat(end).isGreaterThanOrEqualTo(committed);
            assertThat(Long.parseLong(row.get("uncommitted_records"))).isEqualTo(end - committed);
            assertThat(row.get("fenced_records")).isEqualTo("0");
            assertThat(row.get("writer")).startsWith("Flink job " + jobId + " ");
            assertThat(row.get("writer_lease_expired")).isEqualToIgnoringCase("false");
            readable += end;
        }
        assertThat(status.stream().map(row -> row.get("bucket")).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder("0", "1", "2", "3");
        assertThat(readable)
                .as("records in the store, read after the union read")
                .isGreaterThanOrEqualTo(allRows - HISTORY_IDS.size());

        // upgrade: stop with a savepoint, then start again from it
        String savepoint =
                stopWithSavepoint(client, catalog, sql.get(5), jobId, "deploy-upgrade-stop");
        long restore = System.nanoTime();
        String restored =
                LakeStreamScenario.lastJobId(
                        client.run(
                                "deploy-upgrade-restore",
                                catalog + sql.get(6).replace(SAVEPOINT, savepoint)));
        assertThat(sql.get(6)).contains(SAVEPOINT);
        scenario.awaitFullyRunning(restored);
        // a job waiting for another job's writer lease would still be initializing its writers
        scenario.log(
                "Job %s restored from the savepoint ran with all tasks %d ms after its statement",
                restored, LakeStreamScenario.millisSince(restore));

        // turning off: stop with a savepoint; nothing uncommitted; Paimon alone has every row
        stopWithSavepoint(client, catalog, sql.get(7), restored, "deploy-off-stop");
        List<String> off = client.run("deploy-off", catalog + sql.get(8));
        List<Map<String, String>> finalStatus = table(off, "readable_offset");
        assertThat(finalStatus).hasSize(4);
        for (Map<String, String> row : finalStatus) {
            assertThat(row.get("uncommitted_records"))
                    .as("uncommitted records after the stop with a savepoint: %s", row)
                    .isEqualTo("0");
            assertThat(row.get("lag_records")).isEqualTo("0");
            assertThat(row.get("committed_offset")).isEqualTo(row.get("readable_offset"));
            assertThat(row.get("writer")).startsWith("Flink job " + restored + " ");
        }
        long finalRows = single(off, "all_rows");
        List<Long> ids = paimonIds(warehouse, "shop", "orders");
        Collections.sort(ids);
        scenario.log(
                "Turned off: %d rows in the read after the ALTER, %d in Paimon's read (ids %s to %s); "
                        + "the page's steps took %d ms after the clusters started",
                finalRows,
                ids.size(),
                ids.get(0),
                ids.get(ids.size() - 1),
                LakeStreamScenario.millisSince(clustersStarted));
        List<Long> expected = new ArrayList<>(HISTORY_IDS);
        for (long id = FIRST_STREAMED_ID; id <= ids.get(ids.size() - 1); id++) {
            expected.add(id);
        }
        assertThat(ids).as("ids in Paimon's read: every row once, none lost").isEqualTo(expected);
        assertThat((long) ids.size()).isGreaterThan(allRows);
        assertThat(finalRows).isEqualTo((long) ids.size());
    }

    /**
     * Runs the page's stop-with-savepoint block for {@code jobId}, waits until the job finished,
     * and returns the savepoint path the client printed.
     */
    private static String stopWithSavepoint(
            FlinkSqlClient client, String catalog, String block, String jobId, String name)
            throws Exception {
        assertThat(block).contains(JOB_ID);
        List<String> output = client.run(name, catalog + block.replace(JOB_ID, jobId));
        List<Map<String, String>> rows = table(output, "savepoint path");
        assertThat(rows).as("the savepoint path the client printed: %s", output).hasSize(1);
        String savepoint = rows.get(0).get("savepoint path");
        assertThat(savepoint)
                .doesNotEndWith("...")
                .contains("savepoint-")
                .as("a savepoint in the page's savepoint directory")
                .contains(savepointsDir.toAbsolutePath().toString());
        FlinkProcessCluster flink = scenario.flink();
        String state =
                Await.poll(
                        () -> flink.jobState(jobId),
                        "FINISHED"::equals,
                        RECOVERY_TIMEOUT,
                        Duration.ofMillis(200));
        assertThat(state)
                .as("state of job %s after its stop with a savepoint", jobId)
                .isEqualTo("FINISHED");
        scenario.log("Stopped job %s with savepoint %s", jobId, savepoint);
        return savepoint;
    }

    private static Path docsPath() {
        return Paths.get(System.getProperty("basedir", "."), "..", "docs", "deploy.md");
    }

    /** The contents of the page's fenced blocks of {@code language}, in the page's order. */
    private static List<String> blocks(String language) {
        List<String> blocks = new ArrayList<>();
        StringBuilder current = null;
        String currentLanguage = null;
        for (String line : page.split("\n", -1)) {
            Matcher fence = FENCE.matcher(line);
            if (fence.matches()) {
                if (current == null) {
                    current = new StringBuilder();
                    currentLanguage = fence.group(1);
                } else {
                    if (language.equals(currentLanguage)) {
                        blocks.add(current.toString());
                    }
                    current = null;
                }
            } else if (current != null) {
                current.append(line).append('\n');
            }
        }
        return blocks;
    }

    /** The one block of {@code language} that contains {@code text}. */
    private static String block(String language, String text) {
        List<String> found =
                blocks(language).stream()
                        .filter(block -> block.contains(text))
                        .collect(Collectors.toList());
        assertThat(found).as("%s blocks of the page with '%s'", language, text).hasSize(1);
        return found.get(0);
    }

    /** The {@code key: value} lines of a flat YAML block. */
    private static Map<String, String> yaml(String block) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String line : block.split("\n")) {
            if (line.isBlank() || line.trim().startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(": ");
            assertThat(colon).as("a key: value line: %s", line).isPositive();
            settings.put(line.substring(0, colon).trim(), line.substring(colon + 2).trim());
        }
        return settings;
    }

    /** The names of the jars a block of shell commands names, placeholders kept. */
    private static List<String> jarNames(String commands) {
        List<String> names = new ArrayList<>();
        for (String word : commands.split("[\\s\"]+")) {
            if (word.endsWith(".jar")) {
                names.add(word.substring(word.lastIndexOf('/') + 1));
            }
        }
        assertThat(names).as("jars named by %s", commands).isNotEmpty();
        return names;
    }

    /** A regular expression of a jar name of the page: a placeholder stands for a version. */
    private static String matching(String name) {
        StringBuilder regex = new StringBuilder();
        for (String part : name.split("<[^>]+>", -1)) {
            if (regex.length() > 0) {
                regex.append("[0-9][^/]*");
            }
            regex.append(Pattern.quote(part));
        }
        return regex.toString();
    }

    /**
     * The rows of the result table whose header has {@code column}, as the SQL client prints them
     * in tableau mode, each a map from column name to cell.
     */
    private static List<Map<String, String>> table(List<String> output, String column) {
        for (int i = 0; i < output.size(); i++) {
            List<String> header = cells(output.get(i));
            if (header == null || !header.contains(column)) {
                continue;
            }
            List<Map<String, String>> rows = new ArrayList<>();
            // the header, a border, the rows, a border
            for (int j = i + 2; j < output.size(); j++) {
                List<String> cells = cells(output.get(j));
                if (cells == null) {
                    break;
                }
                Map<String, String> row = new LinkedHashMap<>();
                for (int c = 0; c < header.size() && c < cells.size(); c++) {
                    row.put(header.get(c), cells.get(c));
                }
                rows.add(row);
            }
            return rows;
        }
        throw new AssertionError(
                "No result with a column '"
                        + column
                        + "' in the SQL client's output:"
                        + System.lineSeparator()
                        + String.join(System.lineSeparator(), output));
    }

    /** The number in the one row of the result that has {@code column}. */
    private static long single(List<String> output, String column) {
        List<Map<String, String>> rows = table(output, column);
        assertThat(rows).as("rows of the result with %s", column).hasSize(1);
        return Long.parseLong(rows.get(0).get(column));
    }

    private static List<String> cells(String line) {
        String trimmed = line.trim();
        if (!trimmed.startsWith("|") || !trimmed.endsWith("|") || trimmed.length() < 2) {
            return null;
        }
        List<String> cells = new ArrayList<>();
        for (String cell : trimmed.substring(1, trimmed.length() - 1).split("\\|", -1)) {
            cells.add(cell.trim());
        }
        return cells;
    }

    /** The ids of the table's rows as Paimon reads them, through its own Java API. */
    private static List<Long> paimonIds(String warehouse, String database, String table)
            throws Exception {
        List<Long> ids = new ArrayList<>();
        try (Catalog catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(new org.apache.paimon.fs.Path(warehouse)))) {
            Table paimonTable = catalog.getTable(Identifier.create(database, table));
            ReadBuilder readBuilder = paimonTable.newReadBuilder();
            try (RecordReader<InternalRow> reader =
                    readBuilder.newRead().createReader(readBuilder.newScan().plan())) {
                reader.forEachRemaining(row -> ids.add(row.getLong(0)));
            }
        }
        return ids;
    }
}
