package com.flashcoupon.contract;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Where an event's stock shards live and which shard is a member's home (docs/architecture.md, "Stock shards").
 *
 * <p>An event with {@code stockShards = K} keeps its admission state in K hash slots, one hash tag per shard. Shard 0
 * is the event's own tag, {@code {cpn:ID}}, so that an event of one shard (the default) has exactly the keys it always
 * had. The 16,384 slots are cut into K equal arcs ({@code [a * 16384 / K, (a + 1) * 16384 / K)}); shard 0 stands in
 * the arc its slot falls in, {@code a0}, and shard {@code i > 0} gets arc {@code (a0 + i) mod K}: its tag is {@code
 * {cpn:ID:i:n}}, with {@code n} the smallest number from 0 up whose slot (CRC16 of the tag, mod 16384, as Redis
 * Cluster computes it) falls in the middle half of that arc. Each arc thus holds exactly one shard. A cluster whose P
 * primaries hold contiguous, equal ranges of slots (what {@code redis-cli --cluster create} and {@code bin/up
 * --cluster} make) then has exactly K / P shards on each primary when P divides K (shard 0 aside in the one case its
 * slot is the single slot where the arcs' and the primaries' rounding differ), and the K shards on min(K, P) primaries,
 * as evenly as the arcs allow, otherwise. Plain per-shard tags ({@code {cpn:ID:i}}) land where CRC16 throws them: with
 * K = 6 on 3 primaries, one primary would often hold three or more of the six. The search is deterministic (every api
 * instance and every tool finds the same tags) and cheap: the middle half of an arc holds at least 128 slots, so about
 * 128 CRC16s at most on average, once per event and shard (the api caches the keys).
 *
 * <p>A member's home shard is {@code CRC32(UTF-8 bytes of the member id) mod K} ({@link java.util.zip.CRC32}, the
 * IEEE polynomial): it depends on nothing but the id and K, so every instance sends a member's admission to the same
 * shard, where the member's one-per-event check is made.
 */
public final class StockShards {

    /** The most shards an event may have. */
    public static final int MAX = 64;

    /** Redis Cluster's hash slots. */
    public static final int SLOTS = 16_384;

    private StockShards() {}

    /** The hash tag of shard {@code shard} of an event of {@code shards} shards (braces included). */
    public static String tag(long couponId, int shards, int shard) {
        check(shards, shard);
        if (shard == 0) {
            return CouponKeys.tag(couponId);
        }
        long arc = ((long) slot("cpn:" + couponId) * shards / SLOTS + shard) % shards;
        long from = arc * SLOTS / shards;
        long width = (arc + 1) * SLOTS / shards - from;
        long low = from + width / 4;
        long high = from + width * 3 / 4;
        String prefix = "cpn:" + couponId + ":" + shard + ":";
        for (int n = 0; ; n++) {
            String inner = prefix + n;
            int slot = slot(inner);
            if (slot >= low && slot < high) {
                return "{" + inner + "}";
            }
        }
    }

    /**
     * A shard's stock hash: {@code share} (what it was dealt at the start), {@code moved} (what transfers brought in
     * less what it gave away: its cap is {@code share + moved}), {@code moves} (transfers in and out, counted), {@code
     * total} (the event's), {@code out} (1 once every shard was found out).
     */
    public static String stock(String tag) {
        return tag + ":stock";
    }

    /** A shard's queue: member → the shard's admission sequence (shard 0's is the event's own queue). */
    public static String queue(String tag) {
        return tag + ":queue";
    }

    /**
     * A shard's admission times: member → the microsecond, by its primary's clock, the member was admitted on it. The
     * drainer publishes across shards in this order, and a member's position counts those admitted before them.
     */
    public static String times(String tag) {
        return tag + ":times";
    }

    /** How many of a shard's queue entries (by rank) the drainer published and Kafka acknowledged. */
    public static String cursor(String tag) {
        return tag + ":cursor";
    }

    /** A shard's last admission sequence. */
    public static String seq(String tag) {
        return tag + ":seq";
    }

    /** A shard's transfers given and not yet known taken: transfer id → {@code receivingShard:amount}. */
    public static String escrow(String tag) {
        return tag + ":escrow";
    }

    /** The transfer ids a shard took: a transfer completed twice counts once. */
    public static String received(String tag) {
        return tag + ":received";
    }

    /**
     * A shard's results: member → the worker's result, for the members whose home it is. The keys from here to
     * {@link #wouldRefuse} are, for shard 0, the event's own ({@link CouponKeys}): an event of one shard keeps the keys
     * it always had.
     */
    public static String result(String tag) {
        return tag + ":result";
    }

    /** How many of a shard's members have their result (the worker counts them on their home shard). */
    public static String done(String tag) {
        return tag + ":done";
    }

    /** A shard's retired mark: set on every shard when the event is retired, so a replayed result writes nothing. */
    public static String retired(String tag) {
        return tag + ":retired";
    }

    /** A shard's counters (refusals, members asking again), as the event's stats hash. */
    public static String stats(String tag) {
        return tag + ":stats";
    }

    /** A shard's fair-start entrants (a RANDOMIZED_START event's window). */
    public static String draw(String tag) {
        return tag + ":draw";
    }

    /**
     * The part of an event's eligibility list whose members' home is this shard (a set), with one more member, {@code
     * ''} (no member id is empty), so that a shard none of whose members is listed still shows its part loaded.
     */
    public static String eligible(String tag) {
        return tag + ":eligible";
    }

    /** Which upload of the list (its MySQL generation) and for how many shards {@link #eligible} holds: {@code g/K}. */
    public static String eligibleVersion(String tag) {
        return tag + ":eligible:v";
    }

    /** A shard's part of a list being loaded by one loader (its token), before it replaces {@link #eligible}. */
    public static String eligibleLoad(String tag, String token) {
        return tag + ":eligible:load:" + token;
    }

    /** COUNT_ONLY's would-be refusals by a gate rule ("list" or "claims"), of this shard's members. */
    public static String wouldRefuse(String tag, String rule) {
        return tag + ":wouldRefuse:" + rule;
    }

    /**
     * A member's rate limit on admissions to an event of more than one shard, on their home shard: a key of its own
     * (not the event's {@link CouponKeys#memberLimit}, which status reads charge in the event's slot at their rate),
     * so one bucket is never charged at two rates.
     */
    public static String memberLimit(String tag, String memberId) {
        return tag + ":rl:sm:" + memberId;
    }

    /** An address's rate limit on admissions, on one shard: its rate and burst are the address's over the shards. */
    public static String addressLimit(String tag, String address) {
        return tag + ":rl:sa:" + address;
    }

    /**
     * The keys of one shard's stock, queue, order and transfers, by tag: of shard 0, those besides the event's own
     * ({@link CouponKeys#state}, which has its queue, sequence and cursor); of the others, all of them. What
     * retirement is to remove, shard by shard (each list in one slot).
     */
    public static List<String> state(String tag, int shard) {
        return stateKeys(tag, shard);
    }

    /** The same keys, of shard {@code shard} of an event of {@code shards} shards (its {@link #tag}). */
    public static List<String> state(long couponId, int shards, int shard) {
        return stateKeys(tag(couponId, shards, shard), shard);
    }

    private static List<String> stateKeys(String tag, int shard) {
        List<String> keys = new ArrayList<>(List.of(stock(tag), times(tag), escrow(tag), received(tag)));
        if (shard > 0) {
            keys.addAll(List.of(
                    queue(tag),
                    seq(tag),
                    cursor(tag),
                    result(tag),
                    done(tag),
                    stats(tag),
                    draw(tag),
                    eligible(tag),
                    eligibleVersion(tag),
                    wouldRefuse(tag, "list"),
                    wouldRefuse(tag, "claims")));
        }
        return keys;
    }

    /** The home shard of a member: {@code CRC32(UTF-8 member id) mod shards}. */
    public static int home(String memberId, int shards) {
        check(shards, 0);
        if (shards == 1) {
            return 0;
        }
        CRC32 crc = new CRC32();
        crc.update(memberId.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % shards);
    }

    /** The Redis Cluster slot of a hash tag's inside (no braces): CRC16/XMODEM mod 16384, as Redis computes it. */
    public static int slot(String tagInside) {
        int crc = 0;
        for (byte b : tagInside.getBytes(StandardCharsets.UTF_8)) {
            crc ^= (b & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
                crc &= 0xffff;
            }
        }
        return crc % SLOTS;
    }

    private static void check(int shards, int shard) {
        if (shards < 1 || shards > MAX || shard < 0 || shard >= shards) {
            throw new IllegalArgumentException("shard " + shard + " of " + shards + " (1 to " + MAX + " shards)");
        }
    }
}
