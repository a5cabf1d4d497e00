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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every Paimon scan option a lake-stream read does not implement is refused, by name and value;
 * reads of committed snapshots only are left to Paimon's own source.
 */
class UnsupportedScanOptionsTest {

    private static Map<String, String> options(String key, String value) {
        Map<String, String> options = new HashMap<>();
        options.put(key, value);
        return options;
    }

    @ParameterizedTest
    @CsvSource({
        "stream-scan-mode, file-monitor",
    })
    void refusedInEveryRead(String key, String value) {
        for (boolean bounded : new boolean[] {true, false}) {
            assertThatThrownBy(
                            () ->
                                    UnsupportedScanOptions.check(
                                            "db.t", options(key, value), bounded, true))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("db.t")
                    .hasMessageContaining("= '" + value + "'")
                    .hasMessageContaining("is not supported by lake-stream reads");
        }
    }

    @ParameterizedTest
    @CsvSource({
        "streaming-read-overwrite, true",
        "streaming-read-mode, log",
    })
    void refusedInUnboundedReads(String key, String value) {
        assertThatThrownBy(
                        () ->
                                UnsupportedScanOptions.check(
                                        "db.t", options(key, value), false, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("db.t")
                .hasMessageContaining("'" + key + "'")
                .hasMessageContaining("is not supported by lake-stream reads");
    }

    /**
     * An append table's overwrites are followed as Paimon follows them; a primary-key table's
     * overwrite changes are refused, and each option is ignored on the kind of table that Paimon
     * ignores it on.
     */
    @Test
    void overwritesAreFollowedOnAppendTablesOnly() {
        Map<String, String> pk = options("streaming-read-overwrite", "true");
        assertThatThrownBy(() -> UnsupportedScanOptions.check("db.t", pk, false, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("db.t")
                .hasMessageContaining("'streaming-read-overwrite' = 'true'")
                .hasMessageContaining("uncommitted records");
        Map<String, String> append = options("streaming-read-append-overwrite", "true");
        for (boolean primaryKey : new boolean[] {true, false}) {
            assertThatCode(() -> UnsupportedScanOptions.check("db.t", append, false, primaryKey))
                    .doesNotThrowAnyException();
        }
        assertThatCode(() -> UnsupportedScanOptions.check("db.t", pk, false, false))
                .doesNotThrowAnyException();
    }

    /** Paimon's streaming read refuses these too; the refusal says so. */
    @ParameterizedTest
    @CsvSource({
        "scan.tag-name, my-tag",
        "scan.watermark, 1000",
        "scan.version, 3",
    })
    void refusedInUnboundedReadsAsPaimonRefusesThem(String key, String value) {
        assertThatThrownBy(
                        () ->
                                UnsupportedScanOptions.check(
                                        "db.t", options(key, value), false, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("db.t")
                .hasMessageContaining("'" + key + "'")
                .hasMessageContaining("refuses it too");
    }

    /**
     * Honoured by unbounded reads: the start modes of Paimon's other starting scanners, and the
     * snapshot delay, which applies to the commits of other writers.
     */
    @ParameterizedTest
    @CsvSource({
        "streaming.read.snapshot.delay, 1 min",
        "scan.mode, compacted-full",
        "scan.file-creation-time-millis, 1000",
        "scan.creation-time-millis, 1000",
    })
    void acceptedInUnboundedReads(String key, String value) {
        assertThatCode(() -> UnsupportedScanOptions.check("db.t", options(key, value), false, true))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @CsvSource({
        "scan.tag-name, my-tag",
        "scan.watermark, 1000",
        "scan.version, 3",
        "scan.snapshot-id, 3",
        "scan.timestamp-millis, 1000",
        "scan.timestamp, 2024-01-02 00:00:00",
        "scan.mode, from-snapshot-full",
        "scan.mode, latest",
        "streaming-read-overwrite, true",
    })
    void acceptedInBoundedReads(String key, String value) {
        assertThatCode(() -> UnsupportedScanOptions.check("db.t", options(key, value), true, true))
                .doesNotThrowAnyException();
    }

    /** Paimon's own source reads them: the table factory hands them over, see below. */
    @ParameterizedTest
    @CsvSource({
        "scan.mode, compacted-full",
        "scan.mode, from-file-creation-time",
        "scan.mode, from-creation-timestamp",
        "scan.mode, incremental",
        "scan.file-creation-time-millis, 1000",
        "scan.creation-time-millis, 1000",
        "scan.bounded.watermark, 1000",
        "incremental-between, '1,3'",
        "incremental-between-timestamp, '1000,2000'",
        "incremental-to-auto-tag, 2024-01-02",
    })
    void readsOfCommittedSnapshotsAreLeftToPaimonWhenBounded(String key, String value) {
        assertThat(CommittedSnapshotReads.optionOf("db.t", options(key, value), true))
                .contains("'" + key + "' = '" + value + "'");
    }

    @ParameterizedTest
    @CsvSource({
        "scan.mode, incremental",
        "incremental-between, '1,3'",
        "incremental-between-timestamp, '1000,2000'",
        "incremental-to-auto-tag, 2024-01-02",
    })
    void incrementalReadsAreRefusedUnbounded(String key, String value) {
        // Paimon refuses them too, but only when its job plans
        assertThatThrownBy(
                        () -> CommittedSnapshotReads.optionOf("db.t", options(key, value), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Table db.t: '" + key + "' = '" + value + "'")
                .hasMessageContaining("needs a bounded read");
    }

    @Test
    void aBoundedWatermarkIsLeftToPaimonUnboundedToo() {
        Map<String, String> options = options("scan.bounded.watermark", "1000");
        options.put("scan.snapshot-id", "1");
        assertThat(CommittedSnapshotReads.optionOf("db.t", options, false))
                .contains("'scan.bounded.watermark' = '1000'");
    }

    @Test
    void otherReadsAreTheLakeStreamSources() {
        for (boolean bounded : new boolean[] {true, false}) {
            assertThat(
                            CommittedSnapshotReads.optionOf(
                                    "db.t", options("scan.snapshot-id", "3"), bounded))
                    .isEmpty();
            assertThat(
                            CommittedSnapshotReads.optionOf(
                                    "db.t", options("scan.tag-name", "t"), bounded))
                    .isEmpty();
        }
        // unbounded, these modes are not reads of committed snapshots only
        assertThat(
                        CommittedSnapshotReads.optionOf(
                                "db.t", options("scan.mode", "compacted-full"), false))
                .isEmpty();
        assertThat(
                        CommittedSnapshotReads.optionOf(
                                "db.t", options("scan.file-creation-time-millis", "1000"), false))
                .isEmpty();
    }

    @Test
    void theModesOfUnboundedReadsAreAccepted() {
        for (String mode :
                new String[] {
                    "default",
                    "latest-full",
                    "full",
                    "latest",
                    "from-snapshot",
                    "from-snapshot-full",
                    "from-timestamp"
                }) {
            assertThatCode(
                            () ->
                                    UnsupportedScanOptions.check(
                                            "db.t", options("scan.mode", mode), false, true))
                    .doesNotThrowAnyException();
        }
    }
}
