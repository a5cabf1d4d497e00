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

import io.lakestream.read.plan.ReadFilter;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.table.FileStoreTable;

import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructType;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds the scan of a query: the columns it needs (Spark prunes the others) and the filters that
 * prune partitions, buckets and files. The union is merged on whole rows, since a primary-key
 * table's merge engine may read any column; the pruning applies to the rows handed to Spark.
 */
public class LakeStreamScanBuilder
        implements SupportsPushDownRequiredColumns, SupportsPushDownFilters, SupportsPushDownLimit {

    private final Identifier identifier;
    private final FileStoreTable table;
    private final Map<String, String> options;
    private final boolean auditLog;
    private StructType readSchema;
    private Filter[] pushed = new Filter[0];
    @Nullable private Predicate predicate;
    @Nullable private Integer limit;

    LakeStreamScanBuilder(
            Identifier identifier,
            FileStoreTable table,
            Map<String, String> options,
            StructType schema,
            boolean auditLog) {
        this.identifier = identifier;
        this.table = table;
        this.options = options;
        this.readSchema = schema;
        this.auditLog = auditLog;
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        this.readSchema = requiredSchema;
    }

    /**
     * Converts what it can into a Paimon predicate that prunes partitions, buckets and files, and
     * returns every filter: Spark tests them all on the rows read, because a primary-key table's
     * value filters may only hold after the merge with the store (see {@link ReadFilter}).
     */
    @Override
    public Filter[] pushFilters(Filter[] filters) {
        SparkFilterConverter converter = new SparkFilterConverter(table.rowType());
        List<Filter> converted = new ArrayList<>();
        List<Predicate> predicates = new ArrayList<>();
        for (Filter filter : filters) {
            Predicate p = converter.convert(filter);
            if (p != null) {
                converted.add(filter);
                predicates.add(p);
            }
        }
        pushed = converted.toArray(new Filter[0]);
        predicate = predicates.isEmpty() ? null : PredicateBuilder.and(predicates);
        return filters;
    }

    @Override
    public Filter[] pushedFilters() {
        return pushed;
    }

    /**
     * Takes the query's {@code LIMIT}, which Spark pushes only when it tests no filter on the rows
     * read: each task stops after that many rows, and an append table's scan keeps only the
     * partition-buckets whose files hold that many rows. Spark still applies the limit.
     */
    @Override
    public boolean pushLimit(int limit) {
        this.limit = limit;
        return true;
    }

    @Override
    public Scan build() {
        return new LakeStreamBatchScan(
                identifier,
                table,
                options,
                readSchema,
                auditLog,
                ReadFilter.of(table, predicate).beforeMerge(),
                limit);
    }
}
