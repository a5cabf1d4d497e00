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

package io.lakestream.flink.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fails when a relative link of the README or of a page in docs/ points to a file or heading that
 * does not exist, or when docs/index.md, the map a newcomer starts from, leaves a page out.
 */
class DocsLinksTest {

    // tests run in the module directory; the README and docs/ are at the repository root
    private static final Path ROOT = Paths.get("..");
    private static final Path DOCS = ROOT.resolve("docs");

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)[^)]*\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");

    @Test
    void everyRelativeLinkPointsToAnExistingFileAndHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchorsByPage = new HashMap<>();
        for (Path page : pages()) {
            for (String target : links(page)) {
                if (target.contains(":")) {
                    // http:, https:, mailto: and the like leave the repository
                    continue;
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(describe(page) + " -> " + target + " (no such file)");
                    continue;
                }
                if (anchor != null && resolved.toString().endsWith(".md")) {
                    Set<String> anchors =
                            anchorsByPage.computeIfAbsent(resolved, DocsLinksTest::anchors);
                    if (!anchors.contains(anchor)) {
                        broken.add(describe(page) + " -> " + target + " (no such heading)");
                    }
                }
            }
        }
        assertThat(broken).as("links to missing files or headings").isEmpty();
    }

    @Test
    void indexListsEveryPage() throws IOException {
        Path index = DOCS.resolve("index.md");
        Set<String> linked =
                links(index).stream()
                        .map(target -> target.replaceFirst("#.*$", ""))
                        .collect(Collectors.toSet());
        Set<String> missing = new TreeSet<>();
        try (Stream<Path> files = Files.list(DOCS)) {
            files.map(file -> file.getFileName().toString())
                    .filter(name -> name.endsWith(".md") && !name.equals("index.md"))
                    .filter(name -> !linked.contains(name))
                    .forEach(missing::add);
        }
        assertThat(missing).as("pages of docs/ that docs/index.md does not list").isEmpty();
        assertThat(linked)
                .as("docs/index.md must lead to the quickstart in the README")
                .contains("../README.md");
    }

    @Test
    void readmeDocumentationListStartsWithTheMap() throws IOException {
        List<String> section = new ArrayList<>();
        boolean inSection = false;
        for (String line : proseLines(ROOT.resolve("README.md"))) {
            if (line.startsWith("## ")) {
                inSection = line.equals("## Documentation");
            } else if (inSection) {
                section.add(line);
            }
        }
        List<String> targets = new ArrayList<>();
        for (String line : section) {
            Matcher matcher = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (matcher.find()) {
                targets.add(matcher.group(1));
            }
        }
        assertThat(targets).as("links of the README's Documentation section").isNotEmpty();
        assertThat(targets.get(0)).isEqualTo("docs/index.md");
    }

    @Test
    void anchorsFollowGitHubRules() {
        assertThat(slug("Reading lake_stream_status")).isEqualTo("reading-lake_stream_status");
        assertThat(slug("`sys.lake_stream_status`")).isEqualTo("syslake_stream_status");
        assertThat(slug("Where a read starts: time travel and scan options"))
                .isEqualTo("where-a-read-starts-time-travel-and-scan-options");
        assertThat(slug("The Fluss cluster: replicate the stream tables"))
                .isEqualTo("the-fluss-cluster-replicate-the-stream-tables");
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> files = Files.list(DOCS)) {
            files.filter(file -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The link targets of a page, outside fenced code blocks and code spans. */
    private static List<String> links(Path page) throws IOException {
        List<String> targets = new ArrayList<>();
        for (String line : proseLines(page)) {
            Matcher matcher = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (matcher.find()) {
                targets.add(matcher.group(1));
            }
        }
        return targets;
    }

    /** The anchors GitHub gives the headings of a page, with its suffixes for repeated ones. */
    private static Set<String> anchors(Path page) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        try {
            for (String line : proseLines(page)) {
                Matcher matcher = HEADING.matcher(line);
                if (matcher.matches()) {
                    String slug = slug(matcher.group(1));
                    int count = seen.merge(slug, 1, Integer::sum);
                    anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read " + page, e);
        }
        return anchors;
    }

    /**
     * GitHub's anchor of a heading: its text (links reduced to their text), lower-case, every
     * character other than a letter, digit, space, '-' or '_' removed, spaces turned into '-'.
     */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    /** The lines of a page outside fenced code blocks, whose '#' lines are not headings. */
    private static List<String> proseLines(Path page) throws IOException {
        List<String> prose = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            if (line.trim().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (!fenced) {
                prose.add(line);
            }
        }
        return prose;
    }

    private static String describe(Path page) {
        return ROOT.relativize(page).toString();
    }
}
