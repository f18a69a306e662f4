package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.contract.CouponKeys;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * What the gate refused, and what COUNT_ONLY would have refused, are figures of the event like its sold-out refusals:
 * kept in MySQL (saved while the event is live and at its retirement), so that they read the same after the event
 * retired and after Redis lost it; COUNT_ONLY's distinct members stay distinct across a loss. A retired event's
 * answers stay what they were: NOT_ELIGIBLE for a member the gate refused.
 */
@ApiTest
class GateCountsTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    private long scheduled(String mode) {
        Map<String, Object> body = listedEventInAnHour();
        body.put("eligibilityMode", mode);
        body.put(
                "announceAt",
                Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS).toString());
        long id = createCoupon(body);
        client().put()
                .uri("/admin/v1/coupons/{id}/eligible-members", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.TEXT_PLAIN)
                .bodyValue("in-1\n")
                .exchange()
                .expectStatus()
                .isOk();
        return id;
    }

    /** Opens the event now (its row's openAt moves to the past, Redis' meta goes and is mirrored again). */
    private void open(long id) {
        var past = java.sql.Timestamp.from(Instant.now().minusSeconds(60));
        jdbc.sql("UPDATE coupon SET open_at = ?, version = version + 1 WHERE id = ?")
                .params(past, id)
                .update();
        redis.delete(CouponKeys.meta(id));
    }

    private WebTestClient.ResponseSpec ask(long id, String member) {
        return client().post()
                .uri("/api/v1/coupons/{id}/issue-requests", id)
                .header("Authorization", "Bearer " + Tokens.member(member))
                .exchange();
    }

    private long refused(long id, String rule) {
        return figure(id, "refused", rule);
    }

    private long wouldRefuse(long id, String rule) {
        return figure(id, "wouldRefuse", rule);
    }

    private long figure(long id, String field, String rule) {
        Map<?, ?> view = adminGet("/admin/v1/coupons/{id}/eligibility", id);
        return ((Number) ((Map<?, ?>) view.get(field)).get(rule)).longValue();
    }

    private long saved(long id, String column) {
        return jdbc.sql("SELECT " + column + " FROM coupon_gate WHERE coupon_id = ?")
                .param(id)
                .query(Long.class)
                .single();
    }

    @Test
    void shouldKeepTheGateCountsThroughARedisLoss() {
        long enforced = scheduled("ENFORCE");
        long counted = scheduled("COUNT_ONLY");
        open(enforced);
        open(counted);
        ask(enforced, "in-1").expectStatus().isAccepted();
        expectProblem(ask(enforced, "s-1"), 403, "NOT_ELIGIBLE");
        expectProblem(ask(enforced, "s-2"), 403, "NOT_ELIGIBLE");
        ask(counted, "in-1").expectStatus().isAccepted();
        ask(counted, "o-1").expectStatus().isAccepted();
        ask(counted, "o-2").expectStatus().isAccepted();
        // saved while the events are live (the retire pass, every few seconds)
        await().atMost(Duration.ofSeconds(60))
                .until(() -> saved(enforced, "refused_list") == 2 && saved(counted, "would_refuse_list") == 2);

        redis.delete(CouponKeys.state(enforced)); // Redis lost both events
        redis.delete(CouponKeys.state(counted));

        assertThat(refused(enforced, "list")).as("refusals read after the loss").isEqualTo(2);
        assertThat(wouldRefuse(counted, "list"))
                .as("would-be refusals read after the loss")
                .isEqualTo(2);

        expectProblem(ask(enforced, "s-3"), 403, "NOT_ELIGIBLE");
        assertThat(refused(enforced, "list")).isEqualTo(3);
        assertThat(redis.opsForHash().get(CouponKeys.stats(enforced), "refusedList"))
                .as("the count went on from what was saved")
                .isEqualTo("3");
        // o-1 again is the same member: counted once; o-3 is a new one
        ask(counted, "o-1").expectStatus().is2xxSuccessful();
        ask(counted, "o-3").expectStatus().isAccepted();
        assertThat(wouldRefuse(counted, "list")).isEqualTo(3);
    }

    @Test
    void shouldKeepTheGateCountsAndAnswersOfARetiredEvent() {
        long enforced = scheduled("ENFORCE");
        long counted = scheduled("COUNT_ONLY");
        // asked before the events open: the gate answers first (and counts), then "not open yet"
        expectProblem(ask(enforced, "s-1"), 403, "NOT_ELIGIBLE");
        expectProblem(ask(enforced, "s-2"), 403, "NOT_ELIGIBLE");
        expectProblem(ask(counted, "o-1"), 409, "NOT_OPEN");
        // for a second after a "not open yet", the api answers it without Redis (and the gate does not count): o-2 asks
        // until Redis has answered it
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            expectProblem(ask(counted, "o-2"), 409, "NOT_OPEN");
            return wouldRefuse(counted, "list") == 2;
        });
        for (long id : new long[] {enforced, counted}) {
            client().post()
                    .uri("/admin/v1/coupons/{id}/close", id)
                    .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                    .exchange()
                    .expectStatus()
                    .is2xxSuccessful();
            // settled long ago: the retire pass retires it now
            jdbc.sql("UPDATE coupon SET settled_at = NOW(3) - INTERVAL 2 DAY WHERE id = ?")
                    .param(id)
                    .update();
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !redis.hasKey(CouponKeys.meta(enforced)) && !redis.hasKey(CouponKeys.meta(counted)));
        assertThat(jdbc.sql("SELECT COUNT(*) FROM coupon WHERE id IN (?, ?) AND retired_at IS NOT NULL")
                        .params(enforced, counted)
                        .query(Long.class)
                        .single())
                .isEqualTo(2);

        // answered from MySQL as Redis answered before the retirement
        expectProblem(ask(enforced, "s-3"), 403, "NOT_ELIGIBLE");
        expectProblem(ask(enforced, "in-1"), 409, "NOT_OPEN");
        expectProblem(ask(counted, "o-3"), 409, "NOT_OPEN");
        assertThat(refused(enforced, "list")).isEqualTo(2);
        assertThat(wouldRefuse(counted, "list")).isEqualTo(2);
    }
}
