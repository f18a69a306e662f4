package com.flashcoupon.worker.issue;

import static com.flashcoupon.worker.support.Pipeline.requests;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.worker.support.PipelineTestSupport;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/** The per-instance write-rate limit holds against a burst. Only a lower bound: a slow machine may take longer. */
@TestPropertySource(properties = "coupon.worker.max-writes-per-second=200")
class ThrottleTest extends PipelineTestSupport {

    @Nested
    class WriteRate {

        @Test
        void shouldTakeAtLeastTwoSecondsWhenSixHundredRecordsMeetTwoHundredPerSecond() {
            long id = pipeline.newCoupon(600);
            long start = System.nanoTime();

            pipeline.publish(requests(id, 1, 600));

            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(pipeline.results(id)).hasSize(600));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            // a full bucket lets 200 through at once, the other 400 take 2 s; allow for timer slack
            assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(1800));
            assertThat(pipeline.wallets(id)).hasSize(600);
        }
    }
}
