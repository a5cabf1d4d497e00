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
 * A read's position recorded with a Paimon consumer ({@code consumer-id}), for every engine:
 * Paimon's consumer file, which snapshot expiry and {@code sys.reset_consumer} work on, and beside
 * it the engine's own position ({@link io.lakestream.read.consumer.ConsumerPositions}). See
 * "Consumers" in {@code docs/consistency.md}.
 */
package io.lakestream.read.consumer;
