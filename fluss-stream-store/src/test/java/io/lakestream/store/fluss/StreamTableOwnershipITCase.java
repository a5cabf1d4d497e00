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

package io.lakestream.store.fluss;

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.FenceLog;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamStoreLoader;
import io.lakestream.store.StreamTable;
import io.lakestream.store.StreamTableOwner;
import io.lakestream.store.StreamTableSpec;
import io.lakestream.store.fluss.testutils.SharedFlussCluster;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import org.apache.fluss.client.Connection;
import org.apache.fluss.client.ConnectionFactory;
import org.apache.fluss.client.admin.Admin;
import org.apache.fluss.config.ConfigOptions;
import org.apache.fluss.config.Configuration;
import org.apache.fluss.metadata.TablePath;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Invariant "one stream table, one owner" on the Fluss store alone: the owner recorded on the
 * stream table and its logs, the refusals for another owner, stream tables that record none, and
 * the database prefix.
 */
@ExtendWith(SharedFlussCluster.class)
class StreamTableOwnershipITCase {

    private static final String DATABASE = "ownership_it";

    private static final StreamTableOwner FIRST =
            new StreamTableOwner("file:/first/ownership_it.db/t", "schema 0 created at 1");
    private static final StreamTableOwner SECOND =
            new StreamTableOwner("file:/second/ownership_it.db/t", "schema 0 created at 2");

    private static StreamStore store;
    private static Connection connection;
    private static Admin admin;

    @BeforeAll
    static void open() {
        store = SharedFlussCluster.newStore();
        Configuration conf = new Configuration();
        conf.set(
                ConfigOptions.BOOTSTRAP_SERVERS,
                Collections.singletonList(SharedFlussCluster.bootstrapServers()));
        connection = ConnectionFactory.createConnection(conf);
        admin = connection.getAdmin();
    }

    @AfterAll
    static void close() throws Exception {
        store.close();
        admin.close();
        connection.close();
    }

    private static StreamTableSpec spec(String table, StreamTableOwner owner) {
        return new StreamTableSpec(
                Identifier.create(DATABASE, table),
                RowType.of(DataTypes.INT().notNull(), DataTypes.STRING()),
                Collections.emptyList(),
                Collections.singletonList("f0"),
                Collections.emptyList(),
                2,
                owner);
    }

    private static Map<String, String> recorded(TablePath path) throws Exception {
        return admin.getTableInfo(path).get().getCustomProperties().toMap();
    }

    private static boolean exists(TablePath path) throws Exception {
        return admin.tableExists(path).get();
    }

    private static TablePath[] pathsOf(String table) {
        TablePath stream = TablePath.of(DATABASE, table);
        return new TablePath[] {
            stream,
            FlussFenceLog.fenceTablePath(stream),
            FlussWriterLeaseLog.writerTablePath(stream)
        };
    }

    @Test
    void theStreamTableAndItsLogsRecordTheirOwnerAndServeOnlyIt() throws Exception {
        StreamTable table = store.provision(spec("owned", FIRST));

        for (TablePath path : pathsOf("owned")) {
            assertThat(recorded(path))
                    .as("owner of %s", path)
                    .containsAllEntriesOf(FIRST.toProperties());
        }
        assertThat(store.provision(spec("owned", FIRST))).isEqualTo(table);
        assertThat(store.get(spec("owned", FIRST))).isEqualTo(table);

        for (StreamTableSpec other : Arrays.asList(spec("owned", SECOND), spec("owned", null))) {
            assertThatThrownBy(() -> store.provision(other))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("ownership_it.owned")
                    .hasMessageContaining(FIRST.location())
                    .hasMessageContaining(LakeStreamOptions.STORE_DATABASE_PREFIX.key());
            assertThatThrownBy(() -> store.get(other))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining(FIRST.location());
        }
        assertThatThrownBy(() -> store.get(spec("owned", SECOND)))
                .hasMessageContaining(SECOND.location());

        // a handle taken for another owner is refused by the writer, reader and logs alike
        StreamTable stolen =
                new StreamTable(
                        spec("owned", SECOND), table.storeTableName(), table.storeTableId());
        assertThatThrownBy(() -> store.createReader(stolen)).hasMessageContaining(FIRST.location());
        assertThatThrownBy(() -> store.createWriter(stolen)).hasMessageContaining(FIRST.location());
        assertThatThrownBy(() -> store.openFenceLog(stolen)).hasMessageContaining(FIRST.location());
        assertThatThrownBy(() -> store.openWriterLeaseLog(stolen))
                .hasMessageContaining(FIRST.location());
    }

    @Test
    void aDropForAnotherOwnerDropsNothingAndSaysSo() throws Exception {
        store.provision(spec("not_yours", FIRST));
        Identifier identifier = Identifier.create(DATABASE, "not_yours");

        assertThatThrownBy(() -> store.drop(identifier, SECOND))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("left untouched")
                .hasMessageContaining(FIRST.location())
                .hasMessageContaining(SECOND.location());
        assertThatThrownBy(() -> store.drop(identifier, null))
                .isInstanceOf(StreamStoreException.class);
        for (TablePath path : pathsOf("not_yours")) {
            assertThat(exists(path)).as("%s kept", path).isTrue();
        }

        assertThat(store.drop(identifier, FIRST)).isTrue();
        for (TablePath path : pathsOf("not_yours")) {
            assertThat(exists(path)).as("%s dropped", path).isFalse();
        }
    }

    /**
     * A stream table created before owners were recorded: served to its table, never dropped, and
     * adopted by the first provisioning, after which it is that table's alone.
     */
    @Test
    void aStreamTableWithoutOwnerIsServedKeptAndAdoptedByProvisioning() throws Exception {
        StreamTable old = store.provision(spec("before_owners", null));
        for (TablePath path : pathsOf("before_owners")) {
            assertThat(recorded(path)).doesNotContainKeys(StreamTableOwner.LOCATION_PROPERTY);
        }
        Identifier identifier = Identifier.create(DATABASE, "before_owners");

        assertThat(store.get(spec("before_owners", FIRST)).storeTableId())
                .isEqualTo(old.storeTableId());
        assertThatThrownBy(() -> store.drop(identifier, FIRST))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("records no Paimon table that owns it")
                .hasMessageContaining("was not dropped");
        assertThat(exists(pathsOf("before_owners")[0])).isTrue();

        StreamTable adopted = store.provision(spec("before_owners", FIRST));

        assertThat(adopted.storeTableId()).as("the same table, kept").isEqualTo(old.storeTableId());
        for (TablePath path : pathsOf("before_owners")) {
            assertThat(recorded(path))
                    .as("owner of %s", path)
                    .containsAllEntriesOf(FIRST.toProperties());
        }
        try (FenceLog fences = store.openFenceLog(adopted)) {
            assertThat(fences.readNew()).isEmpty();
        }
        assertThatThrownBy(() -> store.provision(spec("before_owners", SECOND)))
                .hasMessageContaining(FIRST.location());
        assertThatThrownBy(() -> store.get(spec("before_owners", null)))
                .hasMessageContaining(FIRST.location());
        assertThat(store.drop(identifier, FIRST)).isTrue();
    }

    @Test
    void aStreamTableWithoutOwnerThatDoesNotFitIsNotAdopted() throws Exception {
        store.provision(spec("other_shape", null));
        StreamTableSpec threeBuckets =
                new StreamTableSpec(
                        Identifier.create(DATABASE, "other_shape"),
                        RowType.of(DataTypes.INT().notNull(), DataTypes.STRING()),
                        Collections.emptyList(),
                        Collections.singletonList("f0"),
                        Collections.emptyList(),
                        3,
                        FIRST);

        assertThatThrownBy(() -> store.provision(threeBuckets))
                .isInstanceOf(StreamStoreException.class)
                .hasMessageContaining("bucket count is 2 but should be 3");
        for (TablePath path : pathsOf("other_shape")) {
            assertThat(recorded(path)).doesNotContainKeys(StreamTableOwner.LOCATION_PROPERTY);
        }
    }

    @Test
    void theDatabasePrefixNamesEveryTableOfTheStore() throws Exception {
        Map<String, String> options = SharedFlussCluster.lakeStreamOptions();
        options.put(LakeStreamOptions.STORE_DATABASE_PREFIX.key(), "dev_");
        try (StreamStore dev = StreamStoreLoader.create(options, getClass().getClassLoader())) {
            StreamTable table = dev.provision(spec("prefixed", SECOND));
            // the same name without prefix is another stream table, of another owner
            StreamTable unprefixed = store.provision(spec("prefixed", FIRST));

            assertThat(table.storeTableName()).isEqualTo("dev_ownership_it.prefixed");
            assertThat(table.storeTableId()).isNotEqualTo(unprefixed.storeTableId());
            for (TablePath path : pathsOf("prefixed")) {
                TablePath prefixed =
                        TablePath.of("dev_" + path.getDatabaseName(), path.getTableName());
                assertThat(recorded(prefixed)).containsAllEntriesOf(SECOND.toProperties());
            }
            assertThatThrownBy(() -> dev.get(spec("prefixed", FIRST)))
                    .hasMessageContaining("dev_ownership_it.prefixed")
                    .hasMessageContaining("this one has 'dev_'");

            assertThat(dev.drop(Identifier.create(DATABASE, "prefixed"), SECOND)).isTrue();
            assertThat(exists(TablePath.of("dev_" + DATABASE, "prefixed"))).isFalse();
            assertThat(store.get(spec("prefixed", FIRST))).isEqualTo(unprefixed);
        }
    }

    @Test
    void aPrefixThatCannotStartAFlussDatabaseNameIsRefusedNamingTheOption() {
        for (String prefix : Arrays.asList("prod.", "__internal", "dev db")) {
            Map<String, String> options = SharedFlussCluster.lakeStreamOptions();
            options.put(LakeStreamOptions.STORE_DATABASE_PREFIX.key(), prefix);
            assertThatThrownBy(() -> StreamStoreLoader.create(options, getClass().getClassLoader()))
                    .isInstanceOf(StreamStoreException.class)
                    .hasMessageContaining("'lake-stream.store.database-prefix' = '" + prefix + "'");
        }
    }
}
