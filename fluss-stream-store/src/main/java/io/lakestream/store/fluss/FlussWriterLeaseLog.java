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

import io.lakestream.store.WriterLeaseEntry;
import io.lakestream.store.WriterLeaseLog;

import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.client.table.scanner.ScanRecord;
import org.apache.fluss.metadata.Schema;
import org.apache.fluss.metadata.TablePath;
import org.apache.fluss.row.BinaryString;
import org.apache.fluss.row.GenericRow;
import org.apache.fluss.types.DataTypes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The writer leases of a stream table, one row per claim, renewal or release in a one-bucket Fluss
 * log table next to it ({@code <table>__lake_stream_writers}). An entry's time is the commit
 * timestamp the tablet server gives its batch, so every process judges expiry by the server's
 * clock.
 */
final class FlussWriterLeaseLog implements WriterLeaseLog {

    static final String WRITER_TABLE_SUFFIX = "__lake_stream_writers";

    private final FlussSingleBucketLog log;

    FlussWriterLeaseLog(FlussSingleBucketLog log) {
        this.log = log;
    }

    static TablePath writerTablePath(TablePath streamTable) {
        return FlussSingleBucketLog.pathNextTo(streamTable, WRITER_TABLE_SUFFIX);
    }

    static void provision(
            Admin admin,
            FlussAdminCalls calls,
            TablePath writerTable,
            Map<String, String> properties) {
        FlussSingleBucketLog.provision(
                admin,
                calls,
                writerTable,
                Schema.newBuilder()
                        .column("owner", DataTypes.STRING().copy(false))
                        .column("description", DataTypes.STRING().copy(false))
                        .column("released", DataTypes.BOOLEAN().copy(false))
                        .build(),
                "Writer lease claims and renewals of lake-stream table",
                properties);
    }

    @Override
    public void append(String owner, String description) {
        log.append(
                GenericRow.of(
                        BinaryString.fromString(owner),
                        BinaryString.fromString(description),
                        false),
                "claim the writer lease for " + owner);
    }

    @Override
    public void release(String owner, String description) {
        log.append(
                GenericRow.of(
                        BinaryString.fromString(owner), BinaryString.fromString(description), true),
                "release the writer lease of " + owner);
    }

    @Override
    public List<WriterLeaseEntry> readNew() {
        List<WriterLeaseEntry> entries = new ArrayList<>();
        for (ScanRecord record : log.readNew()) {
            entries.add(
                    new WriterLeaseEntry(
                            record.getRow().getString(0).toString(),
                            record.getRow().getString(1).toString(),
                            record.timestamp(),
                            record.getRow().getBoolean(2)));
        }
        return entries;
    }

    @Override
    public String resumableId() {
        // the cluster and the table's id: a log table dropped and created again has another id
        return "fluss:" + log.bootstrapServers() + "/" + log.path() + "#" + log.tableId();
    }

    @Override
    public long position() {
        return log.nextOffset();
    }

    @Override
    public void seek(long position) {
        log.seek(position);
    }

    @Override
    public void close() {
        log.close();
    }
}
