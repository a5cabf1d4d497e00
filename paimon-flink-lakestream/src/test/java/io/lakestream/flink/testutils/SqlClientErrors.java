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

package io.lakestream.flink.testutils;

/** What Flink's SQL client shows of a failed statement, for tests of error messages. */
public final class SqlClientErrors {

    private SqlClientErrors() {}

    /**
     * The last exception of the chain. Flink's SQL client shows it, or, for {@code CALL}, Flink's
     * {@code TableException} "The call method caused an error: " with its message: the procedure's
     * exception sits below a reflective {@code InvocationTargetException} without a message, where
     * the SQL client stops.
     */
    public static Throwable rootCause(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root;
    }

    /**
     * What Flink 1.20's SQL client prints of a failed statement: the deepest exception of the chain
     * whose message is not empty ({@code CliStrings.messageError}).
     */
    public static Throwable shownBySqlClient(Throwable error) {
        Throwable shown = error;
        while (shown.getCause() != null
                && shown.getCause().getMessage() != null
                && !shown.getCause().getMessage().isEmpty()) {
            shown = shown.getCause();
        }
        return shown;
    }
}
