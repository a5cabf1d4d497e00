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

package io.lakestream.read.plan;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The split of a read's filter: for a primary-key table only conjuncts on partition and key fields
 * may be tested before the merge; for an append table the whole filter may.
 */
class ReadFilterTest {

    /** {@code (dt INT, id INT, v BIGINT, name STRING)}, partitioned by dt. */
    private static final RowType TYPE =
            RowType.of(
                    new org.apache.paimon.types.DataType[] {
                        DataTypes.INT(), DataTypes.INT(), DataTypes.BIGINT(), DataTypes.STRING()
                    },
                    new String[] {"dt", "id", "v", "name"});

    private static final List<String> PARTITION = Collections.singletonList("dt");
    private static final List<String> KEY = Arrays.asList("dt", "id");

    private final PredicateBuilder builder = new PredicateBuilder(TYPE);

    @Test
    void primaryKeyTableKeepsValueConjunctsAwayFromTheMerge() {
        Predicate partition = builder.equal(0, 1);
        Predicate key = builder.greaterOrEqual(1, 300);
        Predicate value = builder.equal(2, 6L);
        Predicate keyOrValue = PredicateBuilder.or(builder.equal(1, 1), builder.isNull(3));
        Predicate filter = PredicateBuilder.and(partition, key, value, keyOrValue);

        ReadFilter split = ReadFilter.of(TYPE, PARTITION, KEY, filter);

        assertThat(split.all()).isEqualTo(filter);
        assertThat(PredicateBuilder.splitAnd(split.beforeMerge()))
                .containsExactlyInAnyOrder(partition, key);
        // a disjunction reading a value field is a value conjunct as a whole
        assertThat(PredicateBuilder.splitAnd(split.afterMerge()))
                .containsExactlyInAnyOrder(value, keyOrValue);
    }

    @Test
    void aPartitionFieldOutsideTheKeyIsTestedBeforeTheMerge() {
        Predicate partition = builder.equal(0, 1);
        Predicate value = builder.equal(2, 6L);

        ReadFilter split =
                ReadFilter.of(
                        TYPE,
                        PARTITION,
                        Collections.singletonList("id"),
                        PredicateBuilder.and(partition, value));

        assertThat(split.beforeMerge()).isEqualTo(partition);
        assertThat(split.afterMerge()).isEqualTo(value);
    }

    @Test
    void onlyValueConjunctsLeaveNothingForPaimon() {
        Predicate value = builder.equal(2, 6L);

        ReadFilter split = ReadFilter.of(TYPE, PARTITION, KEY, value);

        assertThat(split.beforeMerge()).isNull();
        assertThat(split.afterMerge()).isEqualTo(value);
        assertThat(split.all()).isEqualTo(value);
    }

    @Test
    void appendTableTestsItsWholeFilterBeforeAnything() {
        Predicate filter = PredicateBuilder.and(builder.equal(0, 1), builder.equal(2, 6L));

        ReadFilter split = ReadFilter.of(TYPE, PARTITION, Collections.emptyList(), filter);

        assertThat(split.beforeMerge()).isEqualTo(filter);
        assertThat(split.afterMerge()).isNull();
        assertThat(split.all()).isEqualTo(filter);
    }

    @Test
    void noFilter() {
        ReadFilter split = ReadFilter.of(TYPE, PARTITION, KEY, null);

        assertThat(split.all()).isNull();
        assertThat(split.beforeMerge()).isNull();
        assertThat(split.afterMerge()).isNull();
        assertThat(split.readsOnly(new int[] {1})).isTrue();
    }

    @Test
    void readsOnlyNamesTheColumnsAProjectionMustKeep() {
        Predicate filter =
                PredicateBuilder.and(
                        builder.equal(0, 1),
                        PredicateBuilder.or(
                                builder.equal(2, 6L),
                                builder.equal(3, BinaryString.fromString("a"))));
        ReadFilter split = ReadFilter.of(TYPE, PARTITION, KEY, filter);

        assertThat(split.readsOnly(new int[] {3, 2, 0})).isTrue();
        assertThat(split.readsOnly(new int[] {0, 1, 2})).isFalse();
        assertThat(split.all().test(GenericRow.of(1, 5, 6L, null))).isTrue();
    }
}
