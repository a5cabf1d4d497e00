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

package io.lakestream.flink.source.enumerator;

import io.lakestream.flink.source.split.LakeStreamSplit;
import io.lakestream.offsets.PartitionBucket;
import io.lakestream.store.StreamReader;

import org.apache.paimon.data.BinaryRow;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Round trips of the enumerator state through every version of its serializer. */
class LakeStreamEnumeratorStateSerializerTest {

    @Test
    void plannedPartitionBucketsAndUnassignedSplitsRoundTrip() throws IOException {
        List<PartitionBucket> planned = new ArrayList<>();
        for (int p = 0; p < 100; p++) {
            for (int b = 0; b < 4; b++) {
                planned.add(new PartitionBucket(BinaryRow.singleColumn("p" + p), b));
            }
        }
        List<LakeStreamSplit> unassigned =
                Arrays.asList(
                        LakeStreamSplit.of(
                                planned.get(5),
                                Collections.emptyList(),
                                0,
                                StreamReader.NO_STOP_OFFSET),
                        LakeStreamSplit.of(planned.get(7), Collections.emptyList(), 3, 8));
        LakeStreamEnumeratorState state = new LakeStreamEnumeratorState(planned, unassigned, 7L);
        LakeStreamEnumeratorStateSerializer serializer = new LakeStreamEnumeratorStateSerializer();
        byte[] bytes = serializer.serialize(state);
        LakeStreamEnumeratorState back =
                serializer.deserialize(LakeStreamEnumeratorStateSerializer.VERSION_2, bytes);
        assertThat(back).isEqualTo(state);
        assertThat(back.planned()).containsExactlyElementsOf(planned);
        System.out.printf(
                "Enumerator state of %d planned partition-buckets: %d bytes%n",
                planned.size(), bytes.length);
    }

    @Test
    void anEmptyStateRoundTrips() throws IOException {
        LakeStreamEnumeratorState empty =
                new LakeStreamEnumeratorState(Collections.emptyList(), Collections.emptyList());
        LakeStreamEnumeratorStateSerializer serializer = new LakeStreamEnumeratorStateSerializer();
        assertThat(serializer.deserialize(2, serializer.serialize(empty))).isEqualTo(empty);
        assertThat(serializer.deserialize(2, serializer.serialize(empty)).checkedSchemaId())
                .isNull();
    }

    /**
     * State of version 1, as the previous serializer wrote it (no schema id): it restores with the
     * same plan and no schema id, so that the restored read checks from the schema it was built
     * with.
     */
    @Test
    void stateOfVersionOneRestoresWithoutASchemaId() throws IOException {
        List<PartitionBucket> planned =
                Arrays.asList(
                        new PartitionBucket(BinaryRow.singleColumn("a"), 0),
                        new PartitionBucket(BinaryRow.singleColumn("a"), 1));
        List<LakeStreamSplit> unassigned =
                Collections.singletonList(
                        LakeStreamSplit.of(planned.get(1), Collections.emptyList(), 4, 9));
        LakeStreamEnumeratorStateSerializer serializer = new LakeStreamEnumeratorStateSerializer();
        byte[] version2 =
                serializer.serialize(new LakeStreamEnumeratorState(planned, unassigned, 3L));
        // version 1 is version 2 without the trailing schema id
        byte[] version1 = Arrays.copyOf(version2, version2.length - Long.BYTES);
        LakeStreamEnumeratorState back =
                serializer.deserialize(LakeStreamEnumeratorStateSerializer.VERSION_1, version1);
        assertThat(back).isEqualTo(new LakeStreamEnumeratorState(planned, unassigned));
        assertThat(back.checkedSchemaId()).isNull();
    }

    @Test
    void anUnknownVersionIsRefused() {
        assertThatThrownBy(
                        () -> new LakeStreamEnumeratorStateSerializer().deserialize(4, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Unknown version 4");
    }
}
