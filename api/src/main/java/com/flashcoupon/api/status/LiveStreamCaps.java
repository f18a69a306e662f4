package com.flashcoupon.api.status;

import com.flashcoupon.api.web.ApiException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * What bounds the live status streams (security review finding 7): each holds a connection, a map entry and a buffer
 * for as long as its member waits, which in a RANDOMIZED_START window can be an hour, and none of them passes the
 * overload guard. So one instance holds at most {@code coupon.live.max-streams} of them (over it, 503 with {@code
 * Retry-After}); one member keeps at most {@code coupon.live.max-per-member} per coupon on an instance (a newer one
 * ends the oldest with a final {@code replaced} event); and each ends after {@code coupon.live.max-lifetime} with a
 * final {@code reconnect} event, which the client answers by opening it again (a rate-limited request like any other).
 */
@Component
class LiveStreamCaps {

    /** {@code Retry-After} of the 503 answered over {@code coupon.live.max-streams}. */
    static final long FULL_RETRY_AFTER_SECONDS = 5;

    private final LiveProperties properties;
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicLong serials = new AtomicLong();
    private final Counter refusedFull;
    private final Counter replaced;
    private final Counter expired;

    LiveStreamCaps(LiveProperties properties, MeterRegistry meters) {
        this.properties = properties;
        this.refusedFull = counter(meters, "refused-full");
        this.replaced = counter(meters, "replaced");
        this.expired = counter(meters, "reconnect");
    }

    private static Counter counter(MeterRegistry meters, String reason) {
        return Counter.builder("coupon.live.streams.ended")
                .description("Live status streams refused over the instance's cap, or ended before their result")
                .tag("reason", reason)
                .register(meters);
    }

    /** Takes a place for a new stream: null when taken, else the 503 to answer (nothing was taken). */
    ApiException tryOpen() {
        if (held.incrementAndGet() > properties.maxStreams()) {
            held.decrementAndGet();
            refusedFull.increment();
            return ApiException.liveStreamsFull(FULL_RETRY_AFTER_SECONDS);
        }
        return null;
    }

    /** Gives back the place of a stream that ended, however it ended. */
    void closed() {
        held.decrementAndGet();
    }

    /** The order in which streams were opened, for {@link #replaceOlder}. */
    long nextSerial() {
        return serials.incrementAndGet();
    }

    /**
     * Ends the oldest of one member's streams for one coupon ({@code streams}) beyond the cap, {@code newest} always
     * kept, each with a final {@code replaced} event.
     */
    void replaceOlder(Set<LiveStream> streams, LiveStream newest) {
        if (streams == null || streams.size() <= properties.maxPerMember()) {
            return;
        }
        List<LiveStream> live = new ArrayList<>();
        for (LiveStream stream : streams) {
            if (stream != newest && !stream.ended()) {
                live.add(stream);
            }
        }
        live.sort(Comparator.comparingLong(stream -> stream.opened));
        for (int i = 0; i < live.size() - (properties.maxPerMember() - 1); i++) {
            replaced.increment();
            live.get(i)
                    .end(
                            LiveStream.REPLACED,
                            "A newer stream of yours for this coupon took over; this one ends. Do not open it again.");
        }
    }

    /**
     * Ends the streams of one connection (one, or one per coupon it follows) with a final {@code reconnect} event each
     * once the connection reached its lifetime; disposed when it ended.
     */
    Disposable endAtLifetime(List<LiveStream> streams) {
        return Mono.delay(lifetime()).subscribe(elapsed -> {
            for (LiveStream stream : streams) {
                if (!stream.ended()) {
                    expired.increment();
                    stream.end(
                            LiveStream.RECONNECT,
                            "The stream reached its lifetime; open it again to go on following your request.");
                }
            }
        });
    }

    /**
     * A stream's lifetime: a random moment in the last tenth of {@code coupon.live.max-lifetime}, so that the streams a
     * crowd opened in the same second do not all reconnect in the same second.
     */
    private Duration lifetime() {
        long max = properties.maxLifetime().toMillis();
        long spread = max / 10;
        return Duration.ofMillis(max - (spread > 0 ? ThreadLocalRandom.current().nextLong(spread) : 0));
    }
}
