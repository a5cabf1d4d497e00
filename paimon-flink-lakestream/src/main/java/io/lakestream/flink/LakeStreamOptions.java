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

package io.lakestream.flink;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;

/**
 * The options of lake-stream mode. Every key starts with {@code lake-stream.}; the options of a
 * store's own client are passed as {@code lake-stream.<store>.<client option>}, for example {@code
 * lake-stream.fluss.bootstrap.servers}.
 */
@PublicEvolving
public final class LakeStreamOptions {

    /** The prefix of every lake-stream option. */
    public static final String PREFIX = "lake-stream.";

    public static final ConfigOption<Boolean> ENABLED =
            ConfigOptions.key("lake-stream.enabled")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Table option: whether the table runs in lake-stream mode, writing every "
                                    + "record to the stream store as well as to Paimon and reading "
                                    + "the store's records that Paimon has not committed yet.");

    public static final ConfigOption<String> STORE =
            ConfigOptions.key("lake-stream.store")
                    .stringType()
                    .defaultValue("fluss")
                    .withDescription(
                            "The stream store that holds the records not yet committed to Paimon. "
                                    + "Its client options are given as "
                                    + "'lake-stream.<store>.<client option>'.");

    public static final ConfigOption<Duration> STORE_REQUEST_TIMEOUT =
            ConfigOptions.key("lake-stream.store.request-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "How long one metadata operation of the stream store (connecting, "
                                    + "creating or describing a table, listing offsets, recording "
                                    + "a fence) may take before it fails with an error that names "
                                    + "the store's address.");

    public static final ConfigOption<Duration> STORE_WRITE_TIMEOUT =
            ConfigOptions.key("lake-stream.store.write-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "How long the stream store may take to make written records durable: "
                                    + "a flush at a checkpoint barrier, or a write that waits for "
                                    + "buffer space. When it runs out the job fails and restarts "
                                    + "from its last checkpoint, instead of waiting without end "
                                    + "for a store that cannot be reached.");

    public static final ConfigOption<Duration> SINK_WRITER_LEASE_TIMEOUT =
            ConfigOptions.key("lake-stream.sink.writer-lease-timeout")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "How long a sink job's claim on a table lasts without renewal. A "
                                    + "running sink renews it every third of this time; a second "
                                    + "job that starts writing the same table while the claim "
                                    + "lasts is refused. A job started after the previous one "
                                    + "stopped waits at most this long for the old claim to "
                                    + "expire.");

    private LakeStreamOptions() {}

    /** The prefix of the client options of {@code store}: {@code lake-stream.<store>.}. */
    public static String storeOptionsPrefix(String store) {
        return PREFIX + store + ".";
    }
}
