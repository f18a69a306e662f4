package com.flashcoupon.api.draw;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.TestEnvironment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * Draw function 2 (issue 33): the draw made over pseudonyms, its whole entrant list published naming nobody, every
 * figure of it recomputed here from the public record alone, and each member told their own line.
 */
@ApiTest
@TestPropertySource(properties = {"coupon.draw.check-every=1h", "coupon.drain.tick=1h"})
class DrawPseudonymTest extends FairStartTestBase {

    private static final HexFormat HEX = HexFormat.of();

    @org.springframework.beans.factory.annotation.Value("${local.server.port}")
    int port;

    @Test
    @SuppressWarnings("unchecked")
    void shouldEndTheLiveStreamOfAMemberLeftOutWithTheirOwnLine() {
        long id = fairStart(1);
        List<String> members = members("streamed", 3);
        members.forEach(member -> ask(id, member, 202));
        List<com.flashcoupon.api.support.MemberStream> streams = members.stream()
                .map(member -> com.flashcoupon.api.support.MemberStream.open(port, id, member))
                .toList();
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(15))
                .until(() ->
                        streams.stream().allMatch(stream -> !stream.statuses().isEmpty()));
        endWindow(id);
        awaitMade(id);
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30))
                .until(() -> streams.stream()
                                .filter(stream -> "FAILED"
                                        .equals(stream.statuses().getLast().get("status")))
                                .count()
                        == 2);
        byte[] key = jdbc.sql("SELECT pseudonym_key FROM coupon_draw WHERE coupon_id = ?")
                .param(id)
                .query(byte[].class)
                .single();
        for (int i = 0; i < members.size(); i++) {
            Map<String, Object> last = streams.get(i).statuses().getLast();
            if ("FAILED".equals(last.get("status"))) {
                assertThat((Map<String, Object>) last.get("draw"))
                        .as("the final event of %s, left out", members.get(i))
                        .containsEntry("state", "MADE")
                        .containsEntry("leftOut", true)
                        .containsEntry("pseudonym", DrawRules.pseudonym(key, members.get(i)))
                        .containsEntry("record", "/public/v1/coupons/" + id + "/draw");
            }
            streams.get(i).close();
        }
    }

    @Test
    void shouldPublishAListAnyoneCanCheckThatNamesNobody() {
        long id = fairStart(2);
        List<String> members = members("pseudo", 5);
        members.forEach(member -> ask(id, member, 202));
        assertThat(json(publicEntrants(id).expectStatus().isEqualTo(409))).containsEntry("code", "DRAW_NOT_MADE");
        endWindow(id);
        awaitMade(id);

        Map<String, Object> record = json(client().get()
                .uri("/public/v1/coupons/{id}/draw", id)
                .exchange()
                .expectStatus()
                .isOk());
        assertThat(record).containsEntry("functionVersion", 2);
        String body = publicEntrants(id)
                .expectStatus()
                .isOk()
                .expectHeader()
                .contentType("text/tab-separated-values;charset=UTF-8")
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        assertThat(body).endsWith("\n").doesNotContain("\r");
        members.forEach(member -> assertThat(body).doesNotContain(member));
        List<String> lines = List.of(body.split("\n"));
        assertThat(lines.getFirst()).isEqualTo("pseudonym\tticket\tplace");
        List<String[]> rows = lines.subList(1, lines.size()).stream()
                .map(l -> l.split("\t", -1))
                .toList();
        assertThat(rows).hasSize(5);

        // recomputed from the public record and the list alone, as docs/architecture.md states function 2
        byte[] seed = HEX.parseHex((String) record.get("seed"));
        List<String> pseudonyms = rows.stream().map(row -> row[0]).toList();
        assertThat(pseudonyms).isSorted().allMatch(p -> p.matches("[0-9a-f]{64}"));
        byte[] root = DrawRules.entrantsDigest(pseudonyms);
        assertThat(record).containsEntry("entrantsRoot", HEX.formatHex(root));
        var tickets = new DrawRules.Tickets(seed, root);
        List<String> byTicket = new ArrayList<>(pseudonyms);
        byTicket.sort((a, b) -> Arrays.compareUnsigned(tickets.of(a), tickets.of(b)));
        for (String[] row : rows) {
            assertThat(row[1]).isEqualTo(HEX.formatHex(tickets.of(row[0])));
            int place = byTicket.indexOf(row[0]) + 1;
            assertThat(row[2]).isEqualTo(place <= 2 ? Integer.toString(place) : "-");
        }

        byte[] key = jdbc.sql("SELECT pseudonym_key FROM coupon_draw WHERE coupon_id = ?")
                .param(id)
                .query(byte[].class)
                .single();
        for (String member : members) {
            String pseudonym = DrawRules.pseudonym(key, member);
            String[] row = rows.stream()
                    .filter(r -> r[0].equals(pseudonym))
                    .findFirst()
                    .orElseThrow();
            Map<String, Object> own = draw(status(id, member));
            assertThat(own)
                    .as("%s's own line", member)
                    .containsEntry("state", "MADE")
                    .containsEntry("pseudonym", pseudonym)
                    .containsEntry("ticket", row[1])
                    .containsEntry("record", "/public/v1/coupons/" + id + "/draw");
            if (row[2].equals("-")) {
                assertThat(own).containsEntry("leftOut", true).doesNotContainKey("place");
            } else {
                assertThat(own).containsEntry("place", Integer.parseInt(row[2]));
            }
        }

        String operators = client().get()
                .uri("/admin/v1/coupons/{id}/draw/entrants", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        assertThat(operators)
                .startsWith("memberId\tticket\tplace\twalletCouponId\tfailureReason\tpseudonym\n")
                .contains(members.getFirst() + "\t");
    }

    @Test
    void shouldStillDrawAnEventOfFunctionOneOverMemberIds() {
        long id = fairStart(1);
        jdbc.sql("UPDATE coupon_draw SET function_version = 1, pseudonym_key = NULL WHERE coupon_id = ?")
                .param(id)
                .update();
        List<String> members = members("one", 3);
        members.forEach(member -> ask(id, member, 202));
        endWindow(id);
        Map<String, Object> made = awaitMade(id);
        byte[] seed = HEX.parseHex((String) made.get("seed"));
        DrawRules.Outcome expected = DrawRules.draw(seed, members, 1);
        assertThat(made).containsEntry("entrantsDigest", HEX.formatHex(expected.entrantsDigest()));
        assertThat(json(publicEntrants(id).expectStatus().isEqualTo(409))).containsEntry("code", "DRAW_NOT_MADE");
        assertThat(status(id, expected.placed().getFirst())).doesNotContainKey("draw");
    }

    private org.springframework.test.web.reactive.server.WebTestClient.ResponseSpec publicEntrants(long id) {
        return client().get().uri("/public/v1/coupons/{id}/draw/entrants", id).exchange();
    }
}
