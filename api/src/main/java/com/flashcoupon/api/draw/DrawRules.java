package com.flashcoupon.api.draw;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The draw of a RANDOMIZED_START event as a function anyone can recompute (docs/architecture.md, "A draw anyone can
 * check"): from the seed (committed to when the event was created, published once the draw is recorded) and the
 * entrant list alone.
 *
 * <ul>
 *   <li>The entrants, in ascending order of their member ids' UTF-8 bytes, each followed by a line feed, hashed with
 *       SHA-256: the entrants' digest.
 *   <li>A member's ticket: HMAC-SHA256 with the seed's 32 bytes as the key, over the digest's 32 bytes followed by the
 *       member id's UTF-8 bytes.
 *   <li>The places go to the lowest tickets (compared as unsigned big-endian numbers; equal tickets, by member id),
 *       place 1 to the lowest, as many as the draw has places.
 * </ul>
 *
 * The ticket depends on every entrant, so nobody knows any ticket before the window ends, not even whoever could read
 * the seed; and a seed cannot be chosen at creation to favour a member. Plain Java: no Spring, no I/O.
 */
public final class DrawRules {

    public static final int SEED_BYTES = 32;

    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom SEEDS = new SecureRandom();

    private DrawRules() {}

    /** A new secret seed, from a cryptographically secure generator. */
    public static byte[] newSeed() {
        byte[] seed = new byte[SEED_BYTES];
        SEEDS.nextBytes(seed);
        return seed;
    }

    /**
     * A member's pseudonym in a draw made with function 2: lower-case hex HMAC-SHA256 of the member id's UTF-8 bytes,
     * keyed with the event's pseudonym key (32 bytes, never published).
     */
    public static String pseudonym(byte[] pseudonymKey, String member) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(pseudonymKey, "HmacSHA256"));
            return HEX.formatHex(mac.doFinal(member.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is missing from this JDK", e);
        }
    }

    /**
     * The leaves a draw is made over, in ascending byte order: the member ids themselves (function 1), or their
     * pseudonyms (function 2), each with the member it stands for.
     */
    public static Leaves leaves(int functionVersion, byte[] pseudonymKey, List<String> members) {
        if (functionVersion == 1) {
            java.util.Map<String, String> same = new java.util.HashMap<>();
            members.forEach(member -> same.put(member, member));
            return new Leaves(members, same);
        }
        java.util.Map<String, String> byLeaf = new java.util.HashMap<>();
        for (String member : members) {
            byLeaf.put(pseudonym(pseudonymKey, member), member);
        }
        List<String> leaves = new ArrayList<>(byLeaf.keySet());
        leaves.sort(null); // lower-case hex: its string order is its byte order
        return new Leaves(leaves, byLeaf);
    }

    /** A draw's leaves in ascending byte order and the member each stands for. */
    public record Leaves(List<String> inOrder, java.util.Map<String, String> member) {}

    /**
     * The ticket key of a draw made with function 3: SHA-256 of the seed's 32 bytes followed by the beacon round's
     * randomness bytes (as the beacon published them, hex-decoded). Function 1 and 2 draws use the seed itself.
     */
    public static byte[] beaconKey(byte[] seed, byte[] beaconRandomness) {
        MessageDigest digest = sha256();
        digest.update(seed);
        digest.update(beaconRandomness);
        return digest.digest();
    }

    /** Lower-case hex SHA-256 of the seed's bytes: published from the event's creation on. */
    public static String commitment(byte[] seed) {
        return HEX.formatHex(sha256().digest(seed));
    }

    /**
     * SHA-256 of the entrant list: each member id's UTF-8 bytes and a line feed, in ascending byte order (the order a
     * sorted set of equal scores keeps them in); refuses a list out of that order or with a member twice.
     */
    public static byte[] entrantsDigest(List<String> entrantsInOrder) {
        MessageDigest digest = sha256();
        byte[] previous = null;
        for (String member : entrantsInOrder) {
            byte[] bytes = member.getBytes(StandardCharsets.UTF_8);
            if (previous != null && Arrays.compareUnsigned(previous, bytes) >= 0) {
                throw new IllegalArgumentException("entrants not in ascending byte order at " + member);
            }
            digest.update(bytes);
            digest.update((byte) '\n');
            previous = bytes;
        }
        return digest.digest();
    }

    /** A member's ticket: HMAC-SHA256(key: seed, message: entrants' digest || UTF-8 member id). */
    public static byte[] ticket(byte[] seed, byte[] entrantsDigest, String member) {
        return new Tickets(seed, entrantsDigest).of(member);
    }

    /**
     * The draw: the entrants (in ascending byte order) in the order of their tickets; the first {@code places} of them
     * are placed, place 1 first.
     */
    public static Outcome draw(byte[] seed, List<String> entrantsInOrder, long places) {
        byte[] digest = entrantsDigest(entrantsInOrder);
        Tickets tickets = new Tickets(seed, digest);
        byte[][] ticket = new byte[entrantsInOrder.size()][];
        for (int i = 0; i < ticket.length; i++) {
            ticket[i] = tickets.of(entrantsInOrder.get(i));
        }
        return new Outcome(digest, ticket.length, lowest(ticket, entrantsInOrder, places));
    }

    /**
     * The {@code places} members with the lowest tickets, lowest first: tickets compared as unsigned big-endian
     * numbers, equal tickets by the members' UTF-8 bytes. Sorted as longs, a million in tens of milliseconds: each key
     * is a ticket's leading bits (flipped so that signed order is unsigned order) with the member's index in the low
     * bits; members whose leading bits tie are then put in order by their whole tickets, and their ids.
     */
    static List<String> lowest(byte[][] ticket, List<String> members, long places) {
        int n = ticket.length;
        int indexBits = Math.max(1, 64 - Long.numberOfLeadingZeros(Math.max(1, n - 1)));
        long indexMask = (1L << indexBits) - 1;
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = ((leading64(ticket[i]) & ~indexMask) | i) ^ Long.MIN_VALUE;
        }
        Arrays.sort(keys);
        int placed = (int) Math.max(0, Math.min(places, n));
        List<String> winners = new ArrayList<>(placed);
        for (int from = 0; from < n && winners.size() < placed; ) {
            int to = from + 1;
            while (to < n && (keys[to] & ~indexMask) == (keys[from] & ~indexMask)) {
                to++;
            }
            List<Integer> run = new ArrayList<>(to - from);
            for (int k = from; k < to; k++) {
                run.add((int) (keys[k] & indexMask));
            }
            if (run.size() > 1) {
                run.sort((a, b) -> {
                    int byTicket = Arrays.compareUnsigned(ticket[a], ticket[b]);
                    return byTicket != 0
                            ? byTicket
                            : Arrays.compareUnsigned(
                                    members.get(a).getBytes(StandardCharsets.UTF_8),
                                    members.get(b).getBytes(StandardCharsets.UTF_8));
                });
            }
            for (int k = 0; k < run.size() && winners.size() < placed; k++) {
                winners.add(members.get(run.get(k)));
            }
            from = to;
        }
        return winners;
    }

    private static long leading64(byte[] bytes) {
        long value = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            value = (value << 8) | (bytes[i] & 0xff);
        }
        return value;
    }

    public static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    public static byte[] unhex(String hex) {
        return HEX.parseHex(hex);
    }

    /**
     * What a draw gave: the entrants' digest, how many entrants there were, and the placed members in place order
     * (place 1 first).
     */
    public record Outcome(byte[] entrantsDigest, int entrants, List<String> placed) {}

    /** Tickets of one draw: one key, one digest, many members. Not thread-safe. */
    public static final class Tickets {

        private final Mac mac;
        private final byte[] digest;

        public Tickets(byte[] seed, byte[] entrantsDigest) {
            if (seed.length != SEED_BYTES) {
                throw new IllegalArgumentException("a draw's seed has " + SEED_BYTES + " bytes");
            }
            try {
                mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(seed, "HmacSHA256"));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HMAC-SHA256 is missing from this JDK", e);
            }
            digest = entrantsDigest.clone();
        }

        public byte[] of(String member) {
            mac.update(digest);
            return mac.doFinal(member.getBytes(StandardCharsets.UTF_8));
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
