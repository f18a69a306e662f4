package com.flashcoupon.api.draw;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * The entrant set frozen at the window's close (issue 33, security review N1 (c), correctness review N4): its count and
 * root recorded in MySQL before any ticket is computed, a Redis set that differs refused, and the draw recorded before
 * any member is told it, so that a Redis loss in between tells no member anything that later changes. The drain is held
 * (no placed member is handed to Kafka, where only the worker, absent here, would decide them after a Redis loss).
 */
@ApiTest
@TestPropertySource(properties = {"coupon.draw.check-every=1h", "coupon.drain.tick=1h"})
class DrawFrozenSetTest extends FairStartTestBase {

    @Autowired
    MeterRegistry meters;

    @Test
    void shouldRefuseToDrawOnASetAnEntrantWasAddedToAfterTheWindowClosed() {
        long id = fairStart(2);
        members("entrant", 4).forEach(member -> ask(id, member, 202));
        endWindow(id);
        assertThat(draw(ask(id, "entrant-1", 200)))
                .as("the window is closed, its four entrants frozen")
                .containsEntry("state", "DRAWING")
                .containsEntry("entrants", 4);
        double refusedBefore = refused();

        redis.opsForZSet().add(CouponKeys.draw(id), "sybil-1", 0);
        drawJob.tick();
        drawJob.tick();

        assertThat(refused()).as("coupon_draw_refused_total").isGreaterThan(refusedBefore);
        assertThat(draw(admin(id))).containsEntry("state", "DRAWING").doesNotContainKey("seed");
        assertThat(jdbc.sql("SELECT COUNT(*) FROM coupon_draw_entrant WHERE coupon_id = ?")
                        .param(id)
                        .query(Long.class)
                        .single())
                .as("nothing recorded from the set that differs")
                .isZero();
        assertThat(draw(status(id, "entrant-2"))).containsEntry("state", "DRAWING");

        redis.opsForZSet().remove(CouponKeys.draw(id), "sybil-1");
        Map<String, Object> made = awaitMade(id);
        assertThat(made)
                .containsEntry("entrants", 4)
                .containsEntry("placed", 2)
                .containsEntry("entrantsRoot", made.get("entrantsDigest"));
        client().get()
                .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("sybil-1"))
                .exchange()
                .expectStatus()
                .isNotFound();
    }

    @Test
    void shouldRefuseASetSwappedAfterItWasFrozen() {
        long id = fairStart(2);
        members("entrant", 3).forEach(member -> ask(id, member, 202));
        endWindow(id);
        ask(id, "entrant-1", 200); // closes the window
        byte[] key = jdbc.sql("SELECT pseudonym_key FROM coupon_draw WHERE coupon_id = ?")
                .param(id)
                .query(byte[].class)
                .single();
        String root = DrawRules.hex(DrawRules.entrantsDigest(
                DrawRules.leaves(2, key, members("entrant", 3)).inOrder()));
        // frozen as the draw job freezes it: count and root of the set the window closed on
        jdbc.sql("UPDATE coupon_draw SET frozen_at = NOW(3), frozen_entrants = 3, frozen_root = ? WHERE coupon_id = ?")
                .params(root, id)
                .update();
        double refusedBefore = refused();

        redis.opsForZSet().remove(CouponKeys.draw(id), "entrant-3");
        redis.opsForZSet().add(CouponKeys.draw(id), "sybil-1", 0);
        drawJob.tick();

        assertThat(refused()).isGreaterThan(refusedBefore);
        assertThat(draw(admin(id))).containsEntry("state", "DRAWING").doesNotContainKey("seed");
    }

    @Test
    void shouldTellMembersNothingARedisLossBetweenRecordedAndMadeChanges() {
        long id = fairStart(2);
        List<String> members = members("lost", 5);
        members.forEach(member -> ask(id, member, 202));
        endWindow(id);
        ask(id, "lost-1", 200); // closes the window

        assertThat(drawMaker.recordStep(id))
                .as("the first pass freezes the set")
                .isFalse();
        assertThat(drawMaker.recordStep(id))
                .as("the next one records the draw in MySQL")
                .isTrue();
        for (String member : members) {
            assertThat(draw(status(id, member)))
                    .as("%s is told nothing before the draw is made", member)
                    .containsEntry("state", "DRAWING");
        }
        Map<String, Integer> places = recordedPlaces(id);
        assertThat(places).hasSize(5);

        flushRedis();
        admin(id); // reads the event, so Redis gets it back from MySQL
        Map<String, Object> made = awaitMade(id);
        assertThat(made).containsEntry("entrants", 5).containsEntry("placed", 2);
        assertThat(recordedPlaces(id)).as("the record is unchanged").isEqualTo(places);
        for (String member : members) {
            assertOutcome(id, member, places.get(member));
        }
    }

    @Test
    void shouldAnswerMembersAsBeforeWhenRedisIsLostAfterTheDrawIsMade() {
        long id = fairStart(2);
        List<String> members = members("after", 5);
        members.forEach(member -> ask(id, member, 202));
        endWindow(id);
        awaitMade(id);
        Map<String, Integer> places = recordedPlaces(id);
        for (String member : members) {
            assertOutcome(id, member, places.get(member));
        }

        flushRedis();
        admin(id);

        for (String member : members) {
            assertOutcome(id, member, places.get(member));
        }
        assertThat(draw(admin(id))).containsEntry("state", "MADE").containsEntry("entrants", 5);
    }

    private void assertOutcome(long id, String member, Integer place) {
        Map<String, Object> status = status(id, member);
        if (place == null) {
            assertThat(status)
                    .as("%s, left out", member)
                    .containsEntry("status", "FAILED")
                    .containsEntry("failureReason", "SOLD_OUT");
        } else {
            assertThat(status).as("%s, placed %d", member, place).containsEntry("status", "WAITING");
            assertThat(draw(status)).as("%s's own line of the draw", member).containsEntry("place", place);
        }
    }

    private Map<String, Integer> recordedPlaces(long id) {
        Map<String, Integer> places = new HashMap<>();
        jdbc.sql("SELECT member_id, place FROM coupon_draw_entrant WHERE coupon_id = ?")
                .param(id)
                .query((rs, row) -> places.put(rs.getString(1), rs.getObject(2, Integer.class)))
                .list();
        return places;
    }

    private double refused() {
        var counter = meters.find("coupon.draw.refused").counter();
        return counter == null ? 0 : counter.count();
    }
}
