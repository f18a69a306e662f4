package com.flashcoupon.loadgen.crowd;

import java.util.Random;

/**
 * Who asks, in which order: every member once and a random {@code twice} fraction of them a second time, all shuffled
 * together. Members are numbered 0 … members-1. The benchmark harness uses it too.
 */
public final class CrowdPlan {

    private final int members;
    private final int askingTwice;
    private final int[] order;

    private CrowdPlan(int members, int askingTwice, int[] order) {
        this.members = members;
        this.askingTwice = askingTwice;
        this.order = order;
    }

    public static CrowdPlan shuffled(int members, double twice, Random random) {
        if (members < 1 || !(twice >= 0 && twice <= 1)) {
            throw new IllegalArgumentException("members must be positive and twice within [0, 1]");
        }
        int askingTwice = (int) Math.round(members * twice);
        int[] order = new int[members + askingTwice];
        for (int m = 0; m < members; m++) {
            order[m] = m;
        }
        // A random sample of members for the second requests: the first askingTwice of a partial shuffle.
        int[] sample = order.clone();
        for (int i = 0; i < askingTwice; i++) {
            swap(sample, i, i + random.nextInt(members - i));
            order[members + i] = sample[i];
        }
        for (int i = order.length - 1; i > 0; i--) {
            swap(order, i, random.nextInt(i + 1));
        }
        return new CrowdPlan(members, askingTwice, order);
    }

    private static void swap(int[] a, int i, int j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    public int members() {
        return members;
    }

    public int askingTwice() {
        return askingTwice;
    }

    /** Requests in all: members plus second requests. */
    public int size() {
        return order.length;
    }

    /** The member who sends request {@code i}. */
    public int memberAt(int i) {
        return order[i];
    }
}
