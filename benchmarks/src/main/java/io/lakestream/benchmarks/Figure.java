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
import java.util.List;

/**
 * One row of the table: a measured quantity, with its value per round for lake-stream mode and for
 * Paimon alone on the same data (absent where Paimon has no counterpart).
 */
final class Figure {

    final String name;
    final String unit;
    final boolean higherIsBetter;
    final List<Double> lakeStream = new ArrayList<>();
    final List<Double> paimon = new ArrayList<>();

    /** The store's own client alone doing the store's part of the work, where a figure has it. */
    final List<Double> storeAlone = new ArrayList<>();

    Figure(String name, String unit, boolean higherIsBetter) {
        this.name = name;
        this.unit = unit;
        this.higherIsBetter = higherIsBetter;
    }

    /**
     * How many times better lake-stream mode is than Paimon alone, by the medians: above 1 is
     * better, whichever direction the unit counts; NaN without both.
     */
    double ratio() {
        double ls = Stats.of(lakeStream).median;
        double p = Stats.of(paimon).median;
        return higherIsBetter ? ls / p : p / ls;
    }

    /**
     * The median over the rounds of each round's ratio, as {@link #ratio()} counts it: the two
     * statements of a round run back to back, so a drift between rounds (the JIT warming up, the
     * machine busier in some rounds) moves both sides of a round, where it moves the two medians
     * apart. NaN unless both sides have the same rounds.
     */
    double pairedRatio() {
        if (lakeStream.isEmpty() || lakeStream.size() != paimon.size()) {
            return Double.NaN;
        }
        List<Double> ratios = new ArrayList<>(lakeStream.size());
        for (int i = 0; i < lakeStream.size(); i++) {
            double ls = lakeStream.get(i);
            double p = paimon.get(i);
            ratios.add(higherIsBetter ? ls / p : p / ls);
        }
        return Stats.of(ratios).median;
    }

    /**
     * The share of Paimon's rate (or time) that a dual write through the store could reach if it
     * kept the same cores busy with Paimon's work and the store's alone, by the medians: with
     * Paimon alone at {@code p} rows/s and the store alone at {@code f}, a row costs {@code 1/p +
     * 1/f} seconds, so the ratio is at most {@code f / (p + f)}. NaN without both.
     */
    double storeBound() {
        double alone = Stats.of(storeAlone).median;
        double p = Stats.of(paimon).median;
        double paimonCost = higherIsBetter ? 1 / p : p;
        double storeCost = higherIsBetter ? 1 / alone : alone;
        return paimonCost / (paimonCost + storeCost);
    }
}
