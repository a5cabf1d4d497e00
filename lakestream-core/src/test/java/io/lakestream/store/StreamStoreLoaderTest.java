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

package io.lakestream.store;

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.testing.RecordingStreamStoreFactory;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests for {@link StreamStoreLoader}. */
class StreamStoreLoaderTest {

    private final ClassLoader classLoader = StreamStoreLoaderTest.class.getClassLoader();

    @BeforeEach
    void resetRecordingFactory() {
        RecordingStreamStoreFactory.reset();
    }

    @Test
    void loadsAFactoryByItsIdentifier() {
        assertThat(StreamStoreLoader.load("recording", classLoader))
                .isInstanceOf(RecordingStreamStoreFactory.class);
    }

    @Test
    void unknownIdentifierFailsNamingTheIdentifierTheOptionAndTheKnownStores() {
        assertThatThrownBy(() -> StreamStoreLoader.load("no-such-store", classLoader))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("'no-such-store'")
                .hasMessageContaining("'lake-stream.store'")
                .hasMessageContaining("Known stores: [memory, recording]");
    }

    @Test
    void createWithAnUnknownStoreFailsBeforeCreatingAnything() {
        Map<String, String> options = Map.of("lake-stream.store", "kafka");

        assertThatThrownBy(() -> StreamStoreLoader.create(options, classLoader))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("'kafka'")
                .hasMessageContaining("'lake-stream.store'")
                .hasMessageContaining("recording");
        assertThat(RecordingStreamStoreFactory.lastContext()).isNull();
    }

    @Test
    void storeDefaultsToFluss() {
        // this module's tests have no Fluss store on the class path
        assertThatThrownBy(() -> StreamStoreLoader.create(Map.of(), classLoader))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("'fluss'");
    }

    @Test
    void classLoaderWithoutStoresKnowsNone() throws Exception {
        try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
            assertThatThrownBy(() -> StreamStoreLoader.load("recording", empty))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("'recording'")
                    .hasMessageContaining("Known stores: []");
        }
    }

    @Test
    void createPassesOnlyTheStoresOwnOptionsWithoutPrefixAndTheTimeouts() {
        Map<String, String> options = new HashMap<>();
        options.put("lake-stream.store", "recording");
        options.put("lake-stream.store.request-timeout", "5 s");
        options.put("lake-stream.store.write-timeout", "90 s");
        options.put("lake-stream.enabled", "true");
        options.put("lake-stream.recording.bootstrap.servers", "store-host:9123");
        options.put("lake-stream.recording.client.security.sasl.password", "secret");
        options.put("lake-stream.fluss.bootstrap.servers", "fluss-host:9123");
        options.put("lake-stream.recordings.other", "x");
        options.put("recording.bootstrap.servers", "unprefixed-host:9123");
        options.put("bucket", "4");

        try (StreamStore store = StreamStoreLoader.create(options, classLoader)) {
            assertThat(store).isNotNull();
        }

        StreamStoreFactory.Context context = RecordingStreamStoreFactory.lastContext();
        assertThat(context).isNotNull();
        assertThat(context.storeOptions())
                .isEqualTo(
                        Map.of(
                                "bootstrap.servers", "store-host:9123",
                                "client.security.sasl.password", "secret"));
        assertThat(context.requestTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(context.writeTimeout()).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void requestTimeoutDefaultsToThirtySecondsAndWriteTimeoutToOneMinute() {
        StreamStoreLoader.create(Map.of("lake-stream.store", "recording"), classLoader).close();

        StreamStoreFactory.Context context = RecordingStreamStoreFactory.lastContext();
        assertThat(context.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(context.writeTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(context.storeOptions()).isEmpty();
        assertThat(context.databasePrefix()).as("today's naming").isEmpty();
    }

    @Test
    void databasePrefixIsPassedToTheStoreAndNotAsAClientOption() {
        Map<String, String> options = new HashMap<>();
        options.put("lake-stream.store", "recording");
        options.put("lake-stream.store.database-prefix", "prod_");

        StreamStoreLoader.create(options, classLoader).close();

        StreamStoreFactory.Context context = RecordingStreamStoreFactory.lastContext();
        assertThat(context.databasePrefix()).isEqualTo("prod_");
        assertThat(context.storeOptions()).isEmpty();
    }

    @Test
    void databasePrefixIsACatalogOptionThatATableCannotSet() {
        Map<String, String> table = new HashMap<>();
        table.put("lake-stream.store.database-prefix", "elsewhere_");
        table.put("lake-stream.read.isolation", "read-committed");

        assertThat(LakeStreamOptions.forTable(table, Map.of()))
                .isEqualTo(Map.of("lake-stream.read.isolation", "read-committed"));
        assertThat(
                        LakeStreamOptions.forTable(
                                table, Map.of("lake-stream.store.database-prefix", "prod_")))
                .containsEntry("lake-stream.store.database-prefix", "prod_");
    }

    @Test
    void writeTimeoutIsTheGivenOptionValue() {
        Map<String, String> options = new HashMap<>();
        options.put("lake-stream.store", "recording");
        options.put("lake-stream.store.write-timeout", "3 min");

        StreamStoreLoader.create(options, classLoader).close();

        StreamStoreFactory.Context context = RecordingStreamStoreFactory.lastContext();
        assertThat(context.writeTimeout()).isEqualTo(Duration.ofMinutes(3));
        assertThat(context.requestTimeout()).isEqualTo(Duration.ofSeconds(30));
    }
}
