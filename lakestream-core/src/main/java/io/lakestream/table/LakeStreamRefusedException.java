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

package io.lakestream.table;

import org.apache.paimon.annotation.Experimental;

/**
 * A statement on a lake-stream table is refused: enabling it where lake-stream mode cannot hold (a
 * branch, a dynamic-bucket table, a writer job still running), or opening a table that is not in
 * lake-stream mode. The message names the table and the way out. Engines that have an error of
 * their own for refused statements pass it to {@link LakeStreamEnablement} instead (Flink's {@code
 * ValidationException}, which the SQL client shows); the embedded API throws this one.
 */
@Experimental
public class LakeStreamRefusedException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public LakeStreamRefusedException(String message) {
        super(message);
    }
}
