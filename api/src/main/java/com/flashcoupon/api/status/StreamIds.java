package com.flashcoupon.api.status;

import com.flashcoupon.api.web.CanonicalIds;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.publisher.Flux;

/**
 * The {@code id} of a live stream's status events, and what a client's {@code Last-Event-ID} says it has seen
 * (docs/http-api.md). A status event's id names, for each coupon of the stream that has had one, the state its last
 * status event carried: {@code 42:w1734} (waiting at position 1734), {@code 42:d1.30412.10000} (in a draw: its state,
 * entrants and places), {@code 42:i9001} (issued, wallet coupon 9001), {@code 42:fSOLD_OUT} (failed), joined by commas
 * on a stream of several coupons ({@code 42:w17,43:i9001}). The server keeps no history: every status event is the
 * whole status, so a stream opened again sends each coupon's status at once, except one whose state is the one its
 * {@code Last-Event-ID} names: the client has it already.
 */
final class StreamIds {

    /** A Last-Event-ID longer than this is not read (a stream holds at most {@code max-coupons-per-stream}). */
    static final int MAX_LENGTH = 2048;

    private StreamIds() {}

    /** The state a status event carries, as its id names it. */
    static String token(IssueStatus status) {
        return switch (status.status()) {
            case ISSUED -> "i" + status.walletCouponId();
            case FAILED -> "f" + status.failureReason();
            case WAITING ->
                status.draw() != null
                        ? "d" + (status.draw().state() == IssueStatus.DrawState.DRAWING ? 2 : 1) + "."
                                + status.draw().entrants() + "." + status.draw().places()
                        : "w" + status.position();
        };
    }

    /**
     * What a {@code Last-Event-ID} says the client has seen, by coupon; empty when there is none or it cannot be read
     * (a bad one is ignored, never refused: the stream then sends every status).
     */
    static Map<Long, String> seen(String lastEventId) {
        Map<Long, String> seen = new LinkedHashMap<>();
        if (lastEventId == null || lastEventId.isBlank() || lastEventId.length() > MAX_LENGTH) {
            return seen;
        }
        for (String part : lastEventId.strip().split(",")) {
            int colon = part.indexOf(':');
            if (colon <= 0 || colon == part.length() - 1) {
                continue;
            }
            long couponId = CanonicalIds.parse(part.substring(0, colon));
            if (couponId > 0) {
                seen.put(couponId, part.substring(colon + 1));
            }
        }
        return seen;
    }

    /**
     * The stream's events with an id on each status event, naming every coupon of {@code coupons} the client knows the
     * state of; the first status of a coupon whose state the client has seen ({@code seen}) is not sent again.
     */
    static Flux<ServerSentEvent<Object>> withIds(
            Flux<ServerSentEvent<Object>> events, Set<Long> coupons, Map<Long, String> seen) {
        return Flux.defer(() -> {
            Map<Long, String> known = new LinkedHashMap<>();
            seen.forEach((couponId, token) -> {
                if (coupons.contains(couponId)) {
                    known.put(couponId, token);
                }
            });
            Set<Long> started = new HashSet<>();
            return events.<ServerSentEvent<Object>>handle((event, sink) -> {
                if (!(event.data() instanceof IssueStatus status)) {
                    sink.next(event);
                    return;
                }
                String token = token(status);
                boolean first = started.add(status.couponId());
                if (first && token.equals(known.get(status.couponId()))) {
                    return;
                }
                known.put(status.couponId(), token);
                sink.next(ServerSentEvent.<Object>builder(status)
                        .event(event.event())
                        .id(id(known))
                        .build());
            });
        });
    }

    private static String id(Map<Long, String> known) {
        StringBuilder id = new StringBuilder();
        known.forEach((couponId, token) -> {
            if (!id.isEmpty()) {
                id.append(',');
            }
            id.append(couponId).append(':').append(token);
        });
        return id.toString();
    }
}
