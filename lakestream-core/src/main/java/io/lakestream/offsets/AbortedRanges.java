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

package io.lakestream.offsets;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The fences known to a reader, indexed per partition-bucket so that the question "is this offset
 * aborted, and if so where does the valid data resume" costs one map lookup and one floor search.
 * Overlapping and adjacent ranges are merged as they are added, so a record is tested against one
 * range at most.
 */
public final class AbortedRanges {

    private final Map<PartitionBucket, NavigableMap<Long, Long>> rangesPerBucket = new HashMap<>();

    /** How many added ranges covered offsets that no range covered before. */
    private long widenings;

    public static AbortedRanges of(Collection<AbortedRange> ranges) {
        AbortedRanges result = new AbortedRanges();
        result.addAll(ranges);
        return result;
    }

    public void addAll(Collection<AbortedRange> ranges) {
        for (AbortedRange range : ranges) {
            add(range);
        }
    }

    public void add(AbortedRange range) {
        NavigableMap<Long, Long> ranges =
                rangesPerBucket.computeIfAbsent(range.partitionBucket(), k -> new TreeMap<>());
        long start = range.startOffset();
        long end = range.endOffset();
        Map.Entry<Long, Long> covering = ranges.floorEntry(start);
        if (covering != null && covering.getValue() >= end) {
            return;
        }
        widenings++;
        // merge with a range that starts before and reaches into or touches this one
        Map.Entry<Long, Long> floor = ranges.floorEntry(start);
        if (floor != null && floor.getValue() >= start) {
            start = floor.getKey();
            end = Math.max(end, floor.getValue());
        }
        // swallow ranges that start inside [start, end]
        Map.Entry<Long, Long> next = ranges.ceilingEntry(start);
        while (next != null && next.getKey() <= end) {
            end = Math.max(end, next.getValue());
            ranges.remove(next.getKey());
            next = ranges.ceilingEntry(start);
        }
        ranges.put(start, end);
    }

    /**
     * How many times an added range covered offsets that none covered before: a reader that kept
     * records compares it before and after learning of new fences to know whether any may cover
     * them.
     */
    public long widenings() {
        return widenings;
    }

    /** Whether the record at {@code offset} of {@code partitionBucket} belongs to a fence. */
    public boolean isAborted(PartitionBucket partitionBucket, long offset) {
        return nextValidOffset(partitionBucket, offset) != offset;
    }

    /**
     * The smallest offset {@code >= offset} of {@code partitionBucket} that no fence covers: {@code
     * offset} itself when it is not aborted, the end of its fence otherwise.
     */
    public long nextValidOffset(PartitionBucket partitionBucket, long offset) {
        NavigableMap<Long, Long> ranges = rangesPerBucket.get(partitionBucket);
        if (ranges == null) {
            return offset;
        }
        Map.Entry<Long, Long> floor = ranges.floorEntry(offset);
        return floor != null && floor.getValue() > offset ? floor.getValue() : offset;
    }

    /** The merged fences of one partition-bucket, in offset order. */
    public List<AbortedRange> rangesOf(PartitionBucket partitionBucket) {
        NavigableMap<Long, Long> ranges = rangesPerBucket.get(partitionBucket);
        if (ranges == null) {
            return Collections.emptyList();
        }
        List<AbortedRange> result = new ArrayList<>(ranges.size());
        ranges.forEach((start, end) -> result.add(new AbortedRange(partitionBucket, start, end)));
        return result;
    }

    /** The number of aborted offsets of {@code partitionBucket} in {@code [from, to)}. */
    public long countAborted(PartitionBucket partitionBucket, long from, long to) {
        long count = 0;
        for (AbortedRange range : rangesOf(partitionBucket)) {
            long start = Math.max(from, range.startOffset());
            long end = Math.min(to, range.endOffset());
            if (end > start) {
                count += end - start;
            }
        }
        return count;
    }
}
