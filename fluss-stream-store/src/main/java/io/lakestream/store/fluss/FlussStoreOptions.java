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

import io.lakestream.LakeStreamOptions;

import org.apache.paimon.annotation.Documentation;
import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.options.ConfigOption;
import org.apache.paimon.options.ConfigOptions;

import java.time.Duration;

/**
 * The options of the Fluss stream store that the store itself reads or gives a default of its own.
 * They are Fluss client options, given as {@code lake-stream.fluss.<client option>}: the store
 * passes every option under that prefix to its Fluss client with the prefix removed, so any other
 * Fluss client option may be given the same way, with Fluss's default. Declared here so that the
 * options page lists them, and the store's defaults, from the code.
 */
@Experimental
public final class FlussStoreOptions {

    public static final ConfigOption<String> BOOTSTRAP_SERVERS =
            ConfigOptions.key(clientKey(org.apache.fluss.config.ConfigOptions.BOOTSTRAP_SERVERS))
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Required: the Fluss cluster's servers, 'host:port' separated by "
                                    + "commas (Fluss's 'bootstrap.servers'). Without it the store "
                                    + "fails at once, naming this option.");

    public static final ConfigOption<Duration> CLIENT_WRITER_BATCH_TIMEOUT =
            ConfigOptions.key(
                            clientKey(
                                    org.apache.fluss.config.ConfigOptions
                                            .CLIENT_WRITER_BATCH_TIMEOUT))
                    .durationType()
                    .defaultValue(Duration.ofMillis(10))
                    .withDescription(
                            "How long the Fluss writer waits for more records before it sends a "
                                    + "batch (Fluss's 'client.writer.batch-timeout', whose own "
                                    + "default is 100 ms). The store's default is lower for "
                                    + "freshness: a longer wait adds to every record's "
                                    + "write-to-read latency.");

    public static final ConfigOption<Duration> CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME =
            ConfigOptions.key(
                            clientKey(
                                    org.apache.fluss.config.ConfigOptions
                                            .CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME))
                    .durationType()
                    .defaultValue(Duration.ofMillis(20))
                    .withDescription(
                            "How long a tablet server may hold a reader's fetch that has no new "
                                    + "records (Fluss's 'client.scanner.log.fetch.wait-max-time', "
                                    + "whose own default is 500 ms). A reader that has caught up "
                                    + "gets a new record only when its held fetch ends: Fluss "
                                    + "0.9 ends it early only when a follower's fetch moves the "
                                    + "high watermark, so on buckets with one replica every record "
                                    + "waits for this timeout. The store's default is low for "
                                    + "freshness; the cost is one fetch request per wait from "
                                    + "each idle reader to each tablet server.");

    @Documentation.OverrideDefault("the value of 'lake-stream.store.write-timeout'")
    public static final ConfigOption<Duration> CLIENT_WRITER_BUFFER_WAIT_TIMEOUT =
            ConfigOptions.key(
                            clientKey(
                                    org.apache.fluss.config.ConfigOptions
                                            .CLIENT_WRITER_BUFFER_WAIT_TIMEOUT))
                    .durationType()
                    .noDefaultValue()
                    .withDescription(
                            "How long a write waits for space in the Fluss writer's buffer "
                                    + "(Fluss's 'client.writer.buffer.wait-timeout', whose own "
                                    + "default waits without end, also while the cluster is "
                                    + "down). The store sets it to "
                                    + "'lake-stream.store.write-timeout' unless it is given.");

    private FlussStoreOptions() {}

    private static String clientKey(org.apache.fluss.config.ConfigOption<?> flussOption) {
        return LakeStreamOptions.storeOptionsPrefix(FlussStreamStoreFactory.IDENTIFIER)
                + flussOption.key();
    }
}
