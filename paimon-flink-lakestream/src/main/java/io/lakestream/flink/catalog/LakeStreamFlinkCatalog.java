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

import io.lakestream.flink.table.LakeStreamTableFactory;

import org.apache.paimon.flink.FlinkCatalog;
import org.apache.paimon.options.Options;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.factories.Factory;

import java.util.Optional;

/**
 * Paimon's Flink catalog over a {@link LakeStreamPaimonCatalog}, whose table factory gives enabled
 * tables the lake-stream source and sink and every other table Paimon's own.
 */
@Internal
public class LakeStreamFlinkCatalog extends FlinkCatalog {

    public LakeStreamFlinkCatalog(
            LakeStreamPaimonCatalog catalog,
            String name,
            String defaultDatabase,
            ClassLoader classLoader,
            Options options) {
        super(catalog, name, defaultDatabase, classLoader, options);
    }

    @Override
    public Optional<Factory> getFactory() {
        return Optional.of(
                new LakeStreamTableFactory(
                        this,
                        catalog().options(),
                        ((LakeStreamPaimonCatalog) catalog()).enablement().streamTables(),
                        ((LakeStreamPaimonCatalog) catalog())::afterTruncate));
    }
}
