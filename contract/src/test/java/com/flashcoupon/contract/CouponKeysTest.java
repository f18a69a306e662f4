package com.flashcoupon.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

class CouponKeysTest {

    @Test
    void shouldShareOneHashTagWhenKeysBelongToOneCoupon() {
        List<LongFunction<String>> keys = List.of(
                CouponKeys::meta,
                CouponKeys::queue,
                CouponKeys::seq,
                CouponKeys::cursor,
                CouponKeys::result,
                CouponKeys::done,
                CouponKeys::stats,
                CouponKeys::lease,
                CouponKeys::restoring,
                CouponKeys::draw,
                CouponKeys::drawLease,
                CouponKeys::eligible,
                CouponKeys::eligibleVersion,
                CouponKeys::eligibleLoading,
                id -> CouponKeys.wouldRefuse(id, "list"),
                id -> CouponKeys.wouldRefuse(id, "claims"),
                CouponKeys::retired);
        assertThat(keys).allSatisfy(key -> assertThat(key.apply(42)).startsWith("{cpn:42}:"));
        assertThat(keys.stream().map(key -> key.apply(42)).distinct()).hasSize(keys.size());
    }

    @Test
    void shouldNameEveryStateKeyButTheRetiredMarkWhenListingWhatRetirementRemoves() {
        assertThat(CouponKeys.state(42))
                .containsExactlyInAnyOrder(
                        CouponKeys.meta(42),
                        CouponKeys.queue(42),
                        CouponKeys.seq(42),
                        CouponKeys.cursor(42),
                        CouponKeys.result(42),
                        CouponKeys.done(42),
                        CouponKeys.stats(42),
                        CouponKeys.lease(42),
                        CouponKeys.restoring(42),
                        CouponKeys.draw(42),
                        CouponKeys.drawLease(42),
                        CouponKeys.eligible(42),
                        CouponKeys.eligibleVersion(42),
                        CouponKeys.eligibleLoading(42),
                        CouponKeys.wouldRefuse(42, "list"),
                        CouponKeys.wouldRefuse(42, "claims"))
                .doesNotContain(CouponKeys.retired(42));
    }

    @Test
    void shouldKeepRequestIdStableWhenRepublished() {
        var first = new IssueRequested(7, "m-1", 3, 1000);
        var again = new IssueRequested(7, "m-1", 3, 1000);
        assertThat(first.requestId()).isEqualTo(again.requestId()).isEqualTo("7:m-1");
    }
}
