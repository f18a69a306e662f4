package com.flashcoupon.worker.issue;

import static com.flashcoupon.worker.support.Pipeline.requests;
import static com.flashcoupon.worker.support.RequestPublisher.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.IssueResult.Outcome;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.worker.support.Pipeline.Failure;
import com.flashcoupon.worker.support.PipelineTestSupport;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Records the worker cannot use: dead-lettered or failed UNPROCESSABLE, the good ones around them still issued. */
class PoisonRecordTest extends PipelineTestSupport {

    @Autowired
    MeterRegistry meters;

    private double poisonDeliveries() {
        return meters.counter("coupon.worker.poison").count();
    }

    @Nested
    class Poison {

        @Test
        void shouldDeadLetterPoisonRecordsAndIssueTheGoodOnesAroundThemWhenBatchHasBoth() {
            long id = pipeline.newCoupon(10);
            long unknown = id + 1_000_000;
            List<IssueRequested> good = requests(id, 1, 3);
            byte[] junk = "{\"couponId\": 1, not json".getBytes(StandardCharsets.UTF_8);
            IssueRequested unknownCoupon = new IssueRequested(unknown, "m-x", 1, 0);

            pipeline.publisher()
                    .sendRecords(List.of(
                            record(good.get(0)),
                            record(id, junk),
                            record(good.get(1)),
                            record(id, unknownCoupon),
                            record(good.get(2))));

            await().atMost(PATIENCE).untilAsserted(() -> {
                assertThat(pipeline.results(id)).hasSize(3);
                assertThat(pipeline.deadLetters(id)).hasSize(2);
            });
            assertThat(pipeline.results(id))
                    .allSatisfy(r -> assertThat(r.outcome()).isEqualTo(Outcome.ISSUED));
            assertThat(pipeline.wallets(id)).hasSize(3);
            List<ConsumerRecord<String, byte[]>> deadLetters = pipeline.deadLetters(id);
            assertThat(deadLetters.get(0).value()).isEqualTo(junk);
            assertThat(deadLetters.get(1).value())
                    .asString(StandardCharsets.UTF_8)
                    .contains("\"couponId\":" + unknown);
            assertThat(deadLetters)
                    .allSatisfy(letter -> assertThat(letter.headers().lastHeader("kafka_dlt-exception-fqcn"))
                            .isNotNull());
            // the member of the unknown coupon is still told
            await().atMost(PATIENCE)
                    .untilAsserted(() -> assertThat(pipeline.results(unknown))
                            .singleElement()
                            .satisfies(r -> assertThat(r.failureReason()).isEqualTo("UNPROCESSABLE")));
        }

        /**
         * F12: the records of a coupon whose row is missing (MySQL restored from a backup older than the event) are
         * dead-lettered and their members told, and nothing of that coupon is written to Redis: its keys were once
         * written for an id MySQL does not list, which no pass ever removes.
         */
        @Test
        void shouldDeadLetterEveryRecordOfACouponWithNoRowAndWriteNothingOfItToRedis() {
            long id = pipeline.newCoupon(10);
            long missing = id + 2_000_000;
            List<IssueRequested> good = requests(id, 1, 2);

            pipeline.publisher()
                    .sendRecords(List.of(
                            record(good.get(0)),
                            record(id, new IssueRequested(missing, "m-a", 1, 0)),
                            record(id, new IssueRequested(missing, "m-b", 2, 0)),
                            record(id, new IssueRequested(missing, "m-c", 3, 0)),
                            record(good.get(1))));

            await().atMost(PATIENCE).untilAsserted(() -> {
                assertThat(pipeline.results(id)).hasSize(2);
                assertThat(pipeline.deadLetters(id)).hasSize(3);
                assertThat(pipeline.results(missing)).hasSize(3);
            });
            assertThat(pipeline.results(missing))
                    .allSatisfy(r -> assertThat(r.failureReason()).isEqualTo("UNPROCESSABLE"));
            assertThat(pipeline.statuses(missing))
                    .as("results in Redis of a coupon with no row")
                    .isEmpty();
            assertThat(pipeline.done(missing)).isZero();
        }

        @Test
        void shouldFailUnprocessableAndCountItWhenReadableRecordIsInvalid() {
            long id = pipeline.newCoupon(10);
            List<IssueRequested> good = requests(id, 1, 2);
            IssueRequested invalid = new IssueRequested(id, "m-bad", 0, 0);
            double deliveriesBefore = poisonDeliveries();

            pipeline.publish(List.of(good.get(0), invalid, good.get(1)));

            await().atMost(PATIENCE).untilAsserted(() -> {
                assertThat(pipeline.results(id)).hasSize(3);
                assertThat(pipeline.deadLetters(id)).hasSize(1);
            });
            assertThat(pipeline.results(id))
                    .filteredOn(r -> r.memberId().equals("m-bad"))
                    .singleElement()
                    .satisfies(r -> {
                        assertThat(r.outcome()).isEqualTo(Outcome.FAILED);
                        assertThat(r.failureReason()).isEqualTo("UNPROCESSABLE");
                        assertThat(r.eventId()).isEqualTo(invalid.requestId());
                    });
            assertThat(pipeline.failures(id)).containsExactly(new Failure("m-bad", 0, "UNPROCESSABLE"));
            Coupon coupon = pipeline.coupon(id);
            assertThat(coupon.deadLetteredCount()).isEqualTo(1);
            assertThat(coupon.failedCount()).isEqualTo(1);
            assertThat(coupon.issuedCount()).isEqualTo(2);
            assertThat(pipeline.statuses(id)).containsEntry("m-bad", "F:UNPROCESSABLE");
            assertThat(pipeline.done(id)).isEqualTo(3);
            // bounded: the first delivery and poison-attempts (2) retries, then the dead-letter topic
            assertThat(poisonDeliveries() - deliveriesBefore).isEqualTo(3);
        }
    }
}
