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
import java.util.Collections;
import java.util.List;

/** The median, minimum and maximum of the rounds of one figure. */
final class Stats {

    final double median;
    final double min;
    final double max;
    final int count;

    private Stats(double median, double min, double max, int count) {
        this.median = median;
        this.min = min;
        this.max = max;
        this.count = count;
    }

    /** The statistics of {@code values}; NaN throughout when there are none. */
    static Stats of(List<Double> values) {
        if (values.isEmpty()) {
            return new Stats(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        // the mean of the two middle values for an even count, so that two rounds give their mean
        double median =
                n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        return new Stats(median, sorted.get(0), sorted.get(n - 1), n);
    }

    /** The {@code p}-th percentile (0 to 100) by nearest rank; NaN when there are no values. */
    static double percentile(List<Long> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }
}
