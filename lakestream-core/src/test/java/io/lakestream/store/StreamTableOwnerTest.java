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

package io.lakestream.store;

import io.lakestream.store.StreamTableOwner.Claim;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Tests for {@link StreamTableOwner}, with tables of real Paimon warehouses. */
class StreamTableOwnerTest {

    private static final Identifier ORDERS = Identifier.create("db", "orders");

    private static final StreamTableOwner FIRST =
            new StreamTableOwner("file:/w1/db.db/orders", "a");

    @TempDir Path first;
    @TempDir Path second;

    @Test
    void aStreamTableIsOwnOnlyWhenLocationAndCreationIdentityAreBothTheSame() {
        assertThat(StreamTableOwner.claim(FIRST, new StreamTableOwner(FIRST.location(), "a")))
                .isEqualTo(Claim.OWN);
        assertThat(
                        StreamTableOwner.claim(
                                FIRST, new StreamTableOwner("file:/w2/db.db/orders", "a")))
                .as("a copy of the warehouse elsewhere")
                .isEqualTo(Claim.FOREIGN);
        assertThat(StreamTableOwner.claim(FIRST, new StreamTableOwner(FIRST.location(), "b")))
                .as("a table created again at the same location")
                .isEqualTo(Claim.FOREIGN);
    }

    @Test
    void aStreamTableWithoutRecordedOwnerIsUnclaimedAndASpecWithoutOwnerGetsOnlySuchTables() {
        assertThat(StreamTableOwner.claim(FIRST, null)).isEqualTo(Claim.UNCLAIMED);
        assertThat(StreamTableOwner.claim(null, null)).isEqualTo(Claim.OWN);
        assertThat(StreamTableOwner.claim(null, FIRST)).isEqualTo(Claim.FOREIGN);
    }

    @Test
    void theOwnerTravelsAsStringProperties() {
        Map<String, String> properties = new HashMap<>(FIRST.toProperties());
        properties.put("unrelated", "x");

        assertThat(StreamTableOwner.fromProperties(properties, "table t")).isEqualTo(FIRST);
        assertThat(StreamTableOwner.fromProperties(Map.of("unrelated", "x"), "table t")).isNull();
        assertThat(properties)
                .containsEntry("lake-stream.owner.location", "file:/w1/db.db/orders")
                .containsEntry("lake-stream.owner.creation-id", "a");
    }

    @Test
    void aHalfRecordedOwnerIsAnError() {
        Map<String, String> properties =
                Map.of(StreamTableOwner.LOCATION_PROPERTY, FIRST.location());

        assertThatThrownBy(() -> StreamTableOwner.fromProperties(properties, "Fluss table db.t"))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("Fluss table db.t")
                .hasMessageContaining("'lake-stream.owner.creation-id' = null");
    }

    @Test
    void theErrorOfAForeignStreamTableNamesBothOwnersAndTheWayOut() {
        StreamTableOwner other = new StreamTableOwner("file:/w2/db.db/orders", "b");

        assertThat(
                        StreamTableOwner.foreign(
                                        "db.orders at fluss:9123",
                                        "db.orders",
                                        other,
                                        FIRST,
                                        "Use another prefix.")
                                .getMessage())
                .contains("db.orders at fluss:9123")
                .contains("the Paimon table at file:/w1/db.db/orders (a)")
                .contains("not to Paimon table db.orders at file:/w2/db.db/orders (b)")
                .contains("Use another prefix.");
    }

    @Test
    void tablesOfTheSameNameInTwoWarehousesHaveDifferentOwners() throws Exception {
        FileStoreTable inFirst = createOrders(catalog(first));
        FileStoreTable inSecond = createOrders(catalog(second));

        StreamTableOwner firstOwner = StreamTableOwner.of(inFirst);
        StreamTableOwner secondOwner = StreamTableOwner.of(inSecond);

        assertThat(firstOwner.location()).contains(first.getFileName().toString());
        assertThat(secondOwner.location()).contains(second.getFileName().toString());
        assertThat(StreamTableOwner.claim(secondOwner, firstOwner)).isEqualTo(Claim.FOREIGN);
        assertThat(StreamTableSpec.of(ORDERS, inFirst).owner()).contains(firstOwner);
        assertThat(StreamTableSpec.of(ORDERS, inFirst))
                .isNotEqualTo(StreamTableSpec.of(ORDERS, inSecond));
    }

    @Test
    void aTableKeepsItsOwnerAcrossLoadsOptionsAndSchemaChanges() throws Exception {
        Catalog catalog = catalog(first);
        StreamTableOwner created = StreamTableOwner.of(createOrders(catalog));

        catalog.alterTable(
                ORDERS,
                org.apache.paimon.schema.SchemaChange.addColumn("note", DataTypes.STRING()),
                false);
        FileStoreTable loaded = (FileStoreTable) catalog(first).getTable(ORDERS);

        assertThat(loaded.schema().id()).isEqualTo(1);
        assertThat(StreamTableOwner.of(loaded)).isEqualTo(created);
        assertThat(StreamTableOwner.of(loaded.copy(Map.of("lake-stream.enabled", "true"))))
                .isEqualTo(created);
    }

    @Test
    void aTableCreatedAgainAtTheSameLocationHasAnotherOwner() throws Exception {
        Catalog catalog = catalog(first);
        FileStoreTable dropped = createOrders(catalog);
        StreamTableOwner before = StreamTableOwner.of(dropped);
        catalog.dropTable(ORDERS, false);
        // the creation identity has millisecond resolution: create the next one in a later one
        long createdAt = dropped.schema().timeMillis();
        while (System.currentTimeMillis() <= createdAt) {
            Thread.onSpinWait();
        }

        StreamTableOwner after = StreamTableOwner.of(createOrders(catalog));

        assertThat(after.location()).isEqualTo(before.location());
        assertThat(StreamTableOwner.claim(after, before)).isEqualTo(Claim.FOREIGN);
    }

    private static Catalog catalog(Path warehouse) {
        Options options = new Options();
        options.set("warehouse", warehouse.toUri().toString());
        return CatalogFactory.createCatalog(CatalogContext.create(options));
    }

    private static FileStoreTable createOrders(Catalog catalog) throws Exception {
        catalog.createDatabase("db", true);
        catalog.createTable(
                ORDERS,
                Schema.newBuilder()
                        .column("id", DataTypes.INT().notNull())
                        .column("amount", DataTypes.BIGINT())
                        .primaryKey("id")
                        .option("bucket", "2")
                        .build(),
                false);
        return (FileStoreTable) catalog.getTable(ORDERS);
    }

    @Test
    void claimingAdoptsAnUnclaimedTableAndRefusesOneAnotherAdoptedAtTheSameTime() {
        StreamTableOwner other = new StreamTableOwner("file:/w2/db.db/orders", "b");
        // its own: nothing recorded
        Map<String, String> recorded = new HashMap<>(FIRST.toProperties());
        assertThat(claimWithRecorded(FIRST, recorded, null)).isFalse();
        assertThat(recorded).isEqualTo(FIRST.toProperties());

        // unclaimed: adopted, the owner recorded and read back
        recorded.clear();
        assertThat(claimWithRecorded(FIRST, recorded, null)).isTrue();
        assertThat(recorded).isEqualTo(FIRST.toProperties());

        // unclaimed, but another table's owner was recorded last: refused, naming it
        recorded.clear();
        assertThatThrownBy(() -> claimWithRecorded(FIRST, recorded, other))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining(other.location());

        // another's: refused without recording anything
        Map<String, String> foreign = new HashMap<>(other.toProperties());
        assertThatThrownBy(() -> claimWithRecorded(FIRST, foreign, null))
                .isInstanceOf(StreamStoreException.class);
        assertThat(foreign).isEqualTo(other.toProperties());
    }

    /**
     * Claims a table whose properties are {@code properties}; {@code racing}, when given, is
     * recorded right after this claim's own owner, as a concurrent adopter would.
     */
    private static boolean claimWithRecorded(
            StreamTableOwner own, Map<String, String> properties, StreamTableOwner racing) {
        return StreamTableOwner.claimOrRefuse(
                own,
                () -> StreamTableOwner.fromProperties(properties, "the test table"),
                ownProperties -> {
                    properties.putAll(ownProperties);
                    if (racing != null) {
                        properties.putAll(racing.toProperties());
                    }
                },
                recorded -> new StreamStoreException("owned by " + recorded.location()));
    }
}
