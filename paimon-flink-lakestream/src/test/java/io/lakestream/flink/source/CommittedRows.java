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

package io.lakestream.flink.source;

import io.lakestream.testutils.Await;

import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.sink.SinkFunction;
import org.apache.flink.table.data.RowData;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

/**
 * A test sink that publishes rows only when the checkpoint holding them completes, as a
 * transactional sink does: after a failover the rows that the job emits again were never published,
 * so the published rows show whether the source returned each row exactly once. Rows are rendered
 * to strings on the way in; one job at a time per JVM.
 */
final class CommittedRows
        implements SinkFunction<RowData>, CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;

    private static final Map<String, ConcurrentLinkedQueue<String>> PUBLISHED =
            new ConcurrentHashMap<>();
    private static final Map<String, Set<Long>> PUBLISHED_CHECKPOINTS = new ConcurrentHashMap<>();

    private final String channel;

    private final SerializableRender render;

    private transient List<String> pending;
    private transient TreeMap<Long, List<String>> snapshotted;
    private transient ListState<String> state;

    CommittedRows(SerializableRender render) {
        this("", render);
    }

    /** A sink that publishes to its own {@code channel}, for jobs that run side by side. */
    CommittedRows(String channel, SerializableRender render) {
        this.channel = channel;
        this.render = render;
    }

    /** Renders a row; serializable so that it travels with the sink. */
    interface SerializableRender extends Function<RowData, String>, java.io.Serializable {}

    static void clear() {
        PUBLISHED.clear();
        PUBLISHED_CHECKPOINTS.clear();
    }

    static List<String> published() {
        return published("");
    }

    /** How many completed checkpoints of {@code channel}'s job have published so far. */
    static int publishedCheckpoints(String channel) {
        return PUBLISHED_CHECKPOINTS.getOrDefault(channel, Set.of()).size();
    }

    /**
     * Waits until {@code checkpoints} more checkpoints of {@code channel}'s job completed: rows
     * that a reader returned twice would have been published by then.
     */
    static void awaitMoreCheckpoints(String channel, int checkpoints) throws Exception {
        int target = publishedCheckpoints(channel) + checkpoints;
        Await.until(
                () -> publishedCheckpoints(channel) >= target,
                checkpoints + " more checkpoints of " + channel + " complete");
    }

    static List<String> published(String channel) {
        return new ArrayList<>(PUBLISHED.getOrDefault(channel, new ConcurrentLinkedQueue<>()));
    }

    @Override
    public void invoke(RowData value, Context context) {
        pending.add(render.apply(value));
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        snapshotted.put(context.getCheckpointId(), new ArrayList<>(pending));
        pending.clear();
        List<String> entries = new ArrayList<>();
        snapshotted.forEach((id, rows) -> rows.forEach(row -> entries.add(id + " " + row)));
        state.update(entries);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        pending = new ArrayList<>();
        snapshotted = new TreeMap<>();
        state =
                context.getOperatorStateStore()
                        .getListState(new ListStateDescriptor<>("to-publish", Types.STRING));
        if (context.isRestored()) {
            // restored from a completed checkpoint: what it held is published, once
            TreeMap<Long, List<String>> restored = new TreeMap<>();
            for (String entry : state.get()) {
                int space = entry.indexOf(' ');
                restored.computeIfAbsent(
                                Long.parseLong(entry.substring(0, space)), id -> new ArrayList<>())
                        .add(entry.substring(space + 1));
            }
            restored.forEach(this::publish);
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Map<Long, List<String>> done = snapshotted.headMap(checkpointId, true);
        done.forEach(this::publish);
        done.clear();
    }

    private void publish(long checkpointId, List<String> rows) {
        if (PUBLISHED_CHECKPOINTS
                .computeIfAbsent(channel, c -> ConcurrentHashMap.newKeySet())
                .add(checkpointId)) {
            PUBLISHED.computeIfAbsent(channel, c -> new ConcurrentLinkedQueue<>()).addAll(rows);
        }
    }
}
