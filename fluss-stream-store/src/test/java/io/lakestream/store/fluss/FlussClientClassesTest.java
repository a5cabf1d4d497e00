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

import org.apache.fluss.shaded.arrow.org.apache.arrow.vector.types.pojo.Schema;

import org.junit.jupiter.api.Test;

import java.util.Collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests {@link FlussClientClasses}. */
class FlussClientClassesTest {

    @Test
    void initializesTheFlussClientsStatefulClasses() throws Exception {
        FlussClientClasses.initialize();
        // initialized: its static state is in place, and a later use needs no initializer
        assertThat(Schema.fromJSON("{\"fields\":[]}").getFields()).isEmpty();
    }

    @Test
    void aClassThatFailedToInitializeBeforeIsNamedWithWhatToDo() {
        // the first initialization fails as one during another job's OutOfMemoryError would: an
        // Error from a static initializer reaches the caller as it is
        assertThatThrownBy(
                        () ->
                                FlussClientClasses.initialize(
                                        Collections.singletonList(FailsToInitialize.class)))
                .isInstanceOf(OutOfMemoryError.class);
        // every later use fails too, until the JVM restarts: the message says so and what to set
        assertThatThrownBy(
                        () ->
                                FlussClientClasses.initialize(
                                        Collections.singletonList(FailsToInitialize.class)))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(FailsToInitialize.class.getName())
                .hasMessageContaining("Could not initialize class")
                .hasMessageContaining("restart this TaskManager")
                .hasMessageContaining("'taskmanager.jvm-exit-on-oom: true'");
    }

    /** A class whose static initializer fails, as one does when the heap is exhausted. */
    private static final class FailsToInitialize {
        static final Object STATE = allocate();

        private static Object allocate() {
            throw new OutOfMemoryError("Java heap space (simulated)");
        }
    }
}
