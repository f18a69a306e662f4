package com.flashcoupon.api.draw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * A fair start's draw with a randomness beacon configured (issue 33): the draw mixes in the beacon's first round
 * published after drawAt (function 3, ticket key SHA-256(seed || randomness)), records and publishes it, and every
 * published ticket recomputes from the public record; while the beacon does not answer, no draw is made (the set stays
 * frozen, the failures are counted) and the draw is made once it answers again. The beacon is a local server in drand's
 * HTTP JSON shape that this test starts.
 */
@ApiTest
@TestPropertySource(properties = {"coupon.draw.check-every=1h", "coupon.drain.tick=1h"})
class DrawBeaconTest extends FairStartTestBase {

    private static final HexFormat HEX = HexFormat.of();
    /** The beacon's genesis ten days before this run, one round a second. */
    private static final long GENESIS = Instant.now().minus(Duration.ofDays(10)).getEpochSecond();

    private static final AtomicBoolean UP = new AtomicBoolean(true);
    private static final HttpServer BEACON = beacon();

    @Autowired
    private MeterRegistry meters;

    @DynamicPropertySource
    static void beaconUrl(DynamicPropertyRegistry registry) {
        registry.add(
                "coupon.draw.beacon-url",
                () -> "http://127.0.0.1:" + BEACON.getAddress().getPort() + "/");
    }

    @Test
    void shouldMixInTheFirstRoundAfterDrawAtRecordItAndPublishIt() {
        UP.set(true);
        long id = fairStart(2);
        List<String> members = members("beacon", 4);
        members.forEach(member -> ask(id, member, 202));
        endWindow(id);
        awaitMade(id);

        Instant drawAt = jdbc.sql("SELECT draw_at FROM coupon_draw WHERE coupon_id = ?")
                .param(id)
                .query(java.sql.Timestamp.class)
                .single()
                .toInstant();
        long round = drawAt.getEpochSecond() - GENESIS + 2; // period 1 s: the first round published after drawAt
        Map<String, Object> record =
                json(client().get().uri("/public/v1/coupons/{id}/draw", id).exchange());
        assertThat(record).containsEntry("functionVersion", 3);
        @SuppressWarnings("unchecked")
        Map<String, Object> beacon = (Map<String, Object>) record.get("beacon");
        assertThat(((Number) beacon.get("round")).longValue()).isEqualTo(round);
        assertThat(beacon).containsEntry("randomness", randomness(round)).containsEntry("signature", signature(round));
        assertThat(draw(admin(id))).containsEntry("beacon", beacon).containsEntry("functionVersion", 3);

        // every published ticket is HMAC(SHA-256(seed || randomness), root || pseudonym); the seed alone does not give
        // it
        byte[] seed = HEX.parseHex((String) record.get("seed"));
        byte[] root = HEX.parseHex((String) record.get("entrantsRoot"));
        byte[] key = DrawRules.beaconKey(seed, HEX.parseHex(randomness(round)));
        String list = publicText("/public/v1/coupons/{id}/draw/entrants", id);
        List<String> lines = List.of(list.split("\n")).subList(1, members.size() + 1);
        for (String line : lines) {
            String[] fields = line.split("\t");
            assertThat(fields[1]).isEqualTo(HEX.formatHex(DrawRules.ticket(key, root, fields[0])));
            assertThat(fields[1]).isNotEqualTo(HEX.formatHex(DrawRules.ticket(seed, root, fields[0])));
        }
        assertThat(lines.stream().filter(line -> !line.endsWith("\t-")).count()).isEqualTo(2);
    }

    @Test
    void shouldNotDrawWhileTheBeaconIsDownAndDrawOnceItAnswers() {
        long id = fairStart(1);
        members("down", 3).forEach(member -> ask(id, member, 202));
        endWindow(id);
        UP.set(false);
        try {
            double failed = failures();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        drawJob.tick();
                        return failures() >= failed + 3;
                    });
            Map<String, Object> waiting = draw(admin(id));
            assertThat(waiting).containsEntry("state", "DRAWING").doesNotContainKeys("seed", "beacon");
            assertThat(waiting.get("entrantsRoot")).isNotNull(); // frozen and public while it waits
            assertThat(jdbc.sql("SELECT drawn_at IS NULL FROM coupon_draw WHERE coupon_id = ?")
                            .param(id)
                            .query(Boolean.class)
                            .single())
                    .isTrue();
        } finally {
            UP.set(true);
        }
        Map<String, Object> made = awaitMade(id);
        assertThat(made).containsEntry("functionVersion", 3).containsKey("beacon");
    }

    private double failures() {
        var counter = meters.find("coupon.draw.beacon.failures").counter();
        return counter == null ? 0 : counter.count();
    }

    static String signature(long round) {
        return HEX.formatHex(DrawBeacon.sha256(("round " + round).getBytes(StandardCharsets.UTF_8)))
                + HEX.formatHex(DrawBeacon.sha256(("sig " + round).getBytes(StandardCharsets.UTF_8)));
    }

    static String randomness(long round) {
        return HEX.formatHex(DrawBeacon.sha256(HEX.parseHex(signature(round))));
    }

    private static HttpServer beacon() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/", exchange -> {
                String path = exchange.getRequestURI().getPath();
                String body = null;
                if (UP.get() && path.equals("/info")) {
                    body = "{\"public_key\":\"00\",\"period\":1,\"genesis_time\":" + GENESIS
                            + ",\"hash\":\"00\",\"groupHash\":\"00\"}";
                } else if (UP.get() && path.startsWith("/public/")) {
                    long round = Long.parseLong(path.substring("/public/".length()));
                    if (Instant.now().getEpochSecond() >= GENESIS + round - 1) {
                        body = "{\"round\":" + round + ",\"randomness\":\"" + randomness(round) + "\",\"signature\":\""
                                + signature(round) + "\"}";
                    }
                }
                byte[] bytes = (body == null ? "{}" : body).getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(body == null ? (UP.get() ? 404 : 503) : 200, bytes.length);
                exchange.getResponseBody().write(bytes);
                exchange.close();
            });
            server.start();
            return server;
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
