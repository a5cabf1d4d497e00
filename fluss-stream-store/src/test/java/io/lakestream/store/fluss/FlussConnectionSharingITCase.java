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
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;
import io.lakestream.testutils.Await;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.apache.fluss.client.Connection;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Collections;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stores of one configuration share one Fluss connection, and it is closed once the last of them is
 * closed, without any of them waiting for it.
 */
@ExtendWith(SharedFlussCluster.class)
class FlussConnectionSharingITCase {

    private static final StreamTableSpec SPEC =
            new StreamTableSpec(
                    Identifier.create("sharing_it", "t"),
                    RowType.of(
                            new org.apache.paimon.types.DataType[] {
                                DataTypes.INT().notNull(), DataTypes.STRING()
                            },
                            new String[] {"id", "name"}),
                    Collections.emptyList(),
                    Collections.singletonList("id"),
                    Collections.emptyList(),
                    2);

    /**
     * The shared cluster's options, with a client id of this test's own: a key of its own. The id
     * names the idle timeout too, so that a connection that tests with a timeout of a minute leave
     * open is not handed to the tests that wait for their 200 ms connection to close.
     */
    private static Map<String, String> options(String idleTimeout) {
        Map<String, String> options = SharedFlussCluster.lakeStreamOptions();
        options.put(
                LakeStreamOptions.storeOptionsPrefix("fluss") + "client.id",
                "sharing-it-" + idleTimeout.replace(" ", ""));
        options.put(LakeStreamOptions.STORE_CONNECTION_IDLE_TIMEOUT.key(), idleTimeout);
        return options;
    }

    private static FlussStreamStore open(Map<String, String> options) {
        return (FlussStreamStore)
                StreamStoreLoader.create(
                        options, FlussConnectionSharingITCase.class.getClassLoader());
    }

    @Test
    void storesOfOneConfigurationShareOneConnectionClosedAfterTheLastRelease() throws Exception {
        FlussStreamStore first = open(options("200 ms"));
        FlussStreamStore second = open(options("200 ms"));
        Connection shared = first.connection();
        assertThat(second.connection()).isSameAs(shared);

        StreamTable provisioned = first.provision(SPEC);
        long start = System.nanoTime();
        first.close();
        // closing a store returns at once; a connection close takes about 2 s
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(500);
        // the other store's share is still open and works
        assertThat(second.get(SPEC)).isEqualTo(provisioned);
        assertThat(isClosed(shared)).isFalse();

        second.close();
        Await.until(() -> isClosedOrClosing(shared), "the shared connection is closed");

        try (StreamStore next = open(options("200 ms"))) {
            assertThat(((FlussStreamStore) next).connection()).isNotSameAs(shared);
            assertThat(next.get(SPEC)).isEqualTo(provisioned);
        }
    }

    @Test
    void aStoreOfAnotherConfigurationGetsAConnectionOfItsOwn() {
        Map<String, String> otherClient = options("200 ms");
        otherClient.put(LakeStreamOptions.storeOptionsPrefix("fluss") + "client.id", "other");
        try (FlussStreamStore first = open(options("200 ms"));
                FlussStreamStore other = open(otherClient)) {
            assertThat(other.connection()).isNotSameAs(first.connection());
        }
    }

    @Test
    void aStoreOpenedWithinTheIdleTimeoutReusesTheConnection() {
        Connection shared;
        try (FlussStreamStore first = open(options("1 min"))) {
            shared = first.connection();
        }
        try (FlussStreamStore next = open(options("1 min"))) {
            assertThat(next.connection()).isSameAs(shared);
        }
    }

    @Test
    void aDiscardedConnectionIsClosedByItsLastUserAndNotHandedOut() throws Exception {
        FlussStreamStore failedWriter = open(options("1 min"));
        FlussStreamStore reader = open(options("1 min"));
        Connection discarded = failedWriter.connection();
        failedWriter.discardConnection();

        try (FlussStreamStore restarted = open(options("1 min"))) {
            assertThat(restarted.connection()).isNotSameAs(discarded);
        }
        failedWriter.close();
        assertThat(isClosed(discarded)).isFalse();
        reader.close();
        // closed by the last close itself, despite the idle timeout of a minute
        assertThat(isClosed(discarded)).isTrue();
    }

    /**
     * A store whose connection was discarded (a call found a server gone, which a Fluss 0.9.1
     * client that knew its old address never corrects) makes its next call on a new connection;
     * closing the store releases both.
     */
    @Test
    void aStoreWhoseConnectionWasDiscardedGoesOnWithANewOne() throws Exception {
        Connection discarded;
        Connection renewed;
        try (FlussStreamStore store = open(options("1 min"))) {
            StreamTable provisioned = store.provision(SPEC);
            discarded = store.connection();
            store.discardConnection();
            assertThat(store.get(SPEC)).isEqualTo(provisioned);
            renewed = store.connection();
            assertThat(renewed).isNotSameAs(discarded);
            assertThat(isClosed(discarded)).isFalse();
        }
        // the discarded one by the close itself; the new one is idle, kept for the next store
        assertThat(isClosed(discarded)).isTrue();
        try (FlussStreamStore next = open(options("1 min"))) {
            assertThat(next.connection()).isSameAs(renewed);
        }
    }

    /** Whether the connection's network client refuses requests (Fluss: "client is closed"). */
    private static boolean isClosed(Connection connection) {
        return isClosed(connection, false);
    }

    /**
     * Like {@link #isClosed(Connection)}, for a connection that a background thread may be closing
     * right now: a request that meets the close half done fails with the channel's {@code
     * ClosedChannelException} or a disconnect instead (Fluss 0.9.1 {@code ServerConnection}), which
     * means "not closed yet" to a caller that waits for the close.
     */
    private static boolean isClosedOrClosing(Connection connection) {
        return isClosed(connection, true);
    }

    private static boolean isClosed(Connection connection, boolean closing) {
        try {
            connection.getAdmin().databaseExists("sharing_it").get(10, TimeUnit.SECONDS);
            return false;
        } catch (Exception e) {
            Throwable cause = e;
            while (cause != null) {
                if (String.valueOf(cause.getMessage()).contains("closed")) {
                    return true;
                }
                cause = cause.getCause();
            }
            if (closing) {
                return false;
            }
            throw new AssertionError("Unexpected failure of a request", e);
        }
    }
}
