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

package io.lakestream.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Prints the figures of a run as a Markdown table and writes them as JSON. */
final class Report {

    private final Map<String, Object> environment;
    private final Map<String, Object> sizes;
    private final List<Figure> figures;

    Report(Map<String, Object> environment, Map<String, Object> sizes, List<Figure> figures) {
        this.environment = environment;
        this.sizes = sizes;
        this.figures = figures;
    }

    void printTable(PrintStream out) {
        out.println();
        out.println("Run: " + join(environment));
        out.println("Sizes: " + join(sizes));
        out.println();
        out.println(
                "| figure | lake-stream median [min-max] | Paimon alone median [min-max] | rounds |"
                        + " lake-stream vs Paimon | median of the rounds' ratios |"
                        + " the store alone median [min-max] | bound with the store's cost |");
        out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Figure figure : figures) {
            Stats ls = Stats.of(figure.lakeStream);
            Stats p = Stats.of(figure.paimon);
            double ratio = figure.ratio();
            double paired = figure.pairedRatio();
            double bound = figure.storeBound();
            out.printf(
                    "| %s (%s) | %s | %s | %d | %s | %s | %s | %s |%n",
                    figure.name,
                    figure.unit,
                    cell(ls),
                    cell(p),
                    Math.max(ls.count, p.count),
                    Double.isNaN(ratio)
                            ? "-"
                            : String.format(
                                    Locale.ROOT,
                                    "%.2fx %s",
                                    ratio,
                                    ratio >= 1 ? "(better or equal)" : "(worse)"),
                    Double.isNaN(paired) ? "-" : String.format(Locale.ROOT, "%.2fx", paired),
                    cell(Stats.of(figure.storeAlone)),
                    Double.isNaN(bound) ? "-" : String.format(Locale.ROOT, "%.2fx", bound));
        }
        out.println();
    }

    void writeJson(Path file) throws IOException {
        StringBuilder json = new StringBuilder("{\n");
        json.append("  \"environment\": ").append(object(environment)).append(",\n");
        json.append("  \"sizes\": ").append(object(sizes)).append(",\n");
        json.append("  \"figures\": [\n");
        for (int i = 0; i < figures.size(); i++) {
            Figure figure = figures.get(i);
            json.append("    {\"name\": ")
                    .append(string(figure.name))
                    .append(", \"unit\": ")
                    .append(string(figure.unit))
                    .append(", \"higherIsBetter\": ")
                    .append(figure.higherIsBetter)
                    .append(", \"lakeStream\": ")
                    .append(side(figure.lakeStream))
                    .append(", \"paimon\": ")
                    .append(side(figure.paimon))
                    .append(", \"ratio\": ")
                    .append(number(figure.ratio()))
                    .append(", \"pairedRatio\": ")
                    .append(number(figure.pairedRatio()))
                    .append(", \"storeAlone\": ")
                    .append(side(figure.storeAlone))
                    .append(", \"storeBound\": ")
                    .append(number(figure.storeBound()))
                    .append(i + 1 < figures.size() ? "},\n" : "}\n");
        }
        json.append("  ]\n}\n");
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.write(file, json.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static String cell(Stats stats) {
        if (stats.count == 0) {
            return "-";
        }
        return String.format(
                Locale.ROOT, "%s [%s-%s]", human(stats.median), human(stats.min), human(stats.max));
    }

    private static String human(double value) {
        return Math.abs(value) >= 100
                ? String.format(Locale.ROOT, "%,.0f", value)
                : String.format(Locale.ROOT, "%.2f", value);
    }

    private static String join(Map<String, Object> map) {
        StringBuilder text = new StringBuilder();
        map.forEach(
                (k, v) ->
                        text.append(text.length() == 0 ? "" : ", ")
                                .append(k)
                                .append('=')
                                .append(v));
        return text.toString();
    }

    private static String side(List<Double> values) {
        Stats stats = Stats.of(values);
        StringBuilder rounds = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            rounds.append(i == 0 ? "" : ", ").append(number(values.get(i)));
        }
        rounds.append(']');
        return String.format(
                Locale.ROOT,
                "{\"median\": %s, \"min\": %s, \"max\": %s, \"rounds\": %s}",
                number(stats.median),
                number(stats.min),
                number(stats.max),
                rounds);
    }

    private static String object(Map<String, Object> map) {
        StringBuilder json = new StringBuilder("{");
        map.forEach(
                (k, v) ->
                        json.append(json.length() == 1 ? "" : ", ")
                                .append(string(k))
                                .append(": ")
                                .append(
                                        v instanceof Number
                                                ? number(((Number) v).doubleValue())
                                                : string(String.valueOf(v))));
        return json.append('}').toString();
    }

    private static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "null";
        }
        return value == Math.rint(value) && Math.abs(value) < 1e15
                ? String.valueOf((long) value)
                : String.format(Locale.ROOT, "%.4f", value);
    }

    private static String string(String value) {
        StringBuilder s = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') {
                s.append('\\').append(c);
            } else if (c < 0x20) {
                s.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                s.append(c);
            }
        }
        return s.append('"').toString();
    }
}
