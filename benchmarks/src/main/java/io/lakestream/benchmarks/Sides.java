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

/** The two sides of every pair: lake-stream mode ({@code true}) and Paimon alone. */
final class Sides {

    private Sides() {}

    /**
     * Both sides, lake-stream first in odd rounds and Paimon first in even ones, so that neither
     * always runs on the warmer JVM and caches.
     */
    static boolean[] order(int round) {
        return round % 2 == 1 ? new boolean[] {true, false} : new boolean[] {false, true};
    }

    static String label(boolean lakeStream) {
        return lakeStream ? "lake-stream" : "Paimon alone";
    }

    /** Records {@code value} for the side {@code lakeStream}. */
    static void record(
            Results results,
            boolean lakeStream,
            String figure,
            String unit,
            boolean higherIsBetter,
            double value) {
        if (lakeStream) {
            results.lakeStream(figure, unit, higherIsBetter, value);
        } else {
            results.paimon(figure, unit, higherIsBetter, value);
        }
    }
}
