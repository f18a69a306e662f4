package com.flashcoupon.api.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.codec.ServerSentEvent;
import reactor.test.StepVerifier;

/**
 * Correctness review F4: a client that reads too slowly loses intermediate events, never the final one. The reader here
 * requests nothing until the result was sent, after more position changes and heartbeats than the buffer holds.
 */
class LiveStreamTest {

    private static final int BUFFERED = 4;
    private static final long COUPON = 7;
    private static final String MEMBER = "slow-reader";

    /** A stream of a member at {@code sequence} 100, with its first status sent. */
    private static LiveStream waiting() {
        LiveStream stream = new LiveStream(COUPON, MEMBER, BUFFERED, 1);
        stream.start(
                new StatusService.Tracked(IssueStatus.waiting(COUPON, MEMBER, 100, 0, 10), 100, false),
                System.nanoTime());
        return stream;
    }

    /** Every event the reader gets once it starts reading, the stream completing after them. */
    private static List<ServerSentEvent<Object>> readAll(LiveStream stream) {
        return stream.events().collectList().block(Duration.ofSeconds(10));
    }

    /** Moves the queue 20 times (every move a new position) with a heartbeat after each: far more than the buffer. */
    private static void flood(LiveStream stream) {
        IssuePace.Pace pace = IssuePace.Pace.configured(10);
        for (int done = 1; done <= 20; done++) {
            stream.progress(done, pace, System.nanoTime() + done * 10_000_000_000L, 0);
            stream.heartbeat();
        }
    }

    @Test
    void shouldDeliverTheResultToAReaderThatFellBehind() {
        LiveStream stream = waiting();
        flood(stream);
        stream.finish(IssueStatus.issued(COUPON, MEMBER, 4242));

        List<ServerSentEvent<Object>> events = readAll(stream);
        assertThat(events).hasSizeLessThanOrEqualTo(BUFFERED);
        ServerSentEvent<Object> last = events.getLast();
        assertThat(last.event()).isEqualTo(LiveStream.EVENT);
        assertThat(last.data())
                .isInstanceOfSatisfying(
                        IssueStatus.class,
                        status -> assertThat(status.walletCouponId()).isEqualTo(4242L));
    }

    @Test
    void shouldDeliverAReconnectOrReplacedEndingToAReaderThatFellBehind() {
        for (String ending : List.of(LiveStream.RECONNECT, LiveStream.REPLACED)) {
            LiveStream stream = waiting();
            flood(stream);
            stream.end(ending, "ends");

            ServerSentEvent<Object> last = readAll(stream).getLast();
            assertThat(last.event()).isEqualTo(ending);
            assertThat(last.data()).isEqualTo(new LiveStream.Ending(stream.couponId, ending, "ends"));
        }
    }

    @Test
    void shouldSendNothingAfterTheFinalEvent() {
        LiveStream stream = waiting();
        stream.finish(IssueStatus.issued(COUPON, MEMBER, 1));
        stream.end(LiveStream.RECONNECT, "too late");
        flood(stream);

        StepVerifier.create(stream.events())
                .expectNextCount(1)
                .assertNext(last -> assertThat(last.event()).isEqualTo(LiveStream.EVENT))
                .verifyComplete();
    }
}
