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

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The linear comparison of rendered rows that the sink's tests compare Paimon with the store by.
 */
class SameRowsTest {

    @Test
    void theSameRowsInAnotherOrderAreTheSame() {
        assertThatCode(
                        () ->
                                SameRows.assertSameRows(
                                        "rows",
                                        Arrays.asList("b", "a", "b"),
                                        Arrays.asList("b", "b", "a")))
                .doesNotThrowAnyException();
    }

    @Test
    void aRowMissingOrOnceTooOftenIsNamedWithItsCount() {
        List<String> expected = Arrays.asList("a", "b", "b");
        assertThatThrownBy(
                        () ->
                                SameRows.assertSameRows(
                                        "snapshot 3", Arrays.asList("a", "b"), expected))
                .hasMessageContaining("snapshot 3: rows missing")
                .hasMessageContaining("1 x b");
        assertThatThrownBy(
                        () ->
                                SameRows.assertSameRows(
                                        "snapshot 4", Arrays.asList("a", "b", "b", "a"), expected))
                .hasMessageContaining("snapshot 4: rows not expected")
                .hasMessageContaining("1 x a");
        assertThatThrownBy(
                        () ->
                                SameRows.assertSameRows(
                                        "snapshot 5", Arrays.asList("a", "b", "c"), expected))
                .hasMessageContaining("rows missing")
                .hasMessageContaining("1 x b");
    }
}
