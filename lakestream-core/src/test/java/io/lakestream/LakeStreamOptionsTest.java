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

package io.lakestream;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which of a table's, a catalog's and a statement's lake-stream options a statement uses. */
class LakeStreamOptionsTest {

    @Test
    void aHintWinsOverTheCatalogWhichWinsOverTheTable() {
        Map<String, String> table = new HashMap<>();
        table.put("lake-stream.read.isolation", "read-uncommitted");
        table.put("lake-stream.read.lake-only", "true");
        table.put("bucket", "4");
        Map<String, String> catalog = new HashMap<>();
        catalog.put("lake-stream.read.isolation", "read-committed");
        catalog.put("lake-stream.read.lake-only", "false");
        catalog.put("lake-stream.fluss.bootstrap.servers", "fluss:9123");
        Map<String, String> hints = new HashMap<>();
        hints.put("lake-stream.read.isolation", "read-uncommitted");
        hints.put("scan.mode", "latest");

        Map<String, String> merged =
                LakeStreamOptions.forStatement(
                        table, catalog, hints, IllegalArgumentException::new);

        assertThat(merged)
                .containsEntry("lake-stream.read.isolation", "read-uncommitted")
                .containsEntry("lake-stream.read.lake-only", "false")
                .containsEntry("lake-stream.fluss.bootstrap.servers", "fluss:9123")
                .doesNotContainKeys("bucket", "scan.mode");
    }

    @Test
    void aHintThatChoosesTheStoreIsRefusedNamingTheOptions() {
        Map<String, String> catalog = new HashMap<>();
        catalog.put("lake-stream.fluss.bootstrap.servers", "fluss:9123");
        Map<String, String> hints = new HashMap<>();
        hints.put("lake-stream.fluss.bootstrap.servers", "elsewhere:9123");
        hints.put("lake-stream.store.database-prefix", "dev_");
        hints.put("lake-stream.store.request-timeout", "5 s");

        assertThatThrownBy(
                        () ->
                                LakeStreamOptions.forStatement(
                                        new HashMap<>(),
                                        catalog,
                                        hints,
                                        IllegalArgumentException::new))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "'lake-stream.fluss.bootstrap.servers', "
                                + "'lake-stream.store.database-prefix' cannot be set by a statement")
                .hasMessageNotContaining("request-timeout");

        Map<String, String> store = new HashMap<>();
        store.put("lake-stream.store", "memory");
        assertThatThrownBy(
                        () ->
                                LakeStreamOptions.forStatement(
                                        new HashMap<>(),
                                        catalog,
                                        store,
                                        IllegalArgumentException::new))
                .hasMessageContaining("'lake-stream.store' cannot be set by a statement");
        // a timeout is the statement's to choose
        assertThat(
                        LakeStreamOptions.forStatement(
                                new HashMap<>(),
                                catalog,
                                Map.of("lake-stream.store.request-timeout", "5 s"),
                                IllegalArgumentException::new))
                .containsEntry("lake-stream.store.request-timeout", "5 s");
    }

    @Test
    void theSessionWinsOverTheCatalogAndAHintOverTheSession() {
        Map<String, String> catalog = new HashMap<>();
        catalog.put("lake-stream.read.isolation", "read-committed");
        catalog.put("lake-stream.read.lake-only", "false");
        catalog.put("lake-stream.fluss.bootstrap.servers", "fluss:9123");
        Map<String, String> session = new HashMap<>();
        session.put("lake-stream.read.isolation", "read-uncommitted");
        session.put("lake-stream.read.lake-only", "true");
        session.put("table.exec.resource.default-parallelism", "2");
        Map<String, String> hints = Map.of("lake-stream.read.lake-only", "false");

        assertThat(
                        LakeStreamOptions.forStatement(
                                Map.of("lake-stream.read.store-timeout", "5 s"),
                                catalog,
                                session,
                                hints,
                                IllegalArgumentException::new))
                .containsEntry("lake-stream.read.isolation", "read-uncommitted")
                .containsEntry("lake-stream.read.lake-only", "false")
                .containsEntry("lake-stream.read.store-timeout", "5 s")
                .containsEntry("lake-stream.fluss.bootstrap.servers", "fluss:9123")
                .doesNotContainKey("table.exec.resource.default-parallelism");

        assertThatThrownBy(
                        () ->
                                LakeStreamOptions.forStatement(
                                        new HashMap<>(),
                                        catalog,
                                        Map.of("lake-stream.fluss.bootstrap.servers", "x:1"),
                                        new HashMap<>(),
                                        IllegalArgumentException::new))
                .hasMessageStartingWith(
                        "'lake-stream.fluss.bootstrap.servers' cannot be set by a statement (a "
                                + "hint, a SET of the session");
    }
}
