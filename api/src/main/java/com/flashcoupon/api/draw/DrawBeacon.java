package com.flashcoupon.api.draw;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The public randomness beacon a fair start's draw mixes in when {@code COUPON_DRAW_BEACON_URL} is set
 * (docs/architecture.md, "A draw anyone can check"): drand's HTTP JSON API, {@code GET {url}/info} for {@code
 * genesis_time} and {@code period} (seconds), {@code GET {url}/public/{round}} for a round's {@code randomness} and
 * {@code signature}. The round mixed in is the first one published after the draw's {@code drawAt}: round {@code r} is
 * published at {@code genesis_time + (r - 1) * period}, so it is {@code floor((drawAt - genesis_time) / period) + 2}
 * (round 1 when {@code drawAt} is before the genesis). A round is taken only when its randomness is 32 bytes and the
 * SHA-256 of its signature (drand's definition); the BLS signature itself is left to drand's own tools.
 *
 * <p>Until that round is due, the draw waits without a word; once due, a beacon that does not answer (or answers
 * something else) makes the draw wait and retry on the next pass, counted in {@code coupon_draw_beacon_failures_total}
 * (alert {@code CouponDrawBeaconFailing}): the draw is never made without it.
 */
@Component
public class DrawBeacon {

    private static final Logger log = LoggerFactory.getLogger(DrawBeacon.class);
    private static final HexFormat HEX = HexFormat.of();
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** A beacon round as published. */
    public record Round(long round, String randomness, String signature) {}

    private final String url;
    private final Clock clock;
    private final Counter failures;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final ObjectMapper json = new ObjectMapper();
    private volatile Info info;

    DrawBeacon(@Value("${coupon.draw.beacon-url:}") String url, Clock clock, MeterRegistry meters) {
        this.url = url == null || url.isBlank() ? null : url.strip().replaceAll("/+$", "");
        this.clock = clock;
        this.failures = Counter.builder("coupon.draw.beacon.failures")
                .description("Reads of the randomness beacon (COUPON_DRAW_BEACON_URL) that failed while a draw waited"
                        + " for its round; the draw is retried on the next pass, never made without it")
                .register(meters);
        if (this.url != null) {
            log.info("fair-start draws mix in the randomness beacon at {}", this.url);
        }
    }

    /** A beacon is configured. */
    public boolean configured() {
        return url != null;
    }

    /**
     * The round a draw at {@code drawAt} mixes in, once it is published and read; empty while it is not due yet, or the
     * beacon did not answer with it (counted, logged; the caller retries).
     */
    public Optional<Round> roundFor(long couponId, Instant drawAt) {
        try {
            Info known = info();
            long round = round(known.genesisTime(), known.period(), drawAt);
            Instant due = Instant.ofEpochSecond(known.genesisTime() + (round - 1) * known.period());
            if (clock.instant().isBefore(due)) {
                return Optional.empty();
            }
            return Optional.of(fetch(round));
        } catch (IOException | RuntimeException e) {
            failures.increment();
            log.warn(
                    "coupon {}: the randomness beacon at {} did not give the draw's round; the draw waits: {}",
                    couponId,
                    url,
                    e.toString());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The first round published strictly after {@code drawAt}. */
    static long round(long genesisTime, long period, Instant drawAt) {
        long elapsed = drawAt.getEpochSecond() - genesisTime;
        if (elapsed < 0) {
            return 1;
        }
        return elapsed / period + 2;
    }

    /** Round {@code round}, read from the beacon and checked (its number, its randomness the SHA-256 of its signature). */
    Round fetch(long round) throws IOException, InterruptedException {
        JsonNode answer = get("/public/" + round);
        long published = answer.path("round").asLong(-1);
        String randomness = answer.path("randomness").asString("");
        String signature = answer.path("signature").asString("");
        if (published != round) {
            throw new IOException("asked for round " + round + ", the beacon answered round " + published);
        }
        if (!randomness.matches("[0-9a-f]{64}")) {
            throw new IOException("round " + round + "'s randomness is not 64 lower-case hex digits: " + randomness);
        }
        if (!signature.matches("([0-9a-f]{2})+")
                || !HEX.formatHex(sha256(HEX.parseHex(signature))).equals(randomness)) {
            throw new IOException("round " + round + "'s randomness is not the SHA-256 of its signature");
        }
        return new Round(round, randomness, signature);
    }

    private Info info() throws IOException, InterruptedException {
        Info known = info;
        if (known == null) {
            JsonNode answer = get("/info");
            long genesis = answer.path("genesis_time").asLong(-1);
            long period = answer.path("period").asLong(-1);
            if (genesis < 0 || period <= 0) {
                throw new IOException("the beacon's /info has no genesis_time and period: " + answer);
            }
            known = new Info(genesis, period);
            info = known;
        }
        return known;
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(
                HttpRequest.newBuilder(URI.create(url + path))
                        .timeout(TIMEOUT)
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IOException("GET " + url + path + " answered " + answer.statusCode());
        }
        return json.readTree(answer.body());
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private record Info(long genesisTime, long period) {}
}
