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

import io.lakestream.store.StreamStoreException;

import org.apache.fluss.shaded.arrow.org.apache.arrow.memory.RootAllocator;
import org.apache.fluss.shaded.arrow.org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.fluss.shaded.arrow.org.apache.arrow.vector.types.pojo.Schema;
import org.apache.fluss.utils.ArrowUtils;

import java.util.Arrays;
import java.util.List;

/**
 * Initializes the Fluss client's classes that hold static state before a store is used, and turns a
 * class that failed to initialize into an error that says what to do.
 *
 * <p>Why: a JVM initializes a class once. If its static initializer fails, for example with an
 * {@link OutOfMemoryError} thrown while another task of the TaskManager exhausted the heap, every
 * later use of the class in that JVM fails with {@code NoClassDefFoundError: Could not initialize
 * class ...}. With the bundle in Flink's {@code lib/}, the classes are loaded once per TaskManager,
 * not once per job, so one job's OutOfMemoryError can leave the TaskManager unable to run any
 * lake-stream job until it restarts. The Arrow classes below are the ones Fluss 0.9.1 initializes
 * lazily on the first write batch or log read (its writer's buffer allocator, the read context of
 * the fence and writer-lease logs, whose log format is Fluss's default Arrow). Initializing them
 * when a store is created moves that first initialization out of the record path of a running job,
 * and a TaskManager already broken this way fails at the store's creation with this class's message
 * instead of deep inside a write or read.
 */
final class FlussClientClasses {

    /** Fluss client classes with static initializers that its writer and readers need. */
    private static final List<Class<?>> STATEFUL_CLASSES =
            Arrays.asList(
                    RootAllocator.class, Schema.class, VectorSchemaRoot.class, ArrowUtils.class);

    private FlussClientClasses() {}

    /** Initializes the Fluss client's stateful classes; see the class comment. */
    static void initialize() {
        initialize(STATEFUL_CLASSES);
    }

    static void initialize(List<Class<?>> classes) {
        for (Class<?> type : classes) {
            try {
                // a class literal does not run the static initializer; forName(name, true, ...)
                // does, once per class loader, and is a lookup afterwards
                Class.forName(type.getName(), true, type.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("Class " + type.getName() + " is not found", e);
            } catch (LinkageError e) {
                throw new StreamStoreException(
                        String.format(
                                "The Fluss client's class %s cannot be initialized in this JVM: %s."
                                        + " A class whose initialization failed once, for"
                                        + " example during an OutOfMemoryError of another job on"
                                        + " the same TaskManager, stays unusable until the"
                                        + " process restarts: restart this TaskManager, and set"
                                        + " Flink's 'taskmanager.jvm-exit-on-oom: true' so that"
                                        + " a TaskManager exits on an OutOfMemoryError instead"
                                        + " of running on with classes it cannot use.",
                                type.getName(), e),
                        e);
            }
        }
    }
}
