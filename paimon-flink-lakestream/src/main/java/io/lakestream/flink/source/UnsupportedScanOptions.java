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

package io.lakestream.flink.source;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.CoreOptions.StartupMode;
import org.apache.paimon.options.ConfigOption;
import org.apache.paimon.options.Options;

import org.apache.flink.annotation.Internal;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Refuses the Paimon scan options that a lake-stream read does not implement, when the source is
 * built, so that none of them is ignored silently: a read returns what Paimon returns for its
 * options, or it does not start. Each refusal names the table, the option and its value, and what
 * to use instead. Reads of committed snapshots only ({@link CommittedSnapshotReads}) are Paimon's
 * own and not checked here.
 */
@Internal
final class UnsupportedScanOptions {

    /** The startup modes a lake-stream read implements; see {@code ReadStart}. */
    private static final Set<StartupMode> SUPPORTED_MODES =
            EnumSet.of(
                    StartupMode.DEFAULT,
                    StartupMode.LATEST_FULL,
                    StartupMode.FULL,
                    StartupMode.LATEST,
                    StartupMode.FROM_TIMESTAMP,
                    StartupMode.FROM_SNAPSHOT,
                    StartupMode.FROM_SNAPSHOT_FULL);

    private UnsupportedScanOptions() {}

    /**
     * Throws an {@link IllegalArgumentException} for the first option of {@code options} (the
     * table's with the read's on top) that a read of table {@code table} cannot honour.
     */
    static void check(String table, Map<String, String> options, boolean bounded) {
        if (CommittedSnapshotReads.optionOf(table, options, bounded).isPresent()) {
            // a read of committed snapshots is Paimon's own: the table factory hands it to
            // Paimon's source, the DataStream builder names Paimon's
            return;
        }
        Options conf = Options.fromMap(options);
        StartupMode mode = conf.get(CoreOptions.SCAN_MODE);
        if (!SUPPORTED_MODES.contains(mode)) {
            throw refused(
                    table,
                    CoreOptions.SCAN_MODE,
                    mode.toString(),
                    "lake-stream reads implement 'latest-full', 'latest', 'from-snapshot', "
                            + "'from-snapshot-full' and 'from-timestamp'; read the table with "
                            + "Paimon's own source for this mode");
        }
        refuseIfSet(
                table,
                conf,
                CoreOptions.SCAN_FILE_CREATION_TIME_MILLIS,
                "its result depends on compaction, not on snapshots; use "
                        + "'scan.timestamp-millis'");
        refuseIfSet(
                table, conf, CoreOptions.SCAN_CREATION_TIME_MILLIS, "use 'scan.timestamp-millis'");
        if (conf.get(CoreOptions.STREAM_SCAN_MODE) != CoreOptions.StreamScanMode.NONE) {
            throw refused(
                    table,
                    CoreOptions.STREAM_SCAN_MODE,
                    conf.get(CoreOptions.STREAM_SCAN_MODE).toString(),
                    "it is internal to Paimon's compaction and monitoring jobs");
        }
        if (conf.get(CoreOptions.BATCH_SCAN_MODE) != CoreOptions.BatchScanMode.NONE) {
            throw refused(
                    table,
                    CoreOptions.BATCH_SCAN_MODE,
                    conf.get(CoreOptions.BATCH_SCAN_MODE).toString(),
                    "it is internal to Paimon's compaction jobs");
        }
        if (bounded) {
            return;
        }
        // Paimon's streaming read refuses these too ("Cannot scan from tag in streaming mode")
        String followTheSnapshot =
                "Paimon reads it bounded only; read it bounded, or follow the table from its "
                        + "snapshot with 'scan.mode' = 'from-snapshot-full' and 'scan.snapshot-id'";
        refuseIfSet(table, conf, CoreOptions.SCAN_TAG_NAME, followTheSnapshot);
        refuseIfSet(table, conf, CoreOptions.SCAN_WATERMARK, followTheSnapshot);
        refuseIfSet(table, conf, CoreOptions.SCAN_VERSION, followTheSnapshot);
        if (conf.get(CoreOptions.STREAMING_READ_OVERWRITE)) {
            throw refused(
                    table,
                    CoreOptions.STREAMING_READ_OVERWRITE,
                    "true",
                    "the stream store holds the rows written, not the rows an overwrite removed");
        }
        if (conf.get(CoreOptions.STREAMING_READ_APPEND_OVERWRITE)) {
            throw refused(
                    table,
                    CoreOptions.STREAMING_READ_APPEND_OVERWRITE,
                    "true",
                    "the stream store holds the rows written, not the rows an overwrite removed");
        }
        refuseIfSet(
                table,
                conf,
                CoreOptions.STREAMING_READ_SNAPSHOT_DELAY,
                "a lake-stream read follows the stream store, not Paimon's snapshots");
        if (conf.getOptional(CoreOptions.STREAMING_READ_MODE).orElse(null)
                == CoreOptions.StreamingReadMode.LOG) {
            throw refused(
                    table,
                    CoreOptions.STREAMING_READ_MODE,
                    CoreOptions.StreamingReadMode.LOG.toString(),
                    "the stream store is the log of a lake-stream table; remove the option");
        }
    }

    private static void refuseIfSet(
            String table, Options conf, ConfigOption<?> option, String instead) {
        if (conf.contains(option)) {
            throw refused(table, option, String.valueOf(conf.getOptional(option).get()), instead);
        }
    }

    private static IllegalArgumentException refused(
            String table, ConfigOption<?> option, String value, String instead) {
        return new IllegalArgumentException(
                String.format(
                        "Table %s: '%s' = '%s' is not supported by lake-stream reads: %s.",
                        table, option.key(), value, instead));
    }
}
