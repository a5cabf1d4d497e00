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

package io.lakestream.spark;

import io.lakestream.embedded.LakeStreamTable;
import io.lakestream.embedded.LakeStreamWriter;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.types.DataTypes;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * Run by {@link SparkBundleJarITCase} in a JVM whose class path is Spark's jars and the bundle jar
 * alone: writes a lake-stream table with a committed row and an uncommitted one, reads it through
 * the catalog and prints {@code ROW <id>:<name>} for each row.
 */
public final class SparkBundleMain {

    private SparkBundleMain() {}

    public static void main(String[] args) throws Exception {
        String warehouse = args[0];
        Map<String, String> options = new HashMap<>();
        options.put("lake-stream.store", "memory");
        Identifier id = Identifier.create("db", "t");
        try (Catalog catalog =
                CatalogFactory.createCatalog(CatalogContext.create(new Path(warehouse)))) {
            catalog.createDatabase("db", true);
            catalog.createTable(
                    id,
                    Schema.newBuilder()
                            .column("id", DataTypes.INT().notNull())
                            .column("name", DataTypes.STRING())
                            .primaryKey("id")
                            .option("bucket", "1")
                            .build(),
                    false);
            LakeStreamTable.enable(catalog, id, options);
            try (LakeStreamTable table = LakeStreamTable.open(catalog, id, options);
                    LakeStreamWriter writer = table.newWriter("bundle-main")) {
                writer.write(GenericRow.of(1, BinaryString.fromString("committed")));
                writer.commit();
                writer.write(GenericRow.of(2, BinaryString.fromString("uncommitted")));
                SparkSession spark =
                        LocalSpark.start(
                                1,
                                warehouse,
                                Collections.singletonMap("lake-stream.store", "memory"));
                for (Row row : spark.sql("SELECT id, name FROM lake.db.t").collectAsList()) {
                    System.out.println("ROW " + row.getInt(0) + ":" + row.getString(1));
                }
                spark.stop();
            }
        }
    }
}
