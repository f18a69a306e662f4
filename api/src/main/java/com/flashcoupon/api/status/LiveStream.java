package com.flashcoupon.api.status;

import java.time.Instant;
import java.util.Queue;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.util.concurrent.Queues;

/**
 * One member's open status stream. The hub's ticker, the result listener and the first status read all emit into it,
 * from different threads, so every method is synchronized (uncontended: one stream, a few events a second at most).
 * Once a final status was sent, nothing else is.
 *
 * <p>The final event is never dropped for a slow reader: intermediate events (positions, odds, heartbeats) are sent
 * only while the buffer has more than one free place, so the last place is always there for the final one, whichever
 * it is: the result, {@code replaced} (a newer stream of the member took over) or {@code reconnect} (the stream
 * reached its lifetime).
 */
final class LiveStream {

    static final String EVENT = "status";

    /** The final event of a stream a newer one of the same member and coupon replaced: the client stops listening. */
    static final String REPLACED = "replaced";

    /** The final event of a stream that reached its lifetime: the client opens it again. */
    static final String RECONNECT = "reconnect";

    /**
     * The data of a final {@link #REPLACED} or {@link #RECONNECT} event: {@code couponId} says which coupon's stream
     * ended, on a stream that follows several.
     */
    record Ending(long couponId, String reason, String detail) {}

    final long couponId;
    final String memberId;

    private final Sinks.Many<ServerSentEvent<Object>> sink;
    private final Queue<ServerSentEvent<Object>> buffer;
    private final int maxBuffered;
    final long opened;
    private long sequence;
    private Instant drawAt;
    private Odds odds;
    private long position;
    private long lastSentNanos;
    private boolean finished;

    LiveStream(long couponId, String memberId, int maxBuffered, long opened) {
        this.couponId = couponId;
        this.memberId = memberId;
        this.opened = opened;
        this.maxBuffered = maxBuffered;
        this.buffer = Queues.<ServerSentEvent<Object>>get(maxBuffered).get();
        this.sink = Sinks.many().unicast().onBackpressureBuffer(buffer);
    }

    /** An intermediate event, sent only while it leaves a place free for the final one: whether it was sent. */
    private boolean sendIntermediate(ServerSentEvent<Object> event) {
        if (buffer.size() >= maxBuffered - 1) {
            return false;
        }
        return sink.tryEmitNext(event).isSuccess();
    }

    /**
     * The stream's events, delivered on a parallel worker: emitters (the ticker and first status reads complete on
     * Redis's I/O thread) only enqueue, so encoding and writing 10,000 streams never holds up Redis replies.
     */
    Flux<ServerSentEvent<Object>> events() {
        return sink.asFlux().publishOn(Schedulers.parallel(), 8);
    }

    /** The first status, read after the stream was registered, so a result arriving meanwhile is not missed. */
    synchronized void start(StatusService.Tracked tracked, long nowNanos) {
        if (finished) {
            return;
        }
        if (tracked.status().isFinal()) {
            finish(tracked.status());
            return;
        }
        sequence = tracked.sequence();
        drawAt = tracked.inDraw() ? tracked.status().drawAt() : null;
        odds = tracked.inDraw() ? Odds.of(tracked.status().draw()) : null;
        position = tracked.inDraw() ? 0 : tracked.status().position();
        lastSentNanos = nowNanos;
        sendIntermediate(event(tracked.status()));
    }

    /** The member's admission sequence while waiting, 0 before the first status and once finished. */
    synchronized long waitingSequence() {
        return finished ? 0 : sequence;
    }

    /** When the draw this member waits for takes place; null when they are not in a pending draw. */
    synchronized Instant awaitingDraw() {
        return finished ? null : drawAt;
    }

    /**
     * The draw's odds as the last tick read them: while the member waits for the draw, a new status when they changed
     * (more entrants, fewer places, the window closed) and the last event is at least {@code minGapNanos} old.
     */
    synchronized void odds(Odds now, IssuePace.Pace pace, long nowNanos, long minGapNanos) {
        if (finished || drawAt == null || now.state() == 0 || now.equals(odds)) {
            return;
        }
        if (nowNanos - lastSentNanos < minGapNanos) {
            return;
        }
        IssueStatus status = IssueStatus.inDraw(
                couponId,
                memberId,
                now.entrants(),
                now.places(),
                now.state() == 2,
                drawAt,
                System.currentTimeMillis(),
                pace);
        if (sendIntermediate(event(status))) {
            odds = now;
            lastSentNanos = nowNanos;
        }
    }

    /** The draw placed this member at {@code sequence}: from now on the stream follows the queue like any other. */
    synchronized void drawn(long placed) {
        if (finished || drawAt == null) {
            return;
        }
        drawAt = null;
        odds = null;
        sequence = placed;
        position = 0;
        lastSentNanos = 0;
    }

    /** Sends the new position when it moved and the last event is at least {@code minGapNanos} old. */
    synchronized void progress(long done, IssuePace.Pace pace, long nowNanos, long minGapNanos) {
        if (finished || sequence == 0) {
            return;
        }
        boolean first = lastSentNanos == 0;
        IssueStatus status = IssueStatus.waiting(couponId, memberId, sequence, done, pace);
        if (!first && (status.position() == position || nowNanos - lastSentNanos < minGapNanos)) {
            return;
        }
        if (sendIntermediate(event(status))) {
            position = status.position();
            lastSentNanos = nowNanos;
        }
    }

    /** Sends the final status and closes the stream; later calls do nothing. */
    synchronized void finish(IssueStatus status) {
        finish(event(status));
    }

    /**
     * Ends the stream with a final {@link #REPLACED} or {@link #RECONNECT} event instead of a status; nothing when it
     * has ended already.
     */
    synchronized void end(String name, String detail) {
        finish(ServerSentEvent.<Object>builder(new Ending(couponId, name, detail))
                .event(name)
                .build());
    }

    /** Whether the stream has ended (a final event was sent, or it was closed). */
    synchronized boolean ended() {
        return finished;
    }

    private void finish(ServerSentEvent<Object> last) {
        if (finished) {
            return;
        }
        finished = true;
        // the one place sendIntermediate keeps free is this event's
        sink.tryEmitNext(last);
        sink.tryEmitComplete();
    }

    /** Ends the stream without a final status (the instance shuts down; the client reconnects elsewhere). */
    synchronized void close() {
        finished = true;
        sink.tryEmitComplete();
    }

    synchronized void heartbeat() {
        if (!finished) {
            sendIntermediate(
                    ServerSentEvent.<Object>builder().comment("heartbeat").build());
        }
    }

    /**
     * A draw's odds as live_tick.lua reads them: the entrants, the places, and the state (draw.lua's {@code
     * draw_window}: 1 the window is open, 2 the draw is being made, 0 there is nothing to wait for).
     */
    record Odds(long entrants, long places, int state) {

        static Odds of(IssueStatus.DrawOdds draw) {
            return new Odds(draw.entrants(), draw.places(), draw.state() == IssueStatus.DrawState.DRAWING ? 2 : 1);
        }
    }

    private static ServerSentEvent<Object> event(IssueStatus status) {
        return ServerSentEvent.<Object>builder(status).event(EVENT).build();
    }
}
