package com.flashcoupon.api.draw;

import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;

/**
 * Helpers for the tests of a fair start's draw written after {@code DrawApiTest}: an event with an hour's window, its
 * end by moving the event's times an hour back (MySQL, then mirrored as an operator's change is), the draw job run when
 * a test means the draw to be made, and the member's, operator's and public reads. Subclasses hold the job's schedule
 * at an hour ({@code coupon.draw.check-every=1h}).
 */
abstract class FairStartTestBase extends ApiTestBase {

    protected final StringRedisTemplate redis = TestEnvironment.redis();

    @Autowired
    protected DrawJob drawJob;

    @Autowired
    protected DrawMaker drawMaker;

    protected long fairStart(int quantity) {
        return fairStart(quantity, 1);
    }

    /** The same with its admission state over {@code stockShards} (docs/architecture.md, "Stock shards"). */
    protected long fairStart(int quantity, int stockShards) {
        return createCoupon(Map.of(
                "name",
                "Fair start",
                "totalQuantity",
                quantity,
                "openAt",
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1,
                "queueing",
                "RANDOMIZED_START",
                "queueingWindowSeconds",
                3600,
                "stockShards",
                stockShards));
    }

    /** The window is over: the event's times move an hour back in MySQL, then an operator's change mirrors them. */
    protected void endWindow(long id) {
        jdbc.sql("UPDATE coupon SET open_at = open_at - INTERVAL 1 HOUR WHERE id = ?")
                .param(id)
                .update();
        jdbc.sql("UPDATE coupon_draw SET draw_at = draw_at - INTERVAL 1 HOUR WHERE coupon_id = ?")
                .param(id)
                .update();
        client().patch()
                .uri("/admin/v1/coupons/{id}", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("issueRatePerSecond", 1))
                .exchange()
                .expectStatus()
                .isOk();
    }

    /** Runs the draw job until the admin view says the draw is made; the admin view's draw then. */
    protected Map<String, Object> awaitMade(long id) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    drawJob.tick();
                    return "MADE".equals(draw(admin(id)).get("state"));
                });
        return draw(admin(id));
    }

    protected Map<String, Object> admin(long id) {
        return json(client().get()
                .uri("/admin/v1/coupons/{id}", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectStatus()
                .isOk());
    }

    @SuppressWarnings("unchecked")
    protected static Map<String, Object> draw(Map<String, Object> view) {
        return (Map<String, Object>) view.get("draw");
    }

    protected Map<String, Object> ask(long id, String member, int status) {
        return json(requestCoupon(id, member).expectStatus().isEqualTo(status));
    }

    protected Map<String, Object> status(long id, String member) {
        return json(client().get()
                .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(member))
                .exchange()
                .expectStatus()
                .isOk());
    }

    protected void flushRedis() {
        redis.execute((org.springframework.data.redis.core.RedisCallback<Object>) connection -> {
            connection.serverCommands().flushDb();
            return null;
        });
    }

    protected static List<String> members(String prefix, int count) {
        return IntStream.rangeClosed(1, count).mapToObj(i -> prefix + "-" + i).toList();
    }

    protected static Map<String, Object> json(
            org.springframework.test.web.reactive.server.WebTestClient.ResponseSpec spec) {
        return spec.expectBody(new ParameterizedTypeReference<Map<String, Object>>() {})
                .returnResult()
                .getResponseBody();
    }
}
