package com.flashcoupon.worker.issue;

import static com.flashcoupon.worker.support.Pipeline.requests;
import static com.flashcoupon.worker.support.RequestPublisher.json;
import static com.flashcoupon.worker.support.RequestPublisher.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.FailureReason;
import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.IssueResult.Outcome;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.TestDatabase;
import com.flashcoupon.worker.support.Pipeline;
import com.flashcoupon.worker.support.Pipeline.Failure;
import com.flashcoupon.worker.support.Pipeline.Wallet;
import com.flashcoupon.worker.support.PipelineTest;
import com.flashcoupon.worker.support.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The worker end to end: requested records in, wallets, counters, Redis statuses and result events out. */
@PipelineTest
class IssuePipelineTests {

    private static final TestDatabase database = TestDatabase.create();
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @DynamicPropertySource
    static void services(DynamicPropertyRegistry registry) {
        Pipeline.register(registry, database);
    }

    @BeforeAll
    static void flushRedis() {
        TestRedis.flush();
    }

    @AfterAll
    static void dropDatabase() {
        database.close();
    }

    @Autowired
    Pipeline pipeline;

    @Autowired
    MeterRegistry meters;

    private double poisonDeliveries() {
        return meters.counter("coupon.worker.poison").count();
    }

    private List<IssueResult> awaitResults(long couponId, int count) {
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(pipeline.results(couponId)).hasSizeGreaterThanOrEqualTo(count));
        List<IssueResult> results = pipeline.results(couponId);
        assertThat(results).hasSize(count);
        return results;
    }

    private static Map<String, Long> walletIdByMember(List<Wallet> wallets) {
        return wallets.stream().collect(Collectors.toMap(Wallet::memberId, Wallet::id));
    }

    @Nested
    class Issuing {

        @Test
        void shouldIssueEveryRequestWhenStockCoversThem() {
            long id = pipeline.newCoupon(50);

            pipeline.publish(requests(id, 1, 50));

            List<IssueResult> results = awaitResults(id, 50);
            List<Wallet> wallets = pipeline.wallets(id);
            Map<String, Long> walletIds = walletIdByMember(wallets);
            assertThat(wallets).hasSize(50);
            assertThat(pipeline.coupon(id).issuedCount()).isEqualTo(50);
            assertThat(results).allSatisfy(result -> {
                assertThat(result.outcome()).isEqualTo(Outcome.ISSUED);
                assertThat(result.eventId()).isEqualTo(id + ":" + result.memberId());
                assertThat(result.walletCouponId()).isEqualTo(walletIds.get(result.memberId()));
                assertThat(result.decidedAt()).isPositive();
            });
            assertThat(pipeline.statuses(id))
                    .hasSize(50)
                    .containsEntry("m-1", "I:" + walletIds.get("m-1"))
                    .containsEntry("m-50", "I:" + walletIds.get("m-50"));
            assertThat(pipeline.done(id)).isEqualTo(50);
        }

        @Test
        void shouldCarryTheRowsIssuedAtExactlyWhenResultIsPublished() {
            long id = pipeline.newCoupon(3);

            pipeline.publish(requests(id, 1, 3));

            List<IssueResult> results = awaitResults(id, 3);
            Map<String, Long> issuedAt = pipeline.issuedAtMillis(id);
            assertThat(results).allSatisfy(r -> assertThat(r.decidedAt()).isEqualTo(issuedAt.get(r.memberId())));
            assertThat(issuedAt.values())
                    .allSatisfy(millis -> assertThat(millis).isCloseTo(System.currentTimeMillis(), within(60_000L)));
        }

        @Test
        void shouldFollowSequenceOrderWhenRecordsOfOneBatchArriveShuffled() {
            long id = pipeline.newCoupon(30);
            List<IssueRequested> shuffled = new ArrayList<>(requests(id, 1, 30));
            Collections.shuffle(shuffled, new Random(7));

            pipeline.publish(shuffled);

            awaitResults(id, 30);
            assertThat(pipeline.wallets(id)).extracting(Wallet::requestSeq).isSorted();
        }

        @Test
        void shouldFollowSequenceOrderWhenRequestsArriveInManyBatches() {
            long id = pipeline.newCoupon(200);

            for (int from = 1; from <= 200; from += 40) {
                pipeline.publish(requests(id, from, from + 39));
            }

            awaitResults(id, 200);
            assertThat(pipeline.wallets(id))
                    .extracting(Wallet::requestSeq)
                    .isSorted()
                    .hasSize(200);
        }
    }

    @Nested
    class SoldOut {

        @Test
        void shouldFailTheRestSoldOutWhenRequestsExceedStock() {
            long id = pipeline.newCoupon(10);

            pipeline.publish(requests(id, 1, 7));
            pipeline.publish(requests(id, 8, 25));

            List<IssueResult> results = awaitResults(id, 25);
            assertThat(pipeline.wallets(id))
                    .hasSize(10)
                    .extracting(Wallet::memberId)
                    .containsExactlyElementsOf(requests(id, 1, 10).stream()
                            .map(IssueRequested::memberId)
                            .toList());
            assertThat(results.stream().filter(r -> r.outcome() == Outcome.ISSUED))
                    .hasSize(10);
            assertThat(results.stream().filter(r -> r.outcome() == Outcome.FAILED))
                    .hasSize(15)
                    .allSatisfy(r -> {
                        assertThat(r.failureReason()).isEqualTo(FailureReason.SOLD_OUT.name());
                        assertThat(r.sequence()).isGreaterThan(10);
                        assertThat(r.walletCouponId()).isNull();
                    });
            assertThat(pipeline.failures(id))
                    .hasSize(15)
                    .allSatisfy(failure -> assertThat(failure.reason()).isEqualTo("SOLD_OUT"));
            Coupon coupon = pipeline.coupon(id);
            assertThat(coupon.issuedCount()).isEqualTo(10);
            assertThat(coupon.failedCount()).isEqualTo(15);
            assertThat(pipeline.statuses(id)).hasSize(25).containsEntry("m-25", "F:SOLD_OUT");
            assertThat(pipeline.done(id)).isEqualTo(25);
        }
    }

    @Nested
    class Replay {

        @Test
        void shouldReEmitSameResultsWithoutWritingWhenBatchIsPublishedTwice() {
            long id = pipeline.newCoupon(15);
            List<IssueRequested> batch = requests(id, 1, 20);
            pipeline.publish(batch);
            Map<String, IssueResult> first = byEventId(awaitResults(id, 20));

            pipeline.publish(batch);

            List<IssueResult> all = awaitResults(id, 40);
            assertThat(byEventId(all.subList(20, 40))).isEqualTo(first);
            assertThat(pipeline.wallets(id)).hasSize(15);
            assertThat(pipeline.failures(id)).hasSize(5);
            Coupon coupon = pipeline.coupon(id);
            assertThat(coupon.issuedCount()).isEqualTo(15);
            assertThat(coupon.failedCount()).isEqualTo(5);
            assertThat(pipeline.statuses(id)).hasSize(20);
            assertThat(pipeline.done(id)).isEqualTo(20);
        }

        private static Map<String, IssueResult> byEventId(List<IssueResult> results) {
            return results.stream().collect(Collectors.toMap(IssueResult::eventId, Function.identity()));
        }
    }

    @Nested
    class Poison {

        @Test
        void shouldDeadLetterPoisonRecordsAndIssueTheGoodOnesAroundThemWhenBatchHasBoth() {
            long id = pipeline.newCoupon(10);
            long unknown = id + 1_000_000;
            List<IssueRequested> good = requests(id, 1, 3);
            byte[] junk = "{\"couponId\": 1, not json".getBytes(StandardCharsets.UTF_8);
            byte[] unknownCoupon = json(new IssueRequested(unknown, "m-x", 1, 0));

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

    @Nested
    class Operations {

        @LocalServerPort
        int port;

        private HttpResponse<String> get(String path) throws Exception {
            try (HttpClient client = HttpClient.newHttpClient()) {
                return client.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
            }
        }

        @Test
        void shouldReportUpWhenHealthIsAsked() throws Exception {
            HttpResponse<String> health = get("/actuator/health");

            assertThat(health.statusCode()).isEqualTo(200);
            JsonNode body = new JsonMapper().readTree(health.body());
            assertThat(body.path("status").asString()).isEqualTo("UP");
            for (String component : List.of("db", "redis", "kafka")) {
                assertThat(body.path("components")
                                .path(component)
                                .path("status")
                                .asString())
                        .as(component)
                        .isEqualTo("UP");
            }
        }

        @Test
        void shouldExposeWorkerMetricsWhenPrometheusScrapes() throws Exception {
            long id = pipeline.newCoupon(1);
            pipeline.publish(requests(id, 1, 1));
            awaitResults(id, 1);

            HttpResponse<String> metrics = get("/actuator/prometheus");

            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body())
                    .contains("coupon_worker_issued_total")
                    .contains("coupon_worker_failed_total{reason=\"SOLD_OUT\"}")
                    .contains("coupon_worker_batch_size")
                    .contains("coupon_worker_write_latency_seconds");
        }

        @Test
        void shouldCloseOtherEndpointsWhenAsked() throws Exception {
            assertThat(get("/actuator/env").statusCode()).isEqualTo(404);
            assertThat(get("/actuator/beans").statusCode()).isEqualTo(404);
        }
    }
}
