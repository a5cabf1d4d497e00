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
 * own and refused before these checks ({@code LakeStreamReadContext}).
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

    /**
     * The startup modes that unbounded reads implement besides {@link #SUPPORTED_MODES}: Paimon's
     * starting scanner picks the snapshot and its files, the store follows from its offsets.
     */
    private static final Set<StartupMode> UNBOUNDED_MODES =
            EnumSet.of(
                    StartupMode.COMPACTED_FULL,
                    StartupMode.FROM_FILE_CREATION_TIME,
                    StartupMode.FROM_CREATION_TIMESTAMP);

    private UnsupportedScanOptions() {}

    /**
     * Throws an {@link IllegalArgumentException} for the first option of {@code options} (the
     * table's with the read's on top) that a read of table {@code table} cannot honour; {@code
     * primaryKey} tells whether the table has a primary key.
     */
    static void check(
            String table, Map<String, String> options, boolean bounded, boolean primaryKey) {
        Options conf = Options.fromMap(options);
        StartupMode mode = conf.get(CoreOptions.SCAN_MODE);
        if (!SUPPORTED_MODES.contains(mode) && (bounded || !UNBOUNDED_MODES.contains(mode))) {
            throw refused(
                    table,
                    CoreOptions.SCAN_MODE,
                    mode.toString(),
                    "lake-stream reads implement 'latest-full', 'latest', 'from-snapshot', "
                            + "'from-snapshot-full' and 'from-timestamp', and unbounded also "
                            + "'compacted-full', 'from-file-creation-time' and "
                            + "'from-creation-timestamp'; read the table with Paimon's own source "
                            + "for this mode");
        }
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
                "Paimon's streaming read refuses it too (\"Cannot scan from tag in streaming "
                        + "mode\"); read it bounded, or follow the table from its snapshot with "
                        + "'scan.mode' = 'from-snapshot-full' and 'scan.snapshot-id'";
        refuseIfSet(table, conf, CoreOptions.SCAN_TAG_NAME, followTheSnapshot);
        refuseIfSet(table, conf, CoreOptions.SCAN_WATERMARK, followTheSnapshot);
        // Paimon's Flink source copies its table without time travel, so 'scan.version' names no
        // snapshot there and its schema validation refuses it
        refuseIfSet(
                table,
                conf,
                CoreOptions.SCAN_VERSION,
                "Paimon's own Flink source refuses it too (\"must set only one key in "
                        + "[scan.snapshot-id,scan.tag-name,scan.watermark] when you use "
                        + "from-snapshot for scan.mode\"); follow the table from a snapshot with "
                        + "'scan.snapshot-id'");
        // an append table's overwrite is followed as Paimon follows it (its new rows, see
        // ForeignCommits); a primary-key table's changes are deletes of the replaced rows and
        // then the new rows, which a running writer's uncommitted records, returned before them
        // here and after them in Paimon, would contradict. Paimon uses each option for one kind
        // of table only and ignores it on the other, and so does this read.
        if (primaryKey && conf.get(CoreOptions.STREAMING_READ_OVERWRITE)) {
            throw refused(
                    table,
                    CoreOptions.STREAMING_READ_OVERWRITE,
                    "true",
                    "Paimon's streaming read returns a primary-key table's overwrite as deletes of "
                            + "the replaced rows and then the new rows, which a lake-stream read "
                            + "can return only after exactly the stream records that the "
                            + "overwrite's parent snapshot committed, while it returns a running "
                            + "writer's uncommitted records of the partition at once (Paimon "
                            + "returns them after the overwrite); read without the option "
                            + "(overwrites are then passed over, as Paimon passes them over), or "
                            + "read the table with Paimon's own source");
        }
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
