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

package io.lakestream.examples;

import java.io.PrintStream;
import java.util.List;

/**
 * A plain-text table for the examples' output: column names over right-aligned cells, no escape
 * codes, so that it reads the same in a terminal, a log file and a CI console.
 */
final class PlainTable {

    private PlainTable() {}

    /** Prints {@code header} and {@code rows}, each column as wide as its widest cell. */
    static void print(PrintStream out, List<String> header, List<List<String>> rows) {
        int[] widths = new int[header.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = header.get(i).length();
            for (List<String> row : rows) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        out.println(line(widths, header));
        out.println(rule(widths));
        for (List<String> row : rows) {
            out.println(line(widths, row));
        }
    }

    /** One line of cells, each right-aligned in its column and two spaces apart. */
    static String line(int[] widths, List<String> cells) {
        StringBuilder line = new StringBuilder("  ");
        for (int i = 0; i < widths.length; i++) {
            if (i > 0) {
                line.append("  ");
            }
            String cell = cells.get(i);
            line.append(" ".repeat(Math.max(0, widths[i] - cell.length()))).append(cell);
        }
        return line.toString();
    }

    /** The dashes under the column names. */
    static String rule(int[] widths) {
        StringBuilder line = new StringBuilder("  ");
        for (int i = 0; i < widths.length; i++) {
            if (i > 0) {
                line.append("  ");
            }
            line.append("-".repeat(widths[i]));
        }
        return line.toString();
    }
}
