package com.flashcoupon.loadgen.draw;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code verify-draw} on a draw of function 3 (a randomness beacon round mixed in): the worked example's entrants
 * drawn with the ticket key SHA-256(seed || randomness), served by a local server as the api's public record and admin
 * view would, and a local beacon in drand's shape. It passes, with {@code --beacon} too; a tampered randomness (with
 * or without a matching signature) fails, as does a round the beacon publishes otherwise or one that is not the first
 * after drawAt.
 */
class BeaconVerificationTest {

    private static final HexFormat HEX = HexFormat.of();
    private static final String SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    private static final String DRAW_AT = "2020-01-02T00:01:00Z";
    /** The beacon's genesis ten minutes before drawAt, a round every 30 s: round 22 is the first after drawAt. */
    private static final long GENESIS = Instant.parse(DRAW_AT).getEpochSecond() - 600;

    private static final long ROUND = 22;
    private static final String SIGNATURE = HEX.formatHex(sha256("a BLS signature".getBytes(StandardCharsets.UTF_8)));
    private static final String RANDOMNESS = HEX.formatHex(sha256(HEX.parseHex(SIGNATURE)));

    private ServedPaths server;
    private Map<String, String> served;

    @BeforeEach
    void serve() throws Exception {
        server = new ServedPaths();
        served = server.bodies;
        serveDraw(ROUND, RANDOMNESS, SIGNATURE, RANDOMNESS);
        served.put("/beacon/info", "{\"period\":30,\"genesis_time\":" + GENESIS + "}");
        served.put(
                "/beacon/public/" + ROUND,
                "{\"round\":" + ROUND + ",\"randomness\":\"" + RANDOMNESS + "\",\"signature\":\"" + SIGNATURE + "\"}");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void shouldVerifyADrawWithABeaconRoundFromThePublicRecordAndTheAdminView() throws Exception {
        assertThat(verify(true)).startsWith("0 ").contains("the beacon round 22 is mixed in");
        assertThat(verify(true, "--beacon", beacon())).startsWith("0 ").contains("as the beacon publishes it");
        assertThat(verify(false, "--no-db", "--operator-token", "t", "--beacon", beacon()))
                .startsWith("0 ")
                .contains("as the beacon publishes it");
    }

    @Test
    void shouldFailATamperedRandomness() throws Exception {
        // another randomness published with the tickets drawn from the true one: the signature no longer matches and
        // no ticket recomputes
        String other = HEX.formatHex(sha256("other".getBytes(StandardCharsets.UTF_8)));
        serveDraw(ROUND, other, SIGNATURE, RANDOMNESS);
        assertThat(verify(true)).startsWith("1 ").contains("is not the SHA-256 of its signature");
        assertThat(verify(false, "--no-db", "--operator-token", "t")).startsWith("1 ");

        // an insider's own signature and randomness, tickets drawn from them: consistent, but not the beacon's round
        String forged = HEX.formatHex(sha256("forged".getBytes(StandardCharsets.UTF_8)));
        String forgedRandomness = HEX.formatHex(sha256(HEX.parseHex(forged)));
        serveDraw(ROUND, forgedRandomness, forged, forgedRandomness);
        assertThat(verify(true)).startsWith("0 ");
        assertThat(verify(true, "--beacon", beacon()))
                .startsWith("1 ")
                .contains("the beacon's round 22 has randomness " + RANDOMNESS);

        // a later round, chosen among several: not the first published after drawAt
        serveDraw(ROUND + 1, RANDOMNESS, SIGNATURE, RANDOMNESS);
        served.put(
                "/beacon/public/" + (ROUND + 1),
                served.get("/beacon/public/" + ROUND).replace("22", "23"));
        assertThat(verify(true, "--beacon", beacon())).startsWith("1 ").contains("the first published after drawAt");
    }

    private String beacon() {
        return server.url() + "/beacon";
    }

    /** The worked example's entrants drawn with the key SHA-256(seed || {@code drawnWith}), published as given. */
    private void serveDraw(long round, String randomness, String signature, String drawnWith) throws Exception {
        List<String> pseudonyms = PublicVerificationTest.LIST
                .lines()
                .skip(1)
                .map(line -> line.split("\t")[0])
                .sorted()
                .toList();
        MessageDigest rootDigest = MessageDigest.getInstance("SHA-256");
        for (String pseudonym : pseudonyms) {
            rootDigest.update((pseudonym + "\n").getBytes(StandardCharsets.UTF_8));
        }
        byte[] root = rootDigest.digest();
        MessageDigest keyDigest = MessageDigest.getInstance("SHA-256");
        keyDigest.update(HEX.parseHex(SEED));
        keyDigest.update(HEX.parseHex(drawnWith));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(keyDigest.digest(), "HmacSHA256"));
        Map<String, byte[]> tickets = new ConcurrentHashMap<>();
        for (String pseudonym : pseudonyms) {
            mac.update(root);
            tickets.put(pseudonym, mac.doFinal(pseudonym.getBytes(StandardCharsets.UTF_8)));
        }
        List<String> byTicket = new ArrayList<>(pseudonyms);
        byTicket.sort((a, b) -> Arrays.compareUnsigned(tickets.get(a), tickets.get(b)));
        StringBuilder list = new StringBuilder("pseudonym\tticket\tplace\n");
        StringBuilder export = new StringBuilder("memberId\tticket\tplace\twalletCouponId\tfailureReason\tpseudonym\n");
        for (String pseudonym : pseudonyms) {
            int place = byTicket.indexOf(pseudonym) + 1;
            String placed = place <= 3 ? String.valueOf(place) : "-";
            String ticket = HEX.formatHex(tickets.get(pseudonym));
            list.append(pseudonym)
                    .append('\t')
                    .append(ticket)
                    .append('\t')
                    .append(placed)
                    .append('\n');
            export.append("m-" + pseudonym.substring(0, 8))
                    .append('\t')
                    .append(ticket)
                    .append('\t')
                    .append(placed)
                    .append("\t-\t-\t")
                    .append(pseudonym)
                    .append('\n');
        }
        String beacon =
                "{\"round\":" + round + ",\"randomness\":\"" + randomness + "\",\"signature\":\"" + signature + "\"}";
        String commitment = HEX.formatHex(sha256(HEX.parseHex(SEED)));
        served.put(
                "/public/v1/coupons/42/draw",
                "{\"couponId\":42,\"state\":\"MADE\",\"commitment\":\"" + commitment + "\",\"drawAt\":\"" + DRAW_AT
                        + "\",\"entrants\":5,\"places\":3,\"entrantsRoot\":\"" + HEX.formatHex(root)
                        + "\",\"placed\":3,\"seed\":\"" + SEED + "\",\"functionVersion\":3,"
                        + "\"entrantsPath\":\"/public/v1/coupons/42/draw/entrants\",\"beacon\":" + beacon + "}");
        served.put("/public/v1/coupons/42/draw/entrants", list.toString());
        served.put(
                "/admin/v1/coupons/42",
                "{\"id\":42,\"totalQuantity\":3,\"draw\":{\"state\":\"MADE\",\"commitment\":\"" + commitment
                        + "\",\"drawAt\":\"" + DRAW_AT + "\",\"entrants\":5,\"places\":3,\"placed\":3,\"seed\":\""
                        + SEED + "\",\"entrantsDigest\":\"" + HEX.formatHex(root)
                        + "\",\"firstSequence\":1,\"functionVersion\":3,\"beacon\":" + beacon + "}}");
        served.put("/admin/v1/coupons/42/draw/entrants", export.toString());
    }

    private String verify(boolean publicPath, String... extra) throws InterruptedException {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        String base = server.url();
        List<String> args =
                new ArrayList<>(publicPath ? List.of("--public", base, "42") : List.of("42", "--api", base));
        args.addAll(List.of(extra));
        int status = new VerifyDrawCommand(
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(args, Map.of());
        return status + " " + out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
