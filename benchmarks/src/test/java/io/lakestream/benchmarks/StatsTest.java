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

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Collections;

import static org.assertj.core.api.Assertions.assertThat;

/** The statistics the benchmark table prints. */
class StatsTest {

    @Test
    void theMedianOfAnOddCountIsTheMiddleValueAndTheSpreadIsMinToMax() {
        Stats stats = Stats.of(Arrays.asList(9.0, 1.0, 4.0));
        assertThat(stats.median).isEqualTo(4.0);
        assertThat(stats.min).isEqualTo(1.0);
        assertThat(stats.max).isEqualTo(9.0);
        assertThat(stats.count).isEqualTo(3);
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
        assertThat(Stats.of(Arrays.asList(4.0, 1.0, 3.0, 10.0)).median).isEqualTo(3.5);
    }

    @Test
    void noValuesGiveNaN() {
        assertThat(Stats.of(Collections.emptyList()).median).isNaN();
        assertThat(Stats.percentile(Collections.emptyList(), 99)).isNaN();
    }

    @Test
    void percentilesAreByNearestRank() {
        Long[] values = new Long[100];
        for (int i = 0; i < 100; i++) {
            values[i] = (long) (100 - i);
        }
        assertThat(Stats.percentile(Arrays.asList(values), 50)).isEqualTo(50.0);
        assertThat(Stats.percentile(Arrays.asList(values), 99)).isEqualTo(99.0);
        assertThat(Stats.percentile(Arrays.asList(values), 100)).isEqualTo(100.0);
    }

    @Test
    void theRatioSaysHowManyTimesBetterLakeStreamIsWhicheverWayTheUnitCounts() {
        Figure seconds = new Figure("scan", "s", false);
        seconds.lakeStream.add(2.0);
        seconds.paimon.add(1.0);
        assertThat(seconds.ratio()).isEqualTo(0.5);
        Figure rate = new Figure("insert", "rows/s", true);
        rate.lakeStream.add(80.0);
        rate.paimon.add(100.0);
        assertThat(rate.ratio()).isEqualTo(0.8);
    }
}
