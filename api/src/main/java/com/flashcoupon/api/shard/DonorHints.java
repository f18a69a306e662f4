package com.flashcoupon.api.shard;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What this instance last saw each shard of an event hold free (an admission's reply, a give, the sold-out check's
 * looks), so that a home that is out asks the shards likely to have stock first and skips those seen empty. Only a
 * hint: a shard seen empty may have received stock since, and the sold-out check, which looks at every shard, is what
 * decides; it refreshes every hint.
 */
final class DonorHints {

    /** Not seen yet: asked before any shard seen with stock. */
    static final long UNKNOWN = Long.MAX_VALUE;

    private final Map<String, long[]> seen = new ConcurrentHashMap<>();

    private long[] of(String[] tags) {
        return seen.computeIfAbsent(tags[0], key -> {
            long[] free = new long[tags.length];
            Arrays.fill(free, UNKNOWN);
            return free;
        });
    }

    void saw(String[] tags, int shard, long free) {
        long[] free0 = of(tags);
        if (shard < free0.length) {
            free0[shard] = Math.max(0, free);
        }
    }

    /**
     * Every shard but the home not seen empty, the most stock seen first (ties in a random order, so that homes that
     * run out together do not all ask one donor first).
     */
    List<Integer> donors(String[] tags, int home) {
        long[] free = of(tags);
        List<Integer> donors = new ArrayList<>(tags.length - 1);
        for (int shard = 0; shard < tags.length; shard++) {
            if (shard != home && free[shard] > 0) {
                donors.add(shard);
            }
        }
        java.util.Collections.shuffle(donors, ThreadLocalRandom.current());
        donors.sort(Comparator.comparingLong((Integer shard) -> free[shard]).reversed());
        return donors;
    }
}
