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

import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store client's freshness defaults (a 10 ms linger, fetches that wait at most 20 ms), and that
 * a value the user sets, through {@code lake-stream.fluss.*} as the docs say, wins.
 */
class FlussClientDefaultsTest {

    @Test
    void freshnessDefaultsApplyWhereNothingIsSet() {
        Configuration conf =
                FlussStreamStore.clientConfiguration(
                        Map.of("bootstrap.servers", "localhost:9123"), Duration.ofSeconds(30));
        assertThat(conf.get(ConfigOptions.CLIENT_WRITER_BATCH_TIMEOUT))
                .isEqualTo(Duration.ofMillis(10));
        assertThat(conf.get(ConfigOptions.CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME))
                .isEqualTo(Duration.ofMillis(20));
        assertThat(conf.get(ConfigOptions.CLIENT_WRITER_BUFFER_WAIT_TIMEOUT))
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theUsersStoreOptionsWin() {
        // the client options as the store gets them from 'lake-stream.fluss.*'
        Map<String, String> clientOptions = new HashMap<>();
        clientOptions.put("bootstrap.servers", "localhost:9123");
        clientOptions.put("client.writer.batch-timeout", "100 ms");
        clientOptions.put("client.scanner.log.fetch.wait-max-time", "500 ms");
        Configuration conf =
                FlussStreamStore.clientConfiguration(clientOptions, Duration.ofSeconds(30));
        assertThat(conf.get(ConfigOptions.CLIENT_WRITER_BATCH_TIMEOUT))
                .isEqualTo(Duration.ofMillis(100));
        assertThat(conf.get(ConfigOptions.CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME))
                .isEqualTo(Duration.ofMillis(500));
    }
}
