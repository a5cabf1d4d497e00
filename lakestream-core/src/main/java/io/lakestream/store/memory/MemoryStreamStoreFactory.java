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

package io.lakestream.store.memory;

import io.lakestream.LakeStreamOptions;
import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreException;
import io.lakestream.store.StreamStoreFactory;

import org.apache.paimon.options.MemorySize;

/**
 * Creates the {@code memory} stream store ({@code 'lake-stream.store' = 'memory'}): the records not
 * yet committed to Paimon, held in the writer's process. Its one option is {@code
 * lake-stream.memory.max-bytes}.
 */
public final class MemoryStreamStoreFactory implements StreamStoreFactory {

    public static final String IDENTIFIER = "memory";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public StreamStore create(Context context) {
        // the option's key without the store's prefix, as the loader hands store options over
        String key =
                LakeStreamOptions.MEMORY_MAX_BYTES
                        .key()
                        .substring(LakeStreamOptions.storeOptionsPrefix(IDENTIFIER).length());
        String value = context.storeOptions().get(key);
        long maxBytes;
        try {
            maxBytes =
                    (value == null
                                    ? LakeStreamOptions.MEMORY_MAX_BYTES.defaultValue()
                                    : MemorySize.parse(value))
                            .getBytes();
        } catch (IllegalArgumentException e) {
            throw new StreamStoreException(
                    String.format(
                            "Option '%s' = '%s' is not a size in bytes (such as '256 mb').",
                            LakeStreamOptions.MEMORY_MAX_BYTES.key(), value),
                    e);
        }
        return new MemoryStreamStore(
                MemoryStreamTables.PROCESS,
                context.databasePrefix(),
                maxBytes,
                context.writeTimeout());
    }
}
