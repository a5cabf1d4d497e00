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

import io.lakestream.store.StreamStore;
import io.lakestream.store.StreamStoreFactory;

import org.apache.paimon.annotation.Experimental;

/** Creates the {@link FlussStreamStore}; its identifier, {@code fluss}, is the default store. */
@Experimental
public final class FlussStreamStoreFactory implements StreamStoreFactory {

    public static final String IDENTIFIER = "fluss";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public StreamStore create(Context context) {
        FlussClientClasses.initialize();
        return new FlussStreamStore(
                context.storeOptions(),
                context.requestTimeout(),
                context.writeTimeout(),
                context.connectionIdleTimeout(),
                context.databasePrefix());
    }
}
