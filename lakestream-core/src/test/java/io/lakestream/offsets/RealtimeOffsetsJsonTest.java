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

import io.lakestream.offsets.RealtimeOffsetsJson.Entry;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The offsets file format of Paimon C++'s real-time store: the bytes it writes (four-space indents,
 * its entry order), what its reader refuses, and maps that come back as written.
 */
class RealtimeOffsetsJsonTest {

    private static Map<String, String> partition(String... keyValues) {
        Map<String, String> partition = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            partition.put(keyValues[i], keyValues[i + 1]);
        }
        return partition;
    }

    @Test
    void writesPaimonCppsBytesInItsOrder() {
        List<Entry> entries =
                Arrays.asList(
                        new Entry(partition("region", "eu", "dt", "x/y"), 3, 40),
                        new Entry(partition("dt", "7"), 1, 12),
                        new Entry(partition(), 0, 5));
        String expected =
                "{\n"
                        + "    \"version\": 1,\n"
                        + "    \"offsets\": [\n"
                        + "        {\n"
                        + "            \"partition\": {},\n"
                        + "            \"bucket\": 0,\n"
                        + "            \"offset\": 5\n"
                        + "        },\n"
                        + "        {\n"
                        + "            \"partition\": {\n"
                        + "                \"dt\": \"7\"\n"
                        + "            },\n"
                        + "            \"bucket\": 1,\n"
                        + "            \"offset\": 12\n"
                        + "        },\n"
                        + "        {\n"
                        + "            \"partition\": {\n"
                        + "                \"dt\": \"x/y\",\n"
                        + "                \"region\": \"eu\"\n"
                        + "            },\n"
                        + "            \"bucket\": 3,\n"
                        + "            \"offset\": 40\n"
                        + "        }\n"
                        + "    ]\n"
                        + "}";
        assertThat(RealtimeOffsetsJson.write(entries)).isEqualTo(expected);
        assertThat(RealtimeOffsetsJson.read(expected))
                .containsExactly(
                        new Entry(partition(), 0, 5),
                        new Entry(partition("dt", "7"), 1, 12),
                        new Entry(partition("dt", "x/y", "region", "eu"), 3, 40));
    }

    @Test
    void anEmptyMapIsAnEmptyArray() {
        String empty = "{\n    \"version\": 1,\n    \"offsets\": []\n}";
        assertThat(RealtimeOffsetsJson.write(Collections.emptyList())).isEqualTo(empty);
        assertThat(RealtimeOffsetsJson.read(empty)).isEmpty();
    }

    @Test
    void partitionsAreOrderedByUtf8BytesAsCppStringsAre() {
        // U+FF5E sorts after U+1F600 in UTF-16 units, before it in UTF-8 bytes
        Entry fullwidth = new Entry(partition("dt", "\uFF5E"), 0, 1);
        Entry emoji = new Entry(partition("dt", "\uD83D\uDE00"), 0, 2);
        Entry longer = new Entry(partition("dt", "\uFF5E", "hr", "1"), 0, 3);
        Entry sameBucketLater = new Entry(partition("dt", "\uFF5E"), 1, 4);
        assertThat(
                        RealtimeOffsetsJson.read(
                                RealtimeOffsetsJson.write(
                                        Arrays.asList(emoji, longer, sameBucketLater, fullwidth))))
                .containsExactly(fullwidth, sameBucketLater, longer, emoji);
    }

    @Test
    void valuesComeBackAsWrittenWhateverTheyHold() {
        List<Entry> entries =
                Arrays.asList(
                        new Entry(partition("dt", ""), 0, 0),
                        new Entry(partition("dt", "a \"quoted\" \\ value\n"), 0, Long.MAX_VALUE),
                        new Entry(partition("dt", "__DEFAULT_PARTITION__"), Integer.MAX_VALUE, 9));
        assertThat(RealtimeOffsetsJson.read(RealtimeOffsetsJson.write(entries)))
                .containsExactlyInAnyOrderElementsOf(entries);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{|deserialize failed",
                "[]|value must be an object",
                "{\"offsets\":[]}|key 'version' must exist",
                "{\"version\":2,\"offsets\":[]}|unsupported offsets version 2",
                "{\"version\":\"1\",\"offsets\":[]}|'version' value must be int",
                "{\"version\":1,\"offsets\":{}}|'offsets' value must be an array",
                "{\"version\":1,\"offsets\":[{\"bucket\":0,\"offset\":1}]}|key 'partition' must exist",
                "{\"version\":1,\"offsets\":[{\"partition\":{},\"bucket\":0}]}|key 'offset' must exist",
                "{\"version\":1,\"offsets\":[{\"partition\":\"dt=2\",\"bucket\":0,\"offset\":1}]}"
                        + "|'partition' value must be an object",
                "{\"version\":1,\"offsets\":[{\"partition\":{\"dt\":2},\"bucket\":0,\"offset\":1}]}"
                        + "|partition value of 'dt' must be string",
                "{\"version\":1,\"offsets\":[{\"partition\":{},\"bucket\":\"0\",\"offset\":1}]}"
                        + "|'bucket' value must be int",
                "{\"version\":1,\"offsets\":[{\"partition\":{},\"bucket\":0,\"offset\":\"1\"}]}"
                        + "|'offset' value must be int64",
                "{\"version\":1,\"offsets\":[{\"partition\":{},\"bucket\":-1,\"offset\":1}]}"
                        + "|invalid bucket -1",
                "{\"version\":1,\"offsets\":[{\"partition\":{},\"bucket\":0,\"offset\":-1}]}"
                        + "|invalid offset -1",
                "{\"version\":1,\"offsets\":[{\"partition\":{\"dt\":\"a/b\"},\"bucket\":0,\"offset\":1},"
                        + "{\"partition\":{\"dt\":\"a/b\"},\"bucket\":0,\"offset\":2}]}"
                        + "|duplicate partition-bucket 0"
            })
    void refusesWhatPaimonCppRefusesSayingWhy(String content, String reason) {
        assertThatThrownBy(() -> RealtimeOffsetsJson.read(content))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Offsets JSON: ")
                .hasMessageContaining(reason);
    }

    @Test
    void refusesToWriteWhatItWouldRefuseToRead() {
        assertThatThrownBy(
                        () ->
                                RealtimeOffsetsJson.write(
                                        Collections.singletonList(new Entry(partition(), -1, 0))))
                .hasMessageContaining("invalid bucket -1");
        assertThatThrownBy(
                        () ->
                                RealtimeOffsetsJson.write(
                                        Collections.singletonList(new Entry(partition(), 0, -1))))
                .hasMessageContaining("invalid offset -1");
        assertThatThrownBy(
                        () ->
                                RealtimeOffsetsJson.write(
                                        Arrays.asList(
                                                new Entry(partition("dt", "a"), 2, 1),
                                                new Entry(partition("dt", "a"), 2, 5))))
                .hasMessageContaining("duplicate partition-bucket 2");
    }
}
