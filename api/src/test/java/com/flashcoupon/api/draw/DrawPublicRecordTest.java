package com.flashcoupon.api.draw;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.TestEnvironment;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The draw's public record (issue 33): a member token and no token at all read the commitment from the announcement,
 * the frozen set's root after the window and before the draw, and the seed after it; an event not announced yet reads
 * as an unknown id.
 */
@ApiTest
@TestPropertySource(properties = {"coupon.draw.check-every=1h", "coupon.drain.tick=1h"})
class DrawPublicRecordTest extends FairStartTestBase {

    @Test
    void shouldShowTheCommitmentThenTheRootThenTheSeedToMembersAndToAnyone() throws Exception {
        long id = fairStart(2);
        String commitment = (String) draw(admin(id)).get("commitment");

        Map<String, Object> view = memberView(id, "reader");
        assertThat(draw(view))
                .containsEntry("state", "OPEN")
                .containsEntry("commitment", commitment)
                .containsEntry("entrants", 0)
                .containsKey("drawAt")
                .doesNotContainKeys("seed", "entrantsRoot");
        WebTestClient.ResponseSpec before = publicRecord(id);
        before.expectStatus().isOk().expectHeader().cacheControl(PublicDrawController.BEFORE);
        assertThat(json(before)).containsEntry("commitment", commitment).containsEntry("state", "OPEN");

        List<String> members = members("pub", 3);
        members.forEach(member -> ask(id, member, 202));
        assertThat(json(publicRecord(id))).containsEntry("entrants", 3).containsEntry("places", 2);
        endWindow(id);
        drawJob.tick(); // freezes the set: its root is public, no ticket computed yet

        Map<String, Object> frozen = json(publicRecord(id));
        byte[] key = jdbc.sql("SELECT pseudonym_key FROM coupon_draw WHERE coupon_id = ?")
                .param(id)
                .query(byte[].class)
                .single();
        String root = HexFormat.of()
                .formatHex(DrawRules.entrantsDigest(
                        DrawRules.leaves(2, key, members).inOrder()));
        assertThat(frozen)
                .containsEntry("state", "DRAWING")
                .containsEntry("entrants", 3)
                .containsEntry("entrantsRoot", root)
                .doesNotContainKey("seed");
        assertThat(draw(memberView(id, "reader"))).containsEntry("entrantsRoot", root);

        awaitMade(id);
        WebTestClient.ResponseSpec after = publicRecord(id);
        after.expectStatus().isOk().expectHeader().cacheControl(PublicDrawController.MADE);
        Map<String, Object> made = json(after);
        assertThat(made)
                .containsEntry("state", "MADE")
                .containsEntry("commitment", commitment)
                .containsEntry("entrants", 3)
                .containsEntry("placed", 2)
                .containsEntry("entrantsRoot", root)
                .containsEntry("functionVersion", 2)
                .containsEntry("entrantsPath", "/public/v1/coupons/" + id + "/draw/entrants");
        byte[] seed = HexFormat.of().parseHex((String) made.get("seed"));
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(seed)))
                .isEqualTo(commitment);
        assertThat(draw(memberView(id, "reader"))).isEqualTo(made);
    }

    @Test
    void shouldAnswerAnEventNotAnnouncedYetAsAnUnknownId() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        long id = createCoupon(Map.of(
                "name",
                "Later",
                "totalQuantity",
                5,
                "openAt",
                now.plusSeconds(7200).toString(),
                "announceAt",
                now.plusSeconds(3600).toString(),
                "issueRatePerSecond",
                10,
                "queueing",
                "RANDOMIZED_START",
                "queueingWindowSeconds",
                60));
        String unannounced = problemCode(publicRecord(id), 404);
        String unknown = problemCode(publicRecord(987_654_321L), 404);
        assertThat(unannounced).isEqualTo(unknown).isEqualTo("COUPON_NOT_FOUND");
        long fifo = createCoupon(5, 10);
        assertThat(problemCode(publicRecord(fifo), 404)).isEqualTo("COUPON_NOT_FOUND");
        assertThat(memberView(fifo, "reader")).doesNotContainKey("draw");
    }

    @Test
    void shouldRefuseBadInputWithAProblem() {
        assertThat(problemCode(client().get().uri("/public/v1/coupons/abc/draw").exchange(), 400))
                .isEqualTo("INVALID_REQUEST");
        assertThat(problemCode(client().get().uri("/public/v1/coupons/0/draw").exchange(), 400))
                .isEqualTo("INVALID_REQUEST");
    }

    private WebTestClient.ResponseSpec publicRecord(long id) {
        return client().get().uri("/public/v1/coupons/{id}/draw", id).exchange();
    }

    private Map<String, Object> memberView(long id, String member) {
        return json(client().get()
                .uri("/api/v1/coupons/{id}", id)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(member))
                .exchange()
                .expectStatus()
                .isOk());
    }

    private static String problemCode(WebTestClient.ResponseSpec spec, int status) {
        return (String) json(spec.expectStatus().isEqualTo(status)).get("code");
    }
}
