package com.flashcoupon.loadgen.draw;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Recomputes a fair start's draw from what the api publishes, written from the function docs/architecture.md states
 * ("A draw anyone can check"), not from the api's code: so that it checks the documentation and the api against each
 * other, as anyone outside the team would.
 *
 * <ol>
 *   <li>The commitment published when the event was created is the SHA-256 of the seed published after the draw.
 *   <li>The entrant list is in ascending byte order, as long as published, and its SHA-256 (each id and a line feed)
 *       is the published digest.
 *   <li>Every ticket is HMAC-SHA256(seed, digest || member id) (function 3: the key SHA-256(seed || beacon randomness),
 *       the randomness the SHA-256 of the round's signature); the places go to the lowest tickets, as many as
 *       there were coupons ({@code min(entrants, totalQuantity)}: nothing was queued before the window).
 *   <li>No entrant the draw left out holds a wallet coupon; with the wallets read from MySQL, every placed entrant who
 *       holds one holds it at the sequence of their place ({@code firstSequence + place - 1}), and no wallet in the
 *       draw's range of sequences belongs to anyone else.
 * </ol>
 *
 * Every difference is listed, the first one first.
 */
public final class DrawCheck {

    private static final HexFormat HEX = HexFormat.of();

    /** What the admin view publishes of the event and its draw. */
    public record Published(
            long couponId,
            long totalQuantity,
            String commitment,
            String seed,
            String entrantsDigest,
            long entrants,
            long placed,
            long firstSequence,
            Beacon beacon) {}

    /**
     * The randomness beacon round a draw of function 3 mixed in, as published with it: the ticket key is SHA-256(seed
     * || randomness), and the randomness is the SHA-256 of the signature (drand).
     */
    public record Beacon(long round, String randomness, String signature) {

        /** The {@code beacon} object of a public record or admin view's draw; null when there is none. */
        static Beacon of(tools.jackson.databind.JsonNode node) {
            if (node == null || node.isMissingNode() || node.isNull()) {
                return null;
            }
            return new Beacon(
                    node.path("round").asLong(),
                    node.path("randomness").asString(""),
                    node.path("signature").asString(""));
        }
    }

    /**
     * One line of the entrants' export: the ticket as published, the place (0: left out), wallet and failure, and the
     * pseudonym the ticket is taken over (function 2; null for function 1). A line of the public list names nobody: its
     * member is its pseudonym.
     */
    public record Entrant(
            String member, String ticket, int place, Long walletCouponId, String failureReason, String pseudonym) {

        public Entrant(String member, String ticket, int place, Long walletCouponId, String failureReason) {
            this(member, ticket, place, walletCouponId, failureReason, null);
        }

        /** What the ticket is taken over: the pseudonym (function 2) or the member id (function 1). */
        String leaf() {
            return pseudonym != null ? pseudonym : member;
        }
    }

    /** A wallet coupon of the event in MySQL: who holds it and at which admission sequence. */
    public record Wallet(String member, long requestSequence) {}

    private DrawCheck() {}

    /** Every difference between what was published and what the seed gives, in order; empty when the draw holds. */
    public static List<String> differences(Published published, List<Entrant> entrants, List<Wallet> wallets) {
        List<String> differences = new ArrayList<>();
        if (published.seed() == null || published.commitment() == null) {
            differences.add("coupon " + published.couponId() + " has no seed published: its draw cannot be checked");
            return differences;
        }
        byte[] seed = HEX.parseHex(published.seed());
        String commitment = HEX.formatHex(sha256().digest(seed));
        if (!commitment.equals(published.commitment())) {
            differences.add("the seed's SHA-256 is " + commitment + ", not the commitment published at creation, "
                    + published.commitment());
        }
        // function 3: the ticket key is SHA-256(seed || the beacon round's randomness)
        byte[] key = seed;
        Beacon beacon = published.beacon();
        if (beacon != null) {
            if (!beacon.randomness().matches("[0-9a-f]{64}")) {
                differences.add("the beacon round " + beacon.round() + "'s randomness is not 64 lower-case hex digits: "
                        + beacon.randomness());
                return differences;
            }
            if (!beacon.signature().matches("([0-9a-f]{2})+")
                    || !HEX.formatHex(sha256().digest(HEX.parseHex(beacon.signature())))
                            .equals(beacon.randomness())) {
                differences.add("the beacon round " + beacon.round() + "'s randomness " + beacon.randomness()
                        + " is not the SHA-256 of its signature");
            }
            MessageDigest mixed = sha256();
            mixed.update(seed);
            mixed.update(HEX.parseHex(beacon.randomness()));
            key = mixed.digest();
        }
        if (entrants.size() != published.entrants()) {
            differences.add("the export lists " + entrants.size() + " entrants, the draw says " + published.entrants());
        }
        // function 2 (pseudonyms in the export): the leaves are the pseudonyms, taken in their ascending order whatever
        // order the export lists them in; function 1: the member ids, in the export's order, which must be ascending
        boolean pseudonymous = !entrants.isEmpty() && entrants.getFirst().pseudonym() != null;
        List<Entrant> inLeafOrder = new ArrayList<>(entrants);
        if (pseudonymous) {
            inLeafOrder.sort(Comparator.comparing(
                    (Entrant e) -> e.leaf().getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
        }
        MessageDigest digest = sha256();
        byte[] previous = null;
        for (Entrant entrant : inLeafOrder) {
            if (pseudonymous && !entrant.leaf().matches("[0-9a-f]{64}")) {
                differences.add(entrant.member() + "'s pseudonym is not 64 lower-case hex digits: " + entrant.leaf());
            }
            byte[] id = entrant.leaf().getBytes(StandardCharsets.UTF_8);
            if (previous != null && Arrays.compareUnsigned(previous, id) >= 0) {
                differences.add(
                        pseudonymous
                                ? "the pseudonym " + entrant.leaf() + " is listed twice"
                                : "the export is not in ascending byte order at " + entrant.member());
            }
            digest.update(id);
            digest.update((byte) '\n');
            previous = id;
        }
        byte[] entrantsDigest = digest.digest();
        if (!HEX.formatHex(entrantsDigest).equals(published.entrantsDigest())) {
            differences.add("the entrants' SHA-256 is " + HEX.formatHex(entrantsDigest) + ", not the published "
                    + published.entrantsDigest());
        }

        Mac mac = hmac(key);
        Map<String, byte[]> tickets = new HashMap<>();
        for (Entrant entrant : entrants) {
            mac.update(entrantsDigest);
            byte[] ticket = mac.doFinal(entrant.leaf().getBytes(StandardCharsets.UTF_8));
            tickets.put(entrant.member(), ticket);
            if (!HEX.formatHex(ticket).equals(entrant.ticket())) {
                differences.add(entrant.member() + "'s ticket is " + HEX.formatHex(ticket) + ", the export says "
                        + entrant.ticket());
            }
        }
        List<Entrant> byTicket = new ArrayList<>(entrants);
        byTicket.sort(Comparator.<Entrant, byte[]>comparing(e -> tickets.get(e.member()), Arrays::compareUnsigned)
                .thenComparing(e -> e.leaf().getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
        long places = Math.min(entrants.size(), published.totalQuantity());
        if (published.placed() != places) {
            differences.add("the draw placed " + published.placed() + " of " + entrants.size() + " entrants for "
                    + published.totalQuantity() + " coupons; it should have placed " + places);
        }
        Map<String, Integer> expected = new HashMap<>();
        for (int i = 0; i < places; i++) {
            expected.put(byTicket.get(i).member(), i + 1);
        }
        for (Entrant entrant : entrants) {
            int place = expected.getOrDefault(entrant.member(), 0);
            if (entrant.place() != place) {
                differences.add(entrant.member() + " should be " + placeName(place) + ", the export says "
                        + placeName(entrant.place()));
            }
            if (place == 0 && entrant.walletCouponId() != null) {
                differences.add(entrant.member() + " was left out by the draw but holds wallet coupon "
                        + entrant.walletCouponId());
            }
        }
        long first = published.firstSequence();
        for (Wallet wallet : wallets) {
            Integer place = expected.get(wallet.member());
            boolean inRange = wallet.requestSequence() >= first && wallet.requestSequence() < first + places;
            if (place != null && wallet.requestSequence() != first + place - 1) {
                differences.add(wallet.member() + " holds a wallet coupon at sequence " + wallet.requestSequence()
                        + ", not at " + (first + place - 1) + " (place " + place + ")");
            } else if (place == null && tickets.containsKey(wallet.member())) {
                differences.add(wallet.member() + " was left out by the draw but holds a wallet coupon (sequence "
                        + wallet.requestSequence() + ")");
            } else if (place == null && inRange) {
                differences.add(wallet.member() + " never entered the draw but holds a wallet coupon at sequence "
                        + wallet.requestSequence() + ", one of the draw's places");
            }
        }
        return differences;
    }

    private static String placeName(int place) {
        return place == 0 ? "left out" : "place " + place;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Mac hmac(byte[] key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
