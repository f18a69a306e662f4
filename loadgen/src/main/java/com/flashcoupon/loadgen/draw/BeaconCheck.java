package com.flashcoupon.loadgen.draw;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code verify-draw ... --beacon URL}: the beacon round a draw of function 3 recorded, read again from the beacon
 * itself (drand's HTTP JSON: {@code GET URL/info}, {@code GET URL/public/ROUND}): the round must be the first one
 * published after the draw's {@code drawAt} ({@code floor((drawAt - genesis_time) / period) + 2}, 1 before the
 * genesis) and its randomness and signature those the beacon publishes.
 */
final class BeaconCheck {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private BeaconCheck() {}

    /** Every difference between the recorded round and the beacon's; empty when they agree. */
    static List<String> differences(HttpClient http, String url, Instant drawAt, DrawCheck.Beacon recorded)
            throws IOException, InterruptedException {
        List<String> differences = new ArrayList<>();
        String base = url.replaceAll("/+$", "");
        if (recorded == null) {
            differences.add("--beacon was given, but the draw records no beacon round (it was made without one)");
            return differences;
        }
        JsonNode info = get(http, base + "/info");
        long genesis = info.path("genesis_time").asLong(-1);
        long period = info.path("period").asLong(-1);
        if (genesis < 0 || period <= 0) {
            throw new IOException("the beacon's /info has no genesis_time and period");
        }
        long elapsed = drawAt.getEpochSecond() - genesis;
        long expected = elapsed < 0 ? 1 : elapsed / period + 2;
        if (recorded.round() != expected) {
            differences.add("the draw mixed in beacon round " + recorded.round() + "; the first published after drawAt "
                    + drawAt + " is " + expected);
        }
        JsonNode round = get(http, base + "/public/" + recorded.round());
        if (!round.path("randomness").asString("").equals(recorded.randomness())) {
            differences.add("the beacon's round " + recorded.round() + " has randomness "
                    + round.path("randomness").asString("") + ", the draw records " + recorded.randomness());
        }
        if (!round.path("signature").asString("").equals(recorded.signature())) {
            differences.add("the beacon's round " + recorded.round() + " has another signature than the draw records");
        }
        return differences;
    }

    private static JsonNode get(HttpClient http, String url) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(
                HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IOException("GET " + url + " answered " + answer.statusCode());
        }
        return JSON.readTree(answer.body());
    }
}
