package com.flashcoupon.worker.issue;

import static com.flashcoupon.worker.support.Pipeline.requests;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.flashcoupon.contract.FailureReason;
import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.IssueResult.Outcome;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.worker.support.Pipeline.Wallet;
import com.flashcoupon.worker.support.PipelineTestSupport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The worker end to end: requested records in, wallets, counters, Redis statuses and result events out. */
class IssuePipelineTest extends PipelineTestSupport {

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
}
