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

package io.lakestream.flink.sink;

import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileIOLoader;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.local.LocalFileIO;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The local file system under the scheme {@code held://}, on which the closing of Paimon's data
 * files can be held back, as an object store's slow upload holds it: what keeps Paimon's writer in
 * the prepare of its commit for as long as a test needs. One holder per JVM (static), as the
 * MiniCluster's tasks run in the test's JVM.
 */
public class HeldFileIO extends LocalFileIO {

    private static final long serialVersionUID = 1L;

    static final String SCHEME = "held";

    private static volatile CountDownLatch hold;
    private static final AtomicInteger held = new AtomicInteger();

    /** From now on, a data file's close waits until {@link #release}. */
    static synchronized void hold() {
        hold = new CountDownLatch(1);
    }

    /** Lets every held close go on, and the later ones pass. */
    static synchronized void release() {
        if (hold != null) {
            hold.countDown();
            hold = null;
        }
    }

    /** How many closes wait now. */
    static int waiting() {
        return held.get();
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        PositionOutputStream out = super.newOutputStream(path, overwrite);
        return path.getName().startsWith("data-") ? new HeldClose(out) : out;
    }

    /** An output stream whose close waits while closes are held. */
    private static final class HeldClose extends PositionOutputStream {

        private final PositionOutputStream out;

        HeldClose(PositionOutputStream out) {
            this.out = out;
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
        }

        @Override
        public void write(byte[] b) throws IOException {
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            CountDownLatch latch = hold;
            if (latch != null) {
                held.incrementAndGet();
                try {
                    latch.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while held");
                } finally {
                    held.decrementAndGet();
                }
            }
            out.close();
        }
    }

    /** Finds {@link HeldFileIO} for {@code held://} paths. */
    public static class Loader implements FileIOLoader {

        private static final long serialVersionUID = 1L;

        @Override
        public String getScheme() {
            return SCHEME;
        }

        @Override
        public FileIO load(Path path) {
            return new HeldFileIO();
        }
    }
}
