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

package io.lakestream.local.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ports of the loopback address that the local clusters' processes listen on. */
final class LocalPorts {

    /** Every process of the local clusters binds to this address only. */
    static final String HOST = "127.0.0.1";

    private LocalPorts() {}

    /**
     * A port that is free now. Another process may take it before the one it is meant for binds it;
     * the clusters choose their ports right before they start their processes.
     */
    static int free() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        }
    }
}
