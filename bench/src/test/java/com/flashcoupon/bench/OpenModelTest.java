package com.flashcoupon.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

class OpenModelTest {

    private static final long MS = 1_000_000L;

    /** A clock that only moves when waited on, delivering the answers due on the way, in time order. */
    static final class FakeTimeline implements OpenModel.Timeline {
        record Due(long at, long order, Runnable answer) {}

        long now;
        long order;
        final PriorityQueue<Due> due = new PriorityQueue<>(
                (a, b) -> a.at() != b.at() ? Long.compare(a.at(), b.at()) : Long.compare(a.order(), b.order()));

        @Override
        public long now() {
            return now;
        }

        @Override
        public void sleepUntil(long nanos) {
            while (!due.isEmpty() && due.peek().at() <= nanos) {
                Due next = due.poll();
                now = Math.max(now, next.at());
                next.answer().run();
            }
            now = Math.max(now, nanos);
        }

        void at(long nanos, Runnable answer) {
            due.add(new Due(nanos, order++, answer));
        }
    }

    /** One server, first come first served, 1 ms per request, that stops answering between two moments. */
    static final class StallingServer implements OpenModel.Sender {
        final FakeTimeline time;
        final long stallFrom;
        final long stallTo;
        final List<Long> sentAt = new ArrayList<>();
        long freeAt;

        StallingServer(FakeTimeline time, long stallFrom, long stallTo) {
            this.time = time;
            this.stallFrom = stallFrom;
            this.stallTo = stallTo;
        }

        @Override
        public void send(int index, OpenModel.Completion done) {
            sentAt.add(time.now());
            long start = Math.max(time.now(), freeAt);
            if (start >= stallFrom && start < stallTo) {
                start = stallTo;
            }
            freeAt = start + MS;
            time.at(freeAt, () -> done.answered("202"));
        }
    }

    @Test
    void intendedStartsFollowTheRateWithoutDrift() {
        assertThat(OpenModel.intendedStart(0, 10_000, 0)).isZero();
        assertThat(OpenModel.intendedStart(0, 10_000, 1)).isEqualTo(100_000);
        assertThat(OpenModel.intendedStart(5, 10_000, 10_000)).isEqualTo(1_000_000_005L);
        // a rate whose period is not a whole number of nanoseconds still lands on the second
        assertThat(OpenModel.intendedStart(0, 3, 3)).isEqualTo(1_000_000_000L);
        assertThat(OpenModel.intendedStart(0, 7_000, 7_000_000)).isBetween(999_999_999_000L, 1_000_000_000_000L);
    }

    @Test
    void startsEveryRequestOnScheduleWhateverTheServerDoes() {
        FakeTimeline time = new FakeTimeline();
        StallingServer server = new StallingServer(time, 1_000 * MS, 2_000 * MS);

        OpenModel.Result result = new OpenModel(time).run("t", 10, 500, 2_000, server, Duration.ofSeconds(30));

        assertThat(server.sentAt).hasSize(2_000);
        for (int i = 0; i < server.sentAt.size(); i++) {
            assertThat(server.sentAt.get(i)).isEqualTo(OpenModel.intendedStart(0, 500, i));
        }
        assertThat(result.maxStartLag()).isZero();
        assertThat(result.measured().count("202")).isEqualTo(2_000);
        assertThat(result.unfinished()).isZero();
    }

    @Test
    void aStallShowsInTheLatencyOfEveryRequestThatWaitedForIt() {
        FakeTimeline time = new FakeTimeline();
        // 500/s for 4 s; the server is gone from 1 s to 2 s
        StallingServer server = new StallingServer(time, 1_000 * MS, 2_000 * MS);

        Measured m = new OpenModel(time)
                .run("t", 10, 500, 2_000, server, Duration.ofSeconds(30))
                .measured();

        // timed from the intended start: the request due at 1.0 s waited the whole second
        assertThat(m.maxMillis()).isBetween(990.0, 1_010.0);
        // 500 requests arrived during the stall and more queued behind them: well over 1% waited half a second
        assertThat(m.millis(99)).isGreaterThan(500);
        // before the stall, each request only took its 1 ms of service
        assertThat(m.millis(50)).isLessThan(m.millis(99));
        assertThat(m.latencyMicros().getMinValue()).isBetween(999L, 1_001L);
    }

    @Test
    void aClientThatFallsBehindItsScheduleIsToldAndStillTimedFromTheIntendedStart() {
        FakeTimeline time = new FakeTimeline();
        OpenModel.Sender slowToSend = (index, done) -> {
            long sent = time.now();
            time.now += 3 * MS; // sending itself takes 3 ms: the schedule (1 ms apart) slips
            time.at(sent + 4 * MS, () -> done.answered("202"));
        };

        OpenModel.Result result = new OpenModel(time).run("t", 10, 1_000, 100, slowToSend, Duration.ofSeconds(5));

        assertThat(result.maxStartLag()).isGreaterThan(Duration.ofMillis(100));
        // the last request was due at 99 ms but sent at 297 ms: its latency counts the slip
        assertThat(result.measured().maxMillis()).isGreaterThan(190);
    }

    @Test
    void requestsNeverAnsweredCountAsErrorsAfterTheDrainTimeout() {
        FakeTimeline time = new FakeTimeline();
        OpenModel.Sender halfLost = (index, done) -> {
            if (index % 2 == 0) {
                time.at(time.now() + MS, () -> done.answered("202"));
            }
        };

        OpenModel.Result result = new OpenModel(time).run("t", 10, 1_000, 100, halfLost, Duration.ofSeconds(2));

        assertThat(result.unfinished()).isEqualTo(50);
        assertThat(result.measured().count("202")).isEqualTo(50);
        assertThat(result.measured().count(Measured.NO_ANSWER)).isEqualTo(50);
        assertThat(result.measured().errors()).isEqualTo(50);
    }
}
