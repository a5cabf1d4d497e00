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

package io.lakestream.offsets;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.core.JsonGenerator;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.core.util.DefaultIndenter;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.core.util.DefaultPrettyPrinter.Indenter;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.utils.JsonSerdeUtil;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The offsets file format of Paimon C++'s real-time store (PIP-46), so that a snapshot's offsets
 * map is one format for both designs:
 *
 * <pre>{@code
 * {
 *     "version": 1,
 *     "offsets": [
 *         {
 *             "partition": {
 *                 "dt": "2026-12-05"
 *             },
 *             "bucket": 0,
 *             "offset": 1234
 *         }
 *     ]
 * }
 * }</pre>
 *
 * <p>One entry per partition-bucket; {@code partition} holds the partition's values by key as
 * strings, logical and unescaped ({@code {}} for an unpartitioned table); {@code offset} is the
 * exclusive end of what the snapshot committed. Entries are written in Paimon C++'s order
 * (partition maps compared key by key, then value by value, then the bucket), pretty-printed with
 * four spaces as Paimon C++ writes them or compact. Reading refuses what Paimon C++'s reader
 * refuses: an unknown version, a missing key, a value of the wrong JSON type, a negative bucket or
 * offset, and a partition-bucket given twice; every refusal says which.
 *
 * <p>The JSON is parsed and generated with Paimon's own Jackson; only the pretty printer is tuned
 * (four-space indents, {@code ": "}, {@code {}} and {@code []} when empty), so that the bytes equal
 * Paimon C++'s.
 */
public final class RealtimeOffsetsJson {

    public static final int VERSION = 1;

    private static final JsonFactory FACTORY = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.getFactory();

    /** Paimon C++'s order of partition-buckets: the sorted partition maps, then the bucket. */
    static final Comparator<Entry> ORDER =
            ((Comparator<Entry>) (a, b) -> comparePartitions(a.partition, b.partition))
                    .thenComparingInt(Entry::bucket);

    private RealtimeOffsetsJson() {}

    /** One partition-bucket and the exclusive end offset of what a snapshot committed of it. */
    public static final class Entry {

        private final Map<String, String> partition;
        private final int bucket;
        private final long offset;

        public Entry(Map<String, String> partition, int bucket, long offset) {
            this.partition = Collections.unmodifiableMap(new TreeMap<>(partition));
            this.bucket = bucket;
            this.offset = offset;
        }

        /** The partition's values by key, logical and unescaped; empty when unpartitioned. */
        public Map<String, String> partition() {
            return partition;
        }

        public int bucket() {
            return bucket;
        }

        /** The exclusive end offset. */
        public long offset() {
            return offset;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Entry)) {
                return false;
            }
            Entry that = (Entry) o;
            return bucket == that.bucket
                    && offset == that.offset
                    && partition.equals(that.partition);
        }

        @Override
        public int hashCode() {
            return Objects.hash(partition, bucket, offset);
        }

        @Override
        public String toString() {
            return partition + "/" + bucket + "=" + offset;
        }
    }

    /**
     * The file content of {@code entries} as Paimon C++ writes it, pretty-printed, refusing
     * negative values and repeated buckets.
     */
    public static String write(Collection<Entry> entries) {
        return write(entries, true);
    }

    /**
     * The file content of {@code entries}, pretty-printed as Paimon C++ writes it or compact (the
     * same JSON without white space, which any JSON reader, Paimon C++'s too, reads alike: a
     * quarter of the bytes, for maps of thousands of partition-buckets written at every commit).
     */
    public static String write(Collection<Entry> entries, boolean pretty) {
        List<Entry> sorted = new ArrayList<>(entries);
        sorted.sort(ORDER);
        for (int i = 0; i < sorted.size(); i++) {
            Entry entry = sorted.get(i);
            check(entry.bucket >= 0, "invalid bucket %s", entry.bucket);
            check(entry.offset >= 0, "invalid offset %s", entry.offset);
            check(
                    i == 0 || ORDER.compare(sorted.get(i - 1), entry) != 0,
                    "duplicate partition-bucket %s",
                    entry.bucket);
        }
        StringWriter out = new StringWriter();
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            if (pretty) {
                json.setPrettyPrinter(new CppPrettyPrinter());
            }
            json.writeStartObject();
            json.writeNumberField("version", VERSION);
            json.writeArrayFieldStart("offsets");
            for (Entry entry : sorted) {
                json.writeStartObject();
                json.writeObjectFieldStart("partition");
                for (Map.Entry<String, String> value : entry.partition.entrySet()) {
                    json.writeStringField(value.getKey(), value.getValue());
                }
                json.writeEndObject();
                json.writeNumberField("bucket", entry.bucket);
                json.writeNumberField("offset", entry.offset);
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    /** The entries of a file's content, in the file's order. */
    public static List<Entry> read(String content) {
        JsonNode root;
        try {
            root = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(content);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "Offsets JSON: deserialize failed: " + e.getOriginalMessage(), e);
        }
        check(root != null && root.isObject(), "value must be an object");
        JsonNode version = field(root, "version");
        check(version.isInt(), "'version' value must be int");
        check(version.intValue() == VERSION, "unsupported offsets version %s", version.intValue());
        JsonNode offsets = field(root, "offsets");
        check(offsets.isArray(), "'offsets' value must be an array");
        List<Entry> entries = new ArrayList<>(offsets.size());
        Set<Entry> keys = new HashSet<>();
        for (JsonNode node : offsets) {
            check(node.isObject(), "an offsets entry must be an object");
            JsonNode partitionNode = field(node, "partition");
            check(partitionNode.isObject(), "'partition' value must be an object");
            Map<String, String> partition = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = partitionNode.fields();
                    it.hasNext(); ) {
                Map.Entry<String, JsonNode> value = it.next();
                check(
                        value.getValue().isTextual(),
                        "partition value of '%s' must be string",
                        value.getKey());
                partition.put(value.getKey(), value.getValue().textValue());
            }
            JsonNode bucket = field(node, "bucket");
            check(bucket.isInt(), "'bucket' value must be int");
            JsonNode offset = field(node, "offset");
            check(
                    offset.isIntegralNumber() && offset.canConvertToLong(),
                    "'offset' value must be int64");
            check(bucket.intValue() >= 0, "invalid bucket %s", bucket.intValue());
            check(offset.longValue() >= 0, "invalid offset %s", offset.longValue());
            Entry entry = new Entry(partition, bucket.intValue(), offset.longValue());
            check(
                    keys.add(new Entry(partition, entry.bucket, 0)),
                    "duplicate partition-bucket %s of partition %s",
                    entry.bucket,
                    partition);
            entries.add(entry);
        }
        return entries;
    }

    private static JsonNode field(JsonNode node, String key) {
        JsonNode value = node.get(key);
        check(value != null, "key '%s' must exist", key);
        return value;
    }

    private static void check(boolean condition, String message, Object... args) {
        if (!condition) {
            throw new IllegalArgumentException("Offsets JSON: " + String.format(message, args));
        }
    }

    /** Compares two sorted maps as C++ compares {@code std::map<std::string, std::string>}. */
    private static int comparePartitions(Map<String, String> a, Map<String, String> b) {
        Iterator<Map.Entry<String, String>> left = a.entrySet().iterator();
        Iterator<Map.Entry<String, String>> right = b.entrySet().iterator();
        while (left.hasNext() && right.hasNext()) {
            Map.Entry<String, String> l = left.next();
            Map.Entry<String, String> r = right.next();
            int keys = compareBytes(l.getKey(), r.getKey());
            if (keys != 0) {
                return keys;
            }
            int values = compareBytes(l.getValue(), r.getValue());
            if (values != 0) {
                return values;
            }
        }
        return Boolean.compare(left.hasNext(), right.hasNext());
    }

    /**
     * Compares as C++'s {@code std::string} does, by unsigned UTF-8 bytes; Java's {@code
     * String#compareTo} compares UTF-16 units, which orders some characters differently.
     */
    private static int compareBytes(String a, String b) {
        return Arrays.compareUnsigned(
                a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /** Jackson's pretty printer, set to the bytes Paimon C++ writes. */
    private static final class CppPrettyPrinter extends DefaultPrettyPrinter {

        private static final long serialVersionUID = 1L;

        CppPrettyPrinter() {
            DefaultIndenter indenter = new DefaultIndenter("    ", "\n");
            indentObjectsWith(indenter);
            indentArraysWith(indenter);
        }

        @Override
        public DefaultPrettyPrinter createInstance() {
            return new CppPrettyPrinter();
        }

        @Override
        public void writeObjectFieldValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(": ");
        }

        @Override
        public void writeEndObject(JsonGenerator g, int nrOfEntries) throws IOException {
            writeEnd(g, _objectIndenter, nrOfEntries, '}');
        }

        @Override
        public void writeEndArray(JsonGenerator g, int nrOfValues) throws IOException {
            writeEnd(g, _arrayIndenter, nrOfValues, ']');
        }

        /** Jackson's end of an object or array, without the space it puts into an empty one. */
        private void writeEnd(JsonGenerator g, Indenter indenter, int entries, char end)
                throws IOException {
            if (!indenter.isInline()) {
                --_nesting;
            }
            if (entries > 0) {
                indenter.writeIndentation(g, _nesting);
            }
            g.writeRaw(end);
        }
    }
}
