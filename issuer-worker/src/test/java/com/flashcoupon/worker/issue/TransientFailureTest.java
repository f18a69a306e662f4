package com.flashcoupon.worker.issue;

import static com.flashcoupon.worker.support.Pipeline.requests;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.IssueResult.Outcome;
import com.flashcoupon.worker.support.FlakyDataSource;
import com.flashcoupon.worker.support.PipelineTestSupport;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

/** An outage is waited out, never dead-lettered: MySQL refuses connections for a while, in this context only. */
@Import(FlakyDataSource.Installer.class)
class TransientFailureTest extends PipelineTestSupport {

    @Autowired
    DataSource dataSource;

    @Autowired
    MeterRegistry meters;

    @Nested
    class MySqlOutage {

        @Test
        void shouldIssueEverythingAndDeadLetterNothingWhenConnectionsAreRefusedForAWhile() {
            FlakyDataSource mysql = (FlakyDataSource) dataSource;
            long id = pipeline.newCoupon(10);
            // more failures than poison records get retries (2): a misclassified outage would dead-letter
            mysql.refuseNext(6);

            pipeline.publish(requests(id, 1, 10));

            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(pipeline.results(id)).hasSize(10));
            assertThat(mysql.refused()).isEqualTo(6);
            assertThat(pipeline.results(id))
                    .allSatisfy(r -> assertThat(r.outcome()).isEqualTo(Outcome.ISSUED));
            assertThat(pipeline.wallets(id)).hasSize(10);
            assertThat(pipeline.deadLetters(id)).isEmpty();
            assertThat(pipeline.coupon(id).deadLetteredCount()).isZero();
            assertThat(pipeline.done(id)).isEqualTo(10);
            assertThat(meters.counter("coupon.worker.retries", "kind", "transient")
                            .count())
                    .isGreaterThanOrEqualTo(6);
        }
    }
}
