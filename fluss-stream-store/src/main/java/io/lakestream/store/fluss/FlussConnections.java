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
import io.lakestream.store.SharedResourcePool;
import io.lakestream.store.StreamStoreException;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.FlussConnection;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.exception.AuthenticationException;
import org.apache.fluss.utils.ExceptionUtils;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Fluss connections of this process: one per class loader and client configuration, shared by
 * every {@link FlussStreamStore} (planning, enumerators, writers, readers, committers), because
 * Fluss 0.9's connection takes about 2 s to close (its network layer waits out a quiet period).
 *
 * <p>What sharing relies on, from Fluss 0.9.1's client: {@code FlussConnection} is documented
 * thread-safe; its {@code getAdmin()} hands every caller the same {@code FlussAdmin}, a stateless
 * stub over the thread-safe RPC client and metadata updater, and its writer client (one per
 * connection, {@code @ThreadSafe}) takes records of many writers, whose {@code flush()} waits for
 * every record sent before it, others' included. {@code Table}s, writers and log scanners are not
 * shared: every store user opens its own.
 *
 * <p>Keyed by the thread's context class loader too: a connection opened for one Flink job (its
 * user-code class loader) is never handed to another job.
 */
final class FlussConnections {

    private static final long FORCED_WRITER_CLOSE_MILLIS = 100;

    /**
     * How long a close waits before it forces the connection's writer closed: a healthy close takes
     * about 2 s (Fluss's network layer waits out a quiet period), and what a closing connection
     * still has pending is never needed (see {@link Opened#close()}).
     */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

    private static final SharedResourcePool<Key, Opened> POOL =
            new SharedResourcePool<>(
                    "lake-stream-fluss-connection", FlussConnections::open, Opened::close);

    private FlussConnections() {}

    /** A lease of the connection of {@code conf}, opened within the request timeout if new. */
    static SharedResourcePool.Lease<Opened> acquire(
            Configuration conf, FlussAdminCalls calls, Duration writeTimeout, Duration idle) {
        Key key =
                new Key(
                        Thread.currentThread().getContextClassLoader(),
                        conf.toMap(),
                        calls,
                        writeTimeout);
        return POOL.acquire(key, idle);
    }

    /** How many connections are open (or opening) in this process. */
    static int openConnections() {
        return POOL.size();
    }

    private static Opened open(Key key) {
        return new Opened(connect(Configuration.fromMap(key.conf), key.calls), key.writeTimeout);
    }

    /**
     * Connects within the request timeout. Fluss's client connects eagerly and retries an
     * unreachable bootstrap server for a while of its own, so the attempt runs in a thread of its
     * own that is abandoned (and its connection closed, should it come up later) on time-out.
     */
    private static Connection connect(Configuration conf, FlussAdminCalls calls) {
        CompletableFuture<Connection> attempt =
                CompletableFuture.supplyAsync(() -> ConnectionFactory.createConnection(conf));
        try {
            return attempt.get(calls.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            attempt.thenAccept(FlussConnections::closeQuietly);
            throw new StreamStoreException(
                    String.format(
                            "Cannot reach the Fluss cluster at %s within %s (option '%s').",
                            calls.bootstrapServers(),
                            FlussAdminCalls.format(calls.timeout()),
                            LakeStreamOptions.STORE_REQUEST_TIMEOUT.key()));
        } catch (ExecutionException e) {
            Optional<AuthenticationException> refused =
                    ExceptionUtils.findThrowable(e, AuthenticationException.class);
            if (refused.isPresent()) {
                String options =
                        LakeStreamOptions.storeOptionsPrefix(FlussStreamStoreFactory.IDENTIFIER);
                throw new StreamStoreException(
                        String.format(
                                "The Fluss cluster at %s refused the credentials of this client "
                                        + "(%s): %s. Check the catalog options '%s' and '%s' (or "
                                        + "'%s'), and that the user exists on the cluster.",
                                calls.bootstrapServers(),
                                describeLogin(conf),
                                refused.get().getMessage(),
                                options + ConfigOptions.CLIENT_SASL_JAAS_USERNAME.key(),
                                options + ConfigOptions.CLIENT_SASL_JAAS_PASSWORD.key(),
                                options + ConfigOptions.CLIENT_SASL_JAAS_CONFIG.key()),
                        refused.get());
            }
            throw new StreamStoreException(
                    String.format(
                            "Cannot connect to the Fluss cluster at %s: %s",
                            calls.bootstrapServers(), e.getCause().getMessage()),
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StreamStoreException("Interrupted while connecting to Fluss", e);
        }
    }

    /** The security protocol, mechanism and user name of {@code conf}: never its password. */
    private static String describeLogin(Configuration conf) {
        String username = conf.get(ConfigOptions.CLIENT_SASL_JAAS_USERNAME);
        return String.format(
                "security protocol '%s', mechanism '%s'%s",
                conf.get(ConfigOptions.CLIENT_SECURITY_PROTOCOL),
                conf.get(ConfigOptions.CLIENT_SASL_MECHANISM),
                username == null ? "" : ", user '" + username + "'");
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // closing is best effort: the connection holds no state that must be saved
        }
    }

    /** An open connection and how long its close may wait for pending writes. */
    static final class Opened {

        final Connection connection;
        private final Duration writeTimeout;

        Opened(Connection connection, Duration writeTimeout) {
            this.connection = connection;
            this.writeTimeout = writeTimeout;
        }

        /**
         * Closes the connection, waiting at most {@link #CLOSE_GRACE} (or the write timeout, if
         * shorter). Fluss's connection waits for every pending write without a time limit when it
         * closes, which would keep a failed Flink task from being cancelled (and its job from
         * restarting) for as long as the cluster is unreachable; past the grace the writer is
         * forced closed and the rest of the close goes on in a background thread.
         *
         * <p>Why the pending writes are not waited for: every user of the connection waits for what
         * it needs durable (a writer's flush at each barrier and at the end of its input, an append
         * to a lease or fence log), so a connection that still holds writes when its last user
         * closes it holds those of a writer that failed or was cancelled, whose records the attempt
         * that replaces it fences. Waiting the write timeout for them (a writer that just failed on
         * that timeout) only kept the job from restarting for as long again.
         */
        void close() {
            Thread closer = new Thread(() -> closeQuietly(connection), "lake-stream-fluss-close");
            closer.setDaemon(true);
            closer.start();
            try {
                closer.join(Math.min(writeTimeout.toMillis(), CLOSE_GRACE.toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (closer.isAlive() && connection instanceof FlussConnection) {
                // Fluss 0.9.1's writer, closing, sends its pending batches again and again
                // without a pause; when its metadata cannot be refreshed (a server that
                // restarted) the loop never ends and takes a CPU core. Force it closed: the
                // pending batches belong to a failed attempt, whose records are fenced when the
                // job restarts.
                ((FlussConnection) connection)
                        .getOrCreateWriterClient()
                        .close(Duration.ofMillis(FORCED_WRITER_CLOSE_MILLIS));
            }
        }
    }

    /** What makes two connections interchangeable. */
    private static final class Key {
        private final ClassLoader classLoader;
        private final Map<String, String> conf;
        private final FlussAdminCalls calls;
        private final Duration writeTimeout;

        Key(
                ClassLoader classLoader,
                Map<String, String> conf,
                FlussAdminCalls calls,
                Duration writeTimeout) {
            this.classLoader = classLoader;
            this.conf = conf;
            this.calls = calls;
            this.writeTimeout = writeTimeout;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key)) {
                return false;
            }
            Key that = (Key) o;
            // the class loader by identity: equal loaders of two jobs are still two jobs
            return classLoader == that.classLoader
                    && conf.equals(that.conf)
                    && calls.bootstrapServers().equals(that.calls.bootstrapServers())
                    && calls.timeout().equals(that.calls.timeout())
                    && writeTimeout.equals(that.writeTimeout);
        }

        @Override
        public int hashCode() {
            return Objects.hash(
                    System.identityHashCode(classLoader), conf, calls.timeout(), writeTimeout);
        }
    }
}
