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

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Resources that are expensive to open and to close (a store client's connection), shared by key
 * and counted: every user {@link #acquire acquires} a {@link Lease} and closes it when done; the
 * resource is closed once its last lease is closed and no new one came within the idle timeout, in
 * a daemon thread, so that neither the last user nor the next one waits for it.
 *
 * <p>A user that leaves the resource in a state others must not inherit (a writer whose records
 * failed) {@link Lease#invalidate() invalidates} it: nobody acquires it any more, and it is closed
 * by whoever closes its last lease, at once and in that thread, so that the state is gone before
 * that user goes on (a restarted writer must not find its failed predecessor's records still
 * pending).
 *
 * @param <K> what identifies one resource: two acquires of equal keys share it
 * @param <R> the resource
 */
public final class SharedResourcePool<K, R> {

    private static final Logger LOG = LoggerFactory.getLogger(SharedResourcePool.class);

    private final String name;
    private final Function<K, R> opener;
    private final Consumer<R> closer;
    private final ScheduledThreadPoolExecutor idleCloser;

    private final Map<K, Entry<R>> entries = new HashMap<>();

    /**
     * @param name what the resources are, for thread names and logs
     * @param opener opens the resource of a key; runs outside the pool's lock, once per key while
     *     the resource is shared, and may throw (every acquirer waiting for it gets the error)
     * @param closer closes a resource; errors it throws are logged
     */
    public SharedResourcePool(String name, Function<K, R> opener, Consumer<R> closer) {
        this.name = Objects.requireNonNull(name, "name");
        this.opener = Objects.requireNonNull(opener, "opener");
        this.closer = Objects.requireNonNull(closer, "closer");
        this.idleCloser =
                new ScheduledThreadPoolExecutor(
                        1,
                        r -> {
                            Thread thread = new Thread(r, name + "-idle-close");
                            thread.setDaemon(true);
                            return thread;
                        });
        // the thread ends when nothing is pending, so that it does not keep the class loader of
        // a finished job alive
        idleCloser.setKeepAliveTime(1, TimeUnit.SECONDS);
        idleCloser.allowCoreThreadTimeOut(true);
        idleCloser.setRemoveOnCancelPolicy(true);
    }

    /**
     * The resource of {@code key}: the open one if there is one, else a new one.
     *
     * @param idleTimeout how long the resource stays open after its last lease is closed, if it is
     *     opened by this call
     */
    public Lease<R> acquire(K key, Duration idleTimeout) {
        Entry<R> entry;
        boolean opens = false;
        synchronized (this) {
            entry = entries.get(key);
            if (entry == null) {
                entry = new Entry<>(idleTimeout);
                entries.put(key, entry);
                opens = true;
            }
            entry.leases++;
            if (entry.pendingClose != null) {
                // acquired again within the idle timeout: the resource stays
                entry.pendingClose.cancel(false);
                entry.pendingClose = null;
            }
        }
        if (opens) {
            try {
                entry.resource.complete(opener.apply(key));
            } catch (RuntimeException | Error e) {
                synchronized (this) {
                    entries.remove(key, entry);
                }
                entry.resource.completeExceptionally(e);
                throw e;
            }
        }
        R resource;
        try {
            resource = entry.resource.join();
        } catch (CompletionException e) {
            // another acquirer's open failed; the entry is gone, and so is this lease
            if (e.getCause() instanceof RuntimeException) {
                throw (RuntimeException) e.getCause();
            }
            throw e;
        }
        return new Lease<>(this, key, entry, resource);
    }

    /** How many resources are open or opening (for tests and metrics). */
    public synchronized int size() {
        return entries.size();
    }

    private void release(K key, Entry<R> entry) {
        synchronized (this) {
            entry.leases--;
            if (entry.leases > 0) {
                return;
            }
            if (!entry.invalid && entry.idleTimeout.toMillis() > 0) {
                entry.pendingClose =
                        idleCloser.schedule(
                                () -> closeIfIdle(key, entry),
                                entry.idleTimeout.toMillis(),
                                TimeUnit.MILLISECONDS);
                return;
            }
            if (!takeForClose(key, entry)) {
                return;
            }
        }
        if (entry.invalid) {
            close(entry);
        } else {
            idleCloser.execute(() -> close(entry));
        }
    }

    private void closeIfIdle(K key, Entry<R> entry) {
        synchronized (this) {
            if (!takeForClose(key, entry)) {
                return; // acquired again, or closed already
            }
        }
        close(entry);
    }

    private void invalidate(K key, Entry<R> entry) {
        synchronized (this) {
            entry.invalid = true;
            entries.remove(key, entry);
            if (!takeForClose(key, entry)) {
                return; // still in use: its last lease closes it
            }
        }
        close(entry);
    }

    /** Marks an unused entry closed and takes it out of the pool; false if in use or closed. */
    private boolean takeForClose(K key, Entry<R> entry) {
        if (entry.leases > 0 || entry.closed) {
            return false;
        }
        entry.closed = true;
        if (entry.pendingClose != null) {
            entry.pendingClose.cancel(false);
            entry.pendingClose = null;
        }
        entries.remove(key, entry);
        return true;
    }

    private void close(Entry<R> entry) {
        try {
            closer.accept(entry.resource.join());
        } catch (RuntimeException | Error e) {
            LOG.warn("Closing a shared {} failed.", name, e);
        }
    }

    /** One shared resource and its users. Guarded by the pool. */
    private static final class Entry<R> {
        final CompletableFuture<R> resource = new CompletableFuture<>();
        final Duration idleTimeout;
        int leases;
        boolean invalid;
        boolean closed;
        ScheduledFuture<?> pendingClose;

        Entry(Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
        }
    }

    /**
     * One user's share of a resource. Closing it is idempotent and returns at once, unless the
     * resource is invalidated and this was its last lease.
     *
     * @param <R> the resource
     */
    public static final class Lease<R> implements AutoCloseable {

        private final SharedResourcePool<Object, R> pool;
        private final Object key;
        private final Entry<R> entry;
        private final R resource;
        private final AtomicBoolean closed = new AtomicBoolean();

        @SuppressWarnings("unchecked")
        private Lease(SharedResourcePool<?, R> pool, Object key, Entry<R> entry, R resource) {
            this.pool = (SharedResourcePool<Object, R>) pool;
            this.key = key;
            this.entry = entry;
            this.resource = resource;
        }

        public R resource() {
            return resource;
        }

        /**
         * Takes the resource out of the pool: later acquires open a new one, and this one is closed
         * when its last lease is.
         */
        public void invalidate() {
            pool.invalidate(key, entry);
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                pool.release(key, entry);
            }
        }
    }
}
