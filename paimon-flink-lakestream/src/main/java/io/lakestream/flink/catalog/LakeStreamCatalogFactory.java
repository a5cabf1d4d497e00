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

package io.lakestream.flink.catalog;

import org.apache.paimon.flink.FlinkCatalogFactory;
import org.apache.paimon.flink.FlinkCatalogOptions;
import org.apache.paimon.options.Options;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.Catalog;

import java.util.Collections;
import java.util.Set;

/**
 * The catalog of type {@code paimon-lakestream}: it takes every option of Paimon's {@code paimon}
 * catalog, serves every Paimon table, view, system table and procedure as Paimon does, and adds
 * lake-stream mode (the {@code lake-stream.*} options: the store and its client options, kept in
 * the catalog and never written into a table).
 */
@Internal
public class LakeStreamCatalogFactory implements org.apache.flink.table.factories.CatalogFactory {

    public static final String IDENTIFIER = "paimon-lakestream";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Collections.emptySet();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        // like Paimon's catalog: every option goes to Paimon, which knows its own
        return Collections.emptySet();
    }

    @Override
    public Catalog createCatalog(Context context) {
        Options options = Options.fromMap(context.getOptions());
        LakeStreamPaimonCatalog catalog =
                new LakeStreamPaimonCatalog(FlinkCatalogFactory.createPaimonCatalog(options));
        return new LakeStreamFlinkCatalog(
                catalog,
                context.getName(),
                options.get(FlinkCatalogOptions.DEFAULT_DATABASE),
                context.getClassLoader(),
                options);
    }
}
