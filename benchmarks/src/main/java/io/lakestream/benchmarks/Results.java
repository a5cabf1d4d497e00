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

package io.lakestream.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The figures of one run, in the order they were first recorded. */
final class Results {

    private final Map<String, Figure> figures = new LinkedHashMap<>();

    /** Records a lake-stream value of the figure {@code name}. */
    void lakeStream(String name, String unit, boolean higherIsBetter, double value) {
        figure(name, unit, higherIsBetter).lakeStream.add(value);
        print("lake-stream", name, unit, value);
    }

    /** Records a Paimon-alone value of the figure {@code name}. */
    void paimon(String name, String unit, boolean higherIsBetter, double value) {
        figure(name, unit, higherIsBetter).paimon.add(value);
        print("paimon", name, unit, value);
    }

    /** Records the value of the store's own client alone for the figure {@code name}. */
    void storeAlone(String name, String unit, boolean higherIsBetter, double value) {
        figure(name, unit, higherIsBetter).storeAlone.add(value);
        print("store alone", name, unit, value);
    }

    List<Figure> figures() {
        return new ArrayList<>(figures.values());
    }

    private Figure figure(String name, String unit, boolean higherIsBetter) {
        return figures.computeIfAbsent(name, n -> new Figure(n, unit, higherIsBetter));
    }

    private static void print(String side, String name, String unit, double value) {
        // progress, so that a long run shows where it is
        System.out.printf("  %-11s %s: %,.1f %s%n", side, name, value, unit);
    }
}
