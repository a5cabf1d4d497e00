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

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides which reads of a table in lake-stream mode are reads of Paimon's committed snapshots
 * only, so that Paimon's own source serves them: the stream store holds the records no snapshot
 * committed yet, and these reads are defined by committed snapshots alone, so it has nothing to add
 * to them. Such a read returns exactly what Paimon's source returns, and is as fresh as the last
 * commit.
 *
 * <ul>
 *   <li>An incremental read ({@code 'scan.mode' = 'incremental'}, {@code incremental-between},
 *       {@code incremental-between-timestamp}, {@code incremental-to-auto-tag}) reads the changes
 *       between two committed snapshots or tags. Paimon reads it bounded only ("Cannot read
 *       incremental in streaming mode", when its job plans); an unbounded one is refused here, when
 *       the read is built.
 *   <li>A bounded read in {@code compacted-full}, {@code from-file-creation-time} or {@code
 *       from-creation-timestamp} mode (or with {@code scan.file-creation-time-millis} or {@code
 *       scan.creation-time-millis}) reads the files of a committed snapshot chosen by compaction or
 *       by file creation time, which the store's records have neither of. Unbounded, these modes
 *       are not decided here.
 *   <li>{@code scan.bounded.watermark}: Paimon ends a streaming read at the first snapshot whose
 *       watermark passes the bound; the store's records carry no snapshot watermark, so the whole
 *       read is Paimon's. A bounded read, which Paimon plans without the option, is Paimon's too.
 * </ul>
 *
 * <p>The decision follows Paimon's: its {@code CoreOptions.startupMode} derives the mode from the
 * options, and its starting scanner reads each mode as above.
 */
@Internal
public final class CommittedSnapshotReads {

    private static final List<ConfigOption<String>> INCREMENTAL_OPTIONS =
            Arrays.asList(
                    CoreOptions.INCREMENTAL_BETWEEN,
                    CoreOptions.INCREMENTAL_BETWEEN_TIMESTAMP,
                    CoreOptions.INCREMENTAL_TO_AUTO_TAG);

    /** The modes whose bounded read picks a committed snapshot by compaction or file time. */
    private static final Set<StartupMode> BOUNDED_MODES =
            EnumSet.of(
                    StartupMode.COMPACTED_FULL,
                    StartupMode.FROM_FILE_CREATION_TIME,
                    StartupMode.FROM_CREATION_TIMESTAMP);

    private static final List<ConfigOption<Long>> BOUNDED_OPTIONS =
            Arrays.asList(
                    CoreOptions.SCAN_FILE_CREATION_TIME_MILLIS,
                    CoreOptions.SCAN_CREATION_TIME_MILLIS);

    private CommittedSnapshotReads() {}

    /**
     * The option that makes a read of table {@code table} with {@code options} (the table's, with
     * the read's on top) a read of committed snapshots that Paimon's own source serves, as {@code
     * 'key' = 'value'}; empty for a read the lake-stream source serves (or refuses).
     *
     * @throws IllegalArgumentException naming the table and the option, for an unbounded
     *     incremental read, which Paimon does not make either
     */
    public static Optional<String> optionOf(
            String table, Map<String, String> options, boolean bounded) {
        Options conf = Options.fromMap(options);
        Optional<String> incremental = incrementalOption(conf);
        if (incremental.isPresent()) {
            if (!bounded) {
                throw new IllegalArgumentException(
                        String.format(
                                "Table %s: %s reads the changes between two committed snapshots "
                                        + "and needs a bounded read, as in Paimon (\"Cannot read "
                                        + "incremental in streaming mode\"): run it in batch "
                                        + "mode or with 'scan.bounded' = 'true'. To follow the "
                                        + "changes of the table unbounded, start from a snapshot "
                                        + "('scan.snapshot-id') or a time "
                                        + "('scan.timestamp-millis').",
                                table, incremental.get()));
            }
            return incremental;
        }
        if (conf.contains(CoreOptions.SCAN_BOUNDED_WATERMARK)) {
            return Optional.of(describe(conf, CoreOptions.SCAN_BOUNDED_WATERMARK));
        }
        if (!bounded) {
            return Optional.empty();
        }
        if (conf.contains(CoreOptions.SCAN_MODE)
                && BOUNDED_MODES.contains(conf.get(CoreOptions.SCAN_MODE))) {
            return Optional.of(describe(conf, CoreOptions.SCAN_MODE));
        }
        for (ConfigOption<Long> option : BOUNDED_OPTIONS) {
            if (conf.contains(option)) {
                return Optional.of(describe(conf, option));
            }
        }
        return Optional.empty();
    }

    private static Optional<String> incrementalOption(Options conf) {
        for (ConfigOption<String> option : INCREMENTAL_OPTIONS) {
            if (conf.contains(option)) {
                return Optional.of(describe(conf, option));
            }
        }
        // 'scan.mode' = 'incremental' alone: Paimon's own read then names the missing option
        return CoreOptions.startupMode(conf) == StartupMode.INCREMENTAL
                ? Optional.of(describe(conf, CoreOptions.SCAN_MODE))
                : Optional.empty();
    }

    private static String describe(Options conf, ConfigOption<?> option) {
        return String.format("'%s' = '%s'", option.key(), conf.getOptional(option).get());
    }
}
