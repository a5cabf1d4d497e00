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

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Asserts that two collections of rendered rows hold the same rows, each as often, in any order, in
 * time linear in their size. AssertJ's {@code containsExactlyInAnyOrderElementsOf} removes every
 * expected row from a list of the actual ones, which is quadratic: comparing each retained snapshot
 * of a table of 16,000 rows with the store took most of a test's 40 s. On a difference it names up
 * to {@link #SHOWN} rows missing and {@link #SHOWN} unexpected, with their counts.
 */
final class SameRows {

    private static final int SHOWN = 20;

    private SameRows() {}

    static void assertSameRows(
            String description, Collection<String> actual, Collection<String> expected) {
        Map<String, Integer> balance = new HashMap<>();
        expected.forEach(row -> balance.merge(row, 1, Integer::sum));
        actual.forEach(row -> balance.merge(row, -1, Integer::sum));
        List<String> missing = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        for (Map.Entry<String, Integer> row : balance.entrySet()) {
            int count = row.getValue();
            if (count > 0 && missing.size() < SHOWN) {
                missing.add(count + " x " + row.getKey());
            } else if (count < 0 && unexpected.size() < SHOWN) {
                unexpected.add(-count + " x " + row.getKey());
            }
        }
        assertThat(missing)
                .as(
                        "%s: rows missing (of %d expected, %d actual)",
                        description, expected.size(), actual.size())
                .isEmpty();
        assertThat(unexpected)
                .as("%s: rows not expected (of %d actual)", description, actual.size())
                .isEmpty();
    }
}
