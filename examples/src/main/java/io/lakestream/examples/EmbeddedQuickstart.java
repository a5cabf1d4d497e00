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

package io.lakestream.examples;

import io.lakestream.embedded.LakeStreamScan;
import io.lakestream.embedded.LakeStreamTable;
import io.lakestream.embedded.LakeStreamWriter;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Lake-stream mode from plain Java, without Flink: a primary-key Paimon table written through the
 * embedded API on the process-local {@code memory} store. Each change is readable by a scan of the
 * same process as soon as it is written; a commit then makes it part of a Paimon snapshot, whose
 * own read returns exactly what the scan returned before.
 *
 * <p>Run it from the repository root with {@code mvn -B -q install -DskipTests && mvn -B -q -pl
 * examples exec:exec -Dquickstart=io.lakestream.examples.EmbeddedQuickstart}. It needs nothing but
 * a JDK; its warehouse lives in a temporary directory deleted at the end.
 */
public final class EmbeddedQuickstart {

    private static final Identifier PRICES = Identifier.create("shop", "prices");

    private EmbeddedQuickstart() {}

    public static void main(String[] args) throws Exception {
        run(System.out);
    }

    /**
     * Runs the tour, printing to {@code out}.
     *
     * @return the rows Paimon's own read returns at the end, as {@code item=price}
     */
    public static List<String> run(PrintStream out) throws Exception {
        Path warehouse = Files.createTempDirectory("lakestream-embedded-");
        try (Catalog catalog =
                CatalogFactory.createCatalog(
                        CatalogContext.create(
                                new org.apache.paimon.fs.Path(warehouse.toUri().toString())))) {
            catalog.createDatabase(PRICES.getDatabaseName(), true);
            catalog.createTable(
                    PRICES,
                    Schema.newBuilder()
                            .column("item", DataTypes.STRING().notNull())
                            .column("price", DataTypes.INT())
                            .primaryKey("item")
                            .option("bucket", "2")
                            .build(),
                    false);
            Map<String, String> options = Collections.singletonMap("lake-stream.store", "memory");
            LakeStreamTable.enable(catalog, PRICES, options);
            out.println("Created " + PRICES + " and turned lake-stream mode on (store: memory).");

            try (LakeStreamTable table = LakeStreamTable.open(catalog, PRICES, options);
                    LakeStreamWriter writer = table.newWriter("embedded-quickstart")) {
                writer.write(price("apple", 3));
                writer.write(price("pear", 4));
                long snapshot = writer.commit();
                out.println("Committed apple=3, pear=4 in snapshot " + snapshot + ".");

                writer.write(withKind(RowKind.UPDATE_BEFORE, price("apple", 3)));
                writer.write(withKind(RowKind.UPDATE_AFTER, price("apple", 5)));
                writer.write(withKind(RowKind.DELETE, price("pear", 4)));
                writer.write(price("plum", 7));
                LakeStreamScan.Plan plan = table.newScan().plan();
                out.println(
                        "Wrote apple=5, deleted pear, wrote plum=7; not committed. The scan reads "
                                + "snapshot "
                                + plan.snapshotId()
                                + " plus the store's records "
                                + plan.storeStartOffsets()
                                + " to "
                                + plan.storeEndOffsets()
                                + ":");
                out.println("  lake-stream scan: " + strings(table.newScan().read(plan)));
                out.println("  Paimon alone:     " + paimonRead(catalog));

                snapshot = writer.commit();
                List<String> committed = paimonRead(catalog);
                out.println("Committed snapshot " + snapshot + ". Paimon alone: " + committed);
                return committed;
            }
        } finally {
            TemporaryDirectories.delete(warehouse);
        }
    }

    private static List<String> paimonRead(Catalog catalog) throws Exception {
        Table table = catalog.getTable(PRICES);
        ReadBuilder readBuilder = table.newReadBuilder();
        List<String> rows = new ArrayList<>();
        try (RecordReader<InternalRow> reader =
                readBuilder.newRead().createReader(readBuilder.newScan().plan())) {
            // the reader reuses its row objects: each is read as it comes
            reader.forEachRemaining(row -> rows.add(string(row)));
        }
        Collections.sort(rows);
        return rows;
    }

    private static List<String> strings(List<InternalRow> rows) {
        List<String> strings = new ArrayList<>();
        for (InternalRow row : rows) {
            strings.add(string(row));
        }
        Collections.sort(strings);
        return strings;
    }

    private static String string(InternalRow row) {
        return row.getString(0) + "=" + row.getInt(1);
    }

    private static GenericRow price(String item, int price) {
        return GenericRow.of(BinaryString.fromString(item), price);
    }

    private static GenericRow withKind(RowKind kind, GenericRow row) {
        row.setRowKind(kind);
        return row;
    }
}
