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

package io.lakestream.spark.source;

import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;

import org.apache.spark.sql.sources.And;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.GreaterThan;
import org.apache.spark.sql.sources.GreaterThanOrEqual;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNotNull;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.LessThan;
import org.apache.spark.sql.sources.LessThanOrEqual;
import org.apache.spark.sql.sources.Not;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.sources.StringStartsWith;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * Spark's data source filters as Paimon predicates, for pruning partitions, buckets and files: a
 * filter is converted whole or not at all (a part of it could not be negated or or-ed safely), and
 * its literals by Paimon's own conversion ({@link PredicateBuilder#convertJavaObject}). Spark tests
 * every filter again on the rows read, so one left out costs time, never a row.
 */
final class SparkFilterConverter {

    private final RowType rowType;
    private final PredicateBuilder builder;

    SparkFilterConverter(RowType rowType) {
        this.rowType = rowType;
        this.builder = new PredicateBuilder(rowType);
    }

    /** The predicate of {@code filter}, or null when some part of it has none. */
    @Nullable
    Predicate convert(Filter filter) {
        if (filter instanceof And) {
            Predicate left = convert(((And) filter).left());
            Predicate right = convert(((And) filter).right());
            return left == null || right == null ? null : PredicateBuilder.and(left, right);
        }
        if (filter instanceof Or) {
            Predicate left = convert(((Or) filter).left());
            Predicate right = convert(((Or) filter).right());
            return left == null || right == null ? null : PredicateBuilder.or(left, right);
        }
        if (filter instanceof Not) {
            Predicate child = convert(((Not) filter).child());
            return child == null ? null : child.negate().orElse(null);
        }
        if (filter instanceof IsNull) {
            int index = indexOf(((IsNull) filter).attribute());
            return index < 0 ? null : builder.isNull(index);
        }
        if (filter instanceof IsNotNull) {
            int index = indexOf(((IsNotNull) filter).attribute());
            return index < 0 ? null : builder.isNotNull(index);
        }
        if (filter instanceof EqualTo) {
            EqualTo f = (EqualTo) filter;
            return leaf(f.attribute(), f.value(), Comparison.EQUAL);
        }
        if (filter instanceof GreaterThan) {
            GreaterThan f = (GreaterThan) filter;
            return leaf(f.attribute(), f.value(), Comparison.GREATER);
        }
        if (filter instanceof GreaterThanOrEqual) {
            GreaterThanOrEqual f = (GreaterThanOrEqual) filter;
            return leaf(f.attribute(), f.value(), Comparison.GREATER_OR_EQUAL);
        }
        if (filter instanceof LessThan) {
            LessThan f = (LessThan) filter;
            return leaf(f.attribute(), f.value(), Comparison.LESS);
        }
        if (filter instanceof LessThanOrEqual) {
            LessThanOrEqual f = (LessThanOrEqual) filter;
            return leaf(f.attribute(), f.value(), Comparison.LESS_OR_EQUAL);
        }
        if (filter instanceof StringStartsWith) {
            StringStartsWith f = (StringStartsWith) filter;
            return leaf(f.attribute(), f.value(), Comparison.STARTS_WITH);
        }
        if (filter instanceof In) {
            In f = (In) filter;
            int index = indexOf(f.attribute());
            if (index < 0) {
                return null;
            }
            List<Object> values = new ArrayList<>();
            for (Object value : f.values()) {
                Object literal = literal(index, value);
                if (literal == null) {
                    return null;
                }
                values.add(literal);
            }
            return builder.in(index, values);
        }
        return null;
    }

    private enum Comparison {
        EQUAL,
        GREATER,
        GREATER_OR_EQUAL,
        LESS,
        LESS_OR_EQUAL,
        STARTS_WITH
    }

    @Nullable
    private Predicate leaf(String attribute, Object value, Comparison comparison) {
        int index = indexOf(attribute);
        Object literal = index < 0 ? null : literal(index, value);
        if (literal == null) {
            return null;
        }
        switch (comparison) {
            case EQUAL:
                return builder.equal(index, literal);
            case GREATER:
                return builder.greaterThan(index, literal);
            case GREATER_OR_EQUAL:
                return builder.greaterOrEqual(index, literal);
            case LESS:
                return builder.lessThan(index, literal);
            case LESS_OR_EQUAL:
                return builder.lessOrEqual(index, literal);
            default:
                return builder.startsWith(index, literal);
        }
    }

    /** The column's index; -1 for a nested field or an unknown one. */
    private int indexOf(String attribute) {
        return rowType.getFieldNames().indexOf(attribute);
    }

    /** Paimon's value of a Spark literal for the column, or null when it has none. */
    @Nullable
    private Object literal(int index, @Nullable Object value) {
        if (value == null) {
            return null;
        }
        DataType type = rowType.getTypeAt(index);
        try {
            return PredicateBuilder.convertJavaObject(type, value);
        } catch (RuntimeException unsupported) {
            // a literal Paimon does not convert for this type: the filter is not pushed
            return null;
        }
    }
}
