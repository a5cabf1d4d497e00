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

import io.lakestream.LakeStreamOptions;

import org.apache.paimon.annotation.Experimental;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The Paimon table that owns a stream table (invariant "one stream table, one owner"): its location
 * and its creation identity. A store records the owner on the stream table when it creates it and
 * refuses to provision, serve or drop a stream table that records another owner, so that several
 * warehouses or catalogs can share one store without reading, fencing or dropping each other's
 * records when their tables have the same database and table name.
 *
 * <p>Two owners are the same Paimon table when both the location and the creation identity are
 * equal. The location alone would let a table dropped and created again at the same place take over
 * the records of its predecessor; the creation identity alone would let a copy of a warehouse take
 * over the stream tables of the original.
 */
@Experimental
public final class StreamTableOwner implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The key under which stores that keep string properties record {@link #location()}. */
    public static final String LOCATION_PROPERTY = LakeStreamOptions.PREFIX + "owner.location";

    /** The key under which stores that keep string properties record {@link #creationId()}. */
    public static final String CREATION_ID_PROPERTY =
            LakeStreamOptions.PREFIX + "owner.creation-id";

    private final String location;
    private final String creationId;

    public StreamTableOwner(String location, String creationId) {
        this.location = Objects.requireNonNull(location, "location");
        this.creationId = Objects.requireNonNull(creationId, "creationId");
    }

    /**
     * The owner that {@code table} is: its location, and as creation identity the uuid its catalog
     * keeps for it when the catalog keeps one (a REST catalog), else the creation time of its first
     * schema. Paimon's own {@code Table.uuid()} falls back to the table name and the modification
     * time of the first schema file, which a copy of the warehouse changes; the creation time
     * written inside the schema survives copies, and the table name is not part of the identity
     * because the location already is.
     */
    public static StreamTableOwner of(FileStoreTable table) {
        String location = table.location().toString();
        String uuid = table.catalogEnvironment().uuid();
        if (uuid != null) {
            return new StreamTableOwner(location, "uuid " + uuid);
        }
        SchemaManager schemas = table.schemaManager();
        List<Long> ids = schemas.listAllIds();
        long first = ids.stream().mapToLong(Long::longValue).min().orElse(table.schema().id());
        long createdAt =
                first == table.schema().id()
                        ? table.schema().timeMillis()
                        : schemas.schema(first).timeMillis();
        return new StreamTableOwner(location, "schema " + first + " created at " + createdAt);
    }

    /** Where the Paimon table is, as its catalog names it. */
    public String location() {
        return location;
    }

    /** What tells this Paimon table from another one created at the same location. */
    public String creationId() {
        return creationId;
    }

    /** The owner as string properties, under {@link #LOCATION_PROPERTY} and friends. */
    public Map<String, String> toProperties() {
        Map<String, String> properties = new HashMap<>();
        properties.put(LOCATION_PROPERTY, location);
        properties.put(CREATION_ID_PROPERTY, creationId);
        return properties;
    }

    /**
     * The owner recorded in {@code properties}, or null when they record none (a stream table
     * created before owners were recorded).
     *
     * @throws StreamStoreException when only part of an owner is recorded, naming {@code what}
     */
    @Nullable
    public static StreamTableOwner fromProperties(Map<String, String> properties, String what) {
        String location = properties.get(LOCATION_PROPERTY);
        String creationId = properties.get(CREATION_ID_PROPERTY);
        if (location == null && creationId == null) {
            return null;
        }
        if (location == null || creationId == null) {
            throw new StreamStoreException(
                    String.format(
                            "%s records an incomplete owner ('%s' = %s, '%s' = %s), so it is not "
                                    + "known which Paimon table it belongs to.",
                            what, LOCATION_PROPERTY, location, CREATION_ID_PROPERTY, creationId));
        }
        return new StreamTableOwner(location, creationId);
    }

    /** How an existing stream table relates to the Paimon table that wants to use it. */
    @Experimental
    public enum Claim {
        /** It records the same owner, or neither side knows one: the table's own stream table. */
        OWN,
        /**
         * It records no owner but the Paimon table has one: a stream table created before owners
         * were recorded, which provisioning adopts and nothing drops.
         */
        UNCLAIMED,
        /** It records another owner, or one while the Paimon table has none: never touched. */
        FOREIGN
    }

    /** How a stream table that records {@code recorded} relates to a table owned by {@code own}. */
    public static Claim claim(@Nullable StreamTableOwner own, @Nullable StreamTableOwner recorded) {
        if (recorded == null) {
            return own == null ? Claim.OWN : Claim.UNCLAIMED;
        }
        return recorded.equals(own) ? Claim.OWN : Claim.FOREIGN;
    }

    /**
     * Provisioning's ownership rule, for a stream table (or one of its logs) whose properties a
     * store keeps: returns at once when it belongs to {@code own}; adopts it when it records no
     * owner, by recording {@code own} and reading the owner back (of two Paimon tables that adopt
     * it at the same time, the one recorded last owns it, and the other is refused); refuses it
     * when it belongs to another table. A store supplies the primitives, this method the rule.
     *
     * @param recorded reads the owner the stream table records now
     * @param record records the given owner properties on the stream table
     * @param foreign the store's error of a stream table that belongs to the given other owner
     * @return whether the stream table was adopted, for the store to log
     */
    public static boolean claimOrRefuse(
            @Nullable StreamTableOwner own,
            Supplier<StreamTableOwner> recorded,
            Consumer<Map<String, String>> record,
            Function<StreamTableOwner, StreamStoreException> foreign) {
        StreamTableOwner before = recorded.get();
        switch (claim(own, before)) {
            case OWN:
                return false;
            case FOREIGN:
                throw foreign.apply(before);
            default:
                break;
        }
        record.accept(own.toProperties());
        StreamTableOwner now = recorded.get();
        if (!own.equals(now)) {
            // another Paimon table adopted it at the same time, and its owner was recorded last
            throw foreign.apply(now);
        }
        return true;
    }

    /**
     * The error of a {@link Claim#FOREIGN} stream table: it names both owners and the way out.
     *
     * @param storeTable the stream table's name in the store, with where the store is
     * @param paimonTable the Paimon table that wanted to use it
     * @param wayOut what the user can do, in the store's terms
     */
    public static StreamStoreException foreign(
            String storeTable,
            String paimonTable,
            @Nullable StreamTableOwner own,
            @Nullable StreamTableOwner recorded,
            String wayOut) {
        return new StreamStoreException(
                String.format(
                        "The stream table %s belongs to %s, not to Paimon table %s%s, so it was "
                                + "left untouched. %s",
                        storeTable,
                        recorded == null ? "no recorded Paimon table" : recorded.describe(),
                        paimonTable,
                        own == null
                                ? " (whose location is not known)"
                                : " at " + own.location() + " (" + own.creationId() + ")",
                        wayOut));
    }

    /** For messages: {@code the Paimon table at <location> (<creation id>)}. */
    public String describe() {
        return "the Paimon table at " + location + " (" + creationId + ")";
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof StreamTableOwner)) {
            return false;
        }
        StreamTableOwner that = (StreamTableOwner) o;
        return location.equals(that.location) && creationId.equals(that.creationId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(location, creationId);
    }

    @Override
    public String toString() {
        return describe();
    }
}
