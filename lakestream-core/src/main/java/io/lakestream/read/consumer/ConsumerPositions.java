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

package io.lakestream.read.consumer;

import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.BranchManager;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * The position of a lake-stream read with a {@code consumer-id}, kept beside Paimon's consumer file
 * of the same id ({@code consumer/consumer-<id>}, which Paimon's snapshot expiry, consumer expiry
 * and {@code sys.reset_consumer} work on) as {@code consumer/lake-stream-position-<id>}: the
 * engine's position (for Flink, the enumerator state a restore from the checkpoint would restore),
 * in the engine's own versioned form, and the consumer file's next snapshot it was written with.
 * Paimon lists its consumers by the {@code consumer-} prefix, so the position file is none of them.
 *
 * <p>The position file is written first, then the consumer file. A position whose next snapshot is
 * not the consumer file's (the consumer was reset, written by Paimon's own source, or the writer
 * stopped between the two writes) is not the consumer's position, and a torn one fails its
 * checksum: either way the read starts as Paimon's read of the consumer does, from its next
 * snapshot.
 */
public final class ConsumerPositions {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerPositions.class);

    private static final String POSITION_PREFIX = "lake-stream-position-";

    private static final int FORMAT_VERSION = 1;

    private static final int EMPTY_READ_ATTEMPTS = 10;

    private static final long EMPTY_READ_PAUSE_MILLIS = 100;

    private final FileStoreTable table;
    private final String consumerId;

    public ConsumerPositions(FileStoreTable table, String consumerId) {
        this.table = table;
        this.consumerId = consumerId;
    }

    /** A recorded position. */
    public static final class Recorded {
        private final long nextSnapshot;
        private final long checkpointId;
        private final int stateVersion;
        private final byte[] state;

        Recorded(long nextSnapshot, long checkpointId, int stateVersion, byte[] state) {
            this.nextSnapshot = nextSnapshot;
            this.checkpointId = checkpointId;
            this.stateVersion = stateVersion;
            this.state = state;
        }

        /** The consumer file's next snapshot the position was written with. */
        public long nextSnapshot() {
            return nextSnapshot;
        }

        /** The engine's checkpoint (or batch) the position was taken at. */
        public long checkpointId() {
            return checkpointId;
        }

        /** The version of the engine's serializer that wrote {@link #state()}. */
        public int stateVersion() {
            return stateVersion;
        }

        /** The engine's position. */
        public byte[] state() {
            return state;
        }
    }

    public String consumerId() {
        return consumerId;
    }

    /** The consumer file's next snapshot, if the consumer exists. */
    public Optional<Long> nextSnapshot() {
        // Paimon overwrites a consumer file in place, so a read while a running job records its
        // position can find it empty; Paimon 1.3.1's own retry of that case never runs (its JSON
        // parser wraps the exception it retries on), so the read is tried again here
        for (int attempt = 1; ; attempt++) {
            try {
                return consumers().consumer(consumerId).map(Consumer::nextSnapshot);
            } catch (UncheckedIOException e) {
                if (attempt >= EMPTY_READ_ATTEMPTS || !isEmptyContent(e)) {
                    throw e;
                }
                try {
                    Thread.sleep(EMPTY_READ_PAUSE_MILLIS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private static boolean isEmptyContent(UncheckedIOException e) {
        // Paimon's shaded Jackson: matched by name
        return e.getCause() != null
                && e.getCause().getClass().getName().endsWith("MismatchedInputException");
    }

    /**
     * The position recorded with next snapshot {@code nextSnapshot}, the consumer file's as the
     * caller just read it ({@link #nextSnapshot()}), if such a position reads whole: a caller that
     * needs the next snapshot either way reads the consumer file once.
     */
    public Optional<Recorded> positionAt(long nextSnapshot) {
        Optional<Recorded> recorded = read();
        if (recorded.isPresent() && recorded.get().nextSnapshot() != nextSnapshot) {
            LOG.info(
                    "Consumer {} of {} has next snapshot {}, its lake-stream position was "
                            + "recorded with {}: the consumer was reset or written by another "
                            + "source.",
                    consumerId,
                    table.fullName(),
                    nextSnapshot,
                    recorded.get().nextSnapshot());
            return Optional.empty();
        }
        return recorded;
    }

    /**
     * Records {@code state} (version {@code stateVersion} of the engine's form), taken at
     * checkpoint {@code checkpointId}, then Paimon's consumer file with {@code nextSnapshot}: the
     * oldest snapshot the position still needs, which Paimon's snapshot expiry keeps.
     */
    public void write(long nextSnapshot, long checkpointId, int stateVersion, byte[] state)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(state.length + 40);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(FORMAT_VERSION);
        out.writeLong(nextSnapshot);
        out.writeLong(checkpointId);
        out.writeInt(stateVersion);
        out.writeInt(state.length);
        out.write(state);
        out.flush();
        CRC32 crc = new CRC32();
        crc.update(bytes.toByteArray());
        out.writeLong(crc.getValue());
        out.flush();
        try (PositionOutputStream file = table.fileIO().newOutputStream(positionPath(), true)) {
            file.write(bytes.toByteArray());
        }
        consumers().resetConsumer(consumerId, new Consumer(nextSnapshot));
    }

    /** The recorded position, whatever the consumer file says; empty if none reads whole. */
    Optional<Recorded> read() {
        Path path = positionPath();
        FileIO fileIO = table.fileIO();
        byte[] bytes;
        try {
            if (!fileIO.exists(path)) {
                return Optional.empty();
            }
            try (InputStream in = fileIO.newInputStream(path)) {
                bytes = in.readAllBytes();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(
                    String.format(
                            "Cannot read the lake-stream position of consumer %s of table %s at %s",
                            consumerId, table.fullName(), path),
                    e);
        }
        if (bytes.length < Long.BYTES) {
            return torn(path);
        }
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, bytes.length - Long.BYTES);
        if (ByteBuffer.wrap(bytes).getLong(bytes.length - Long.BYTES) != crc.getValue()) {
            return torn(path);
        }
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            int format = in.readInt();
            if (format != FORMAT_VERSION) {
                throw new IllegalStateException(
                        String.format(
                                "The lake-stream position of consumer %s of table %s (%s) has "
                                        + "format version %d; this version reads %d. Reset the "
                                        + "consumer (CALL sys.reset_consumer) or read it with the "
                                        + "connector version that wrote it.",
                                consumerId, table.fullName(), path, format, FORMAT_VERSION));
            }
            long nextSnapshot = in.readLong();
            long checkpointId = in.readLong();
            int stateVersion = in.readInt();
            byte[] state = new byte[in.readInt()];
            in.readFully(state);
            return Optional.of(new Recorded(nextSnapshot, checkpointId, stateVersion, state));
        } catch (IOException e) {
            return torn(path);
        }
    }

    private Optional<Recorded> torn(Path path) {
        LOG.warn(
                "The lake-stream position of consumer {} of {} at {} does not read whole (a "
                        + "write was cut short); the consumer's next snapshot stands alone.",
                consumerId,
                table.fullName(),
                path);
        return Optional.empty();
    }

    private ConsumerManager consumers() {
        return table.consumerManager();
    }

    /** {@code consumer/lake-stream-position-<id>} in the directory of the table's branch. */
    Path positionPath() {
        return new Path(
                BranchManager.branchPath(table.location(), table.coreOptions().branch())
                        + "/consumer/"
                        + POSITION_PREFIX
                        + consumerId);
    }
}
