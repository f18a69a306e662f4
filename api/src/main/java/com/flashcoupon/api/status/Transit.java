package com.flashcoupon.api.status;

import java.util.ArrayDeque;

/**
 * A coupon's pipeline transit as one api instance sees it ({@link IssuePace}): the time from a request's publication to
 * Kafka to its outcome. Each drain tick says what was published and what is done; the requests a tick saw published
 * for the first time went out during the drain that followed the tick before, so they are stamped with that tick's
 * time, and remembered until {@code done} reaches the middle one (the batch's typical member: its first is issued
 * sooner, its last later). Not thread-safe: its {@code CouponPace} holds the lock.
 */
final class Transit {

    private final ArrayDeque<long[]> publications = new ArrayDeque<>(); // {nanos, middle} still in flight
    private final ArrayDeque<long[]> crossings = new ArrayDeque<>(); // {nanos, transit nanos}
    private long published = -1;
    private long done = -1;
    private boolean observed;
    private long observedNanos;
    private long tickNanos; // between the last two ticks seen
    private long recent = -1; // the median of the last window's crossings, -1 when none crossed in it
    private long lastMedian = -1; // the median seen last, and when
    private long lastMedianNanos;

    /** One drain tick's counters, on whichever instance drains the coupon. */
    void observe(long doneNow, long publishedNow, long now) {
        if (doneNow < done) {
            // the counters started again (the event's state was rebuilt after a Redis loss): nothing before counts
            publications.clear();
            crossings.clear();
            recent = -1;
            lastMedian = -1;
        } else if (publishedNow < published) {
            // the published count went down without a rebuild (an admission known only as a count was settled): what
            // is above it now was never published under this numbering
            publications.removeIf(publication -> publication[1] > publishedNow);
        }
        long from = Math.max(published, 0);
        if (publishedNow > from) {
            long stamp = observed ? observedNanos : now;
            long middle = (from + 1 + publishedNow) / 2;
            if (middle <= doneNow) {
                // published and issued between two ticks: a crossing all the same, in half that time on average (a
                // pipeline faster than a tick would otherwise show no crossing at all, and an older one would hold)
                crossings.addLast(new long[] {now, (now - stamp) / 2});
            } else {
                publications.addLast(new long[] {stamp, middle});
                if (publications.size() > IssuePace.PUBLICATIONS_KEPT) {
                    publications.removeFirst();
                }
            }
        }
        while (!publications.isEmpty() && publications.peekFirst()[1] <= doneNow) {
            crossings.addLast(new long[] {now, now - publications.removeFirst()[0]});
        }
        while (!crossings.isEmpty() && now - crossings.peekFirst()[0] > IssuePace.TRANSIT_WINDOW_NANOS) {
            crossings.removeFirst();
        }
        recent = crossings.isEmpty() ? -1 : median();
        if (recent >= 0) {
            lastMedian = recent;
            lastMedianNanos = now;
        }
        published = publishedNow;
        done = doneNow;
        tickNanos = observed ? now - observedNanos : 0;
        observed = true;
        observedNanos = now;
    }

    /**
     * The transit now, in milliseconds: the median of the crossings of the last {@link IssuePace#TRANSIT_WINDOW_NANOS};
     * with none, the longer of the last median (for {@link IssuePace#STALE_NANOS}) and the age of the oldest
     * publication still in flight (a pipeline that has issued nothing of what it was handed, at an event's start or in
     * a stall, is at least that slow). Ages are counted up to the last tick seen: an instance that stopped seeing the
     * coupon (Kafka or Redis out of its reach) does not take its own silence for a stall. 0 when nothing was seen
     * lately.
     *
     * <p>With {@code clearingRate} (per second, 0 when not measured), at most what is in flight now at that rate, plus
     * half a tick: a crossing is timed once it is over, so it tells how long the pipeline took a transit ago; what is
     * in flight now, at the rate it clears, is how long it takes now (shorter once a cold worker has warmed). A tick
     * counts it just before the drainer sends more, at its lowest: half a tick more on average.
     */
    long millis(long now, double clearingRate) {
        if (!observed || now - observedNanos > IssuePace.STALE_NANOS) {
            return 0;
        }
        long measured;
        if (recent >= 0) {
            measured = Math.round(recent / 1e6);
        } else {
            long last = lastMedian >= 0 && observedNanos - lastMedianNanos < IssuePace.STALE_NANOS ? lastMedian : 0;
            long oldest =
                    publications.isEmpty() ? 0 : observedNanos - publications.peekFirst()[0];
            measured = Math.round(Math.max(last, oldest) / 1e6);
        }
        long inFlight = published - done;
        if (clearingRate > 0 && inFlight > 0) {
            return Math.min(measured, Math.round(inFlight * 1000 / clearingRate) + tickNanos / 2_000_000);
        }
        return measured;
    }

    /** The published count of the last tick seen, -1 before any. */
    long published() {
        return published;
    }

    private long median() {
        long[] transits =
                crossings.stream().mapToLong(crossing -> crossing[1]).sorted().toArray();
        return transits[transits.length / 2];
    }
}
