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

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which table option values are refused when they are given, and how a refusal reads. */
class OptionValuesTest {

    @Test
    void readableValuesAndOptionsOfNoneOfOursPass() {
        Map<String, String> options = new HashMap<>();
        options.put("lake-stream.sink.buffer-timeout", "0 ms");
        options.put("lake-stream.read.isolation", "read-committed");
        options.put("lake-stream.memory.max-bytes", "64 mb");
        options.put("lake-stream.read.max-records-per-trigger", "1000");
        // a store client's options are the client's to read
        options.put("lake-stream.fluss.client.writer.batch-timeout", "no unit at all");
        options.put("bucket", "four");
        assertThatCode(
                        () ->
                                OptionValues.refuseUnreadable(
                                        "db.t", options, IllegalStateException::new))
                .doesNotThrowAnyException();
    }

    @Test
    void aNegativeDurationIsRefusedWithTheTableTheOptionAndTheValue() {
        assertThatThrownBy(
                        () ->
                                OptionValues.refuseUnreadable(
                                        "db.t",
                                        Map.of("lake-stream.sink.buffer-timeout", "-5 ms"),
                                        IllegalStateException::new))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Table db.t")
                .hasMessageContaining("'lake-stream.sink.buffer-timeout' cannot be '-5 ms'")
                .hasMessageContaining("Its default is '10 ms'");
    }

    @Test
    void aWordThatIsNoValueOfAnEnumIsRefused() {
        assertThatThrownBy(
                        () ->
                                OptionValues.refuseUnreadable(
                                        "db.t",
                                        Map.of("lake-stream.read.isolation", "serializable"),
                                        IllegalStateException::new))
                .hasMessageContaining("'lake-stream.read.isolation' cannot be 'serializable'")
                .hasMessageContaining("read-uncommitted");
    }

    @Test
    void aCountThatIsNoNumberIsRefused() {
        assertThatThrownBy(
                        () ->
                                OptionValues.refuseUnreadable(
                                        "db.t",
                                        Map.of("lake-stream.read.max-records-per-trigger", "many"),
                                        IllegalStateException::new))
                .hasMessageContaining(
                        "'lake-stream.read.max-records-per-trigger' cannot be 'many'");
    }
}
