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

/**
 * The boundary protocol between Paimon snapshots and the stream store, as {@code
 * docs/consistency.md} writes it down: sealing at the barrier ({@link
 * io.lakestream.protocol.SealedSegmentTracker}), the offsets map assigned at commit ({@link
 * io.lakestream.protocol.SnapshotOffsetsAssigner}), fencing on start ({@link
 * io.lakestream.protocol.FenceBase}), the writer lease ({@link io.lakestream.protocol.WriterLease})
 * and the drop of stream partitions Paimon no longer holds ({@link
 * io.lakestream.protocol.StreamPartitionDrops}). Engine-free: an engine's sink calls it, a store
 * implements the SPI's primitives only. A change here is a change of the protocol: change the page
 * first, then the code and the test the page names.
 */
package io.lakestream.protocol;
