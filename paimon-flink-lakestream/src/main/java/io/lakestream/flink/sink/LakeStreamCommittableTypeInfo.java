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

package io.lakestream.flink.sink;

import org.apache.paimon.flink.sink.Committable;
import org.apache.paimon.flink.sink.CommittableTypeInfo;
import org.apache.paimon.flink.sink.NoneCopyVersionedSerializerTypeSerializerProxy;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * The type of the lake-stream write operator's output: Paimon's committables plus sealed segments.
 * Like Paimon's, its serializer does not copy, so that committables go straight to a chained
 * committer.
 */
@Internal
public final class LakeStreamCommittableTypeInfo extends CommittableTypeInfo {

    private static final long serialVersionUID = 1L;

    @Override
    public TypeSerializer<Committable> createSerializer(SerializerConfig config) {
        return createSerializer((ExecutionConfig) null);
    }

    @Override
    public TypeSerializer<Committable> createSerializer(ExecutionConfig config) {
        return new NoneCopyVersionedSerializerTypeSerializerProxy<Committable>(
                LakeStreamCommittableSerializer::new) {};
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof LakeStreamCommittableTypeInfo;
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof LakeStreamCommittableTypeInfo;
    }

    @Override
    public int hashCode() {
        return 1;
    }

    @Override
    public String toString() {
        return "LakeStreamCommittableTypeInfo";
    }
}
