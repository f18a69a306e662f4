package com.flashcoupon.api.draw;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Redis side of making a draw, for one owner of the draw's lease (an api instance's {@link DrawMaker}): the
 * window's state, the entrants, the placed members written with the sequences the window held, and the mark that the
 * draw is made. Each write checks the lease in the same script, so an owner that lost it writes nothing.
 */
public final class RedisDraw {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> STATE =
            RedisScript.of(DrawWindow.withWindow(LuaScripts.text("scripts/draw_state.lua")), List.class);

    private static final RedisScript<Long> PLACE =
            RedisScript.of(LuaScripts.text("scripts/draw_place.lua"), Long.class);
    private static final RedisScript<Long> FINISH =
            RedisScript.of(LuaScripts.text("scripts/draw_finish.lua"), Long.class);
    private static final RedisScript<Long> RENEW =
            RedisScript.of(LuaScripts.text("scripts/drain_renew.lua"), Long.class);
    private static final RedisScript<Long> RELEASE =
            RedisScript.of(LuaScripts.text("scripts/release_lock.lua"), Long.class);

    /** How long the lease lasts without a sign of life; renewed with every page read or written. */
    static final Duration LEASE_TTL = Duration.ofSeconds(30);

    /** Entrants per Redis read and placed members per Redis write. */
    static final int PAGE = 10_000;

    private final StringRedisTemplate redis;
    private final String owner;

    public RedisDraw(StringRedisTemplate redis, String owner) {
        this.redis = redis;
        this.owner = owner;
    }

    /**
     * draw_state.lua: closes the window if it is over and says where the draw stands.
     *
     * @param present the event is in Redis
     * @param window draw.lua's {@code draw_window} state: 0 made (or no draw), 1 the window is open, 2 to be made
     * @param firstSequence the sequence the window held for place 1
     * @param places how many places the window held
     * @param entrants how many members the window froze
     * @param madeWithoutSeed drawn by the draw script of old (the api's own tickets), before draws had seeds
     */
    public record State(
            boolean present, int window, long firstSequence, long places, long entrants, boolean madeWithoutSeed) {}

    public State state(long couponId) {
        List<?> reply = redis.execute(
                STATE,
                List.of(
                        CouponKeys.meta(couponId),
                        CouponKeys.queue(couponId),
                        CouponKeys.seq(couponId),
                        CouponKeys.draw(couponId)));
        return new State(
                number(reply, 0) == 1,
                (int) number(reply, 1),
                number(reply, 2),
                number(reply, 3),
                number(reply, 4),
                number(reply, 5) == 1);
    }

    /** Takes the draw's lease, or keeps it when this owner holds it already; false while another owner does. */
    public boolean lease(long couponId) {
        String key = CouponKeys.drawLease(couponId);
        Boolean taken = redis.opsForValue().setIfAbsent(key, owner, LEASE_TTL);
        return Boolean.TRUE.equals(taken) || owner.equals(redis.opsForValue().get(key));
    }

    public void release(long couponId) {
        redis.execute(RELEASE, List.of(CouponKeys.drawLease(couponId)), owner);
    }

    /** Extends the lease; fails when another owner holds it now. */
    public void renew(long couponId) {
        Long renewed = redis.execute(
                RENEW, List.of(CouponKeys.drawLease(couponId)), owner, Long.toString(LEASE_TTL.toMillis()));
        if (renewed == null || renewed != 1) {
            throw lost(couponId);
        }
    }

    /** The window's entrants, in their ids' byte order, read page by page (the lease renewed with each). */
    public List<String> entrants(long couponId) {
        List<String> entrants = read(couponId, CouponKeys.draw(couponId));
        // every score is 0, so Redis keeps them in byte order already; a draw of the old kind was kept by ticket
        return inByteOrder(entrants) ? entrants : byteOrder(entrants);
    }

    /**
     * The entrants of a fair start across stock shards: every shard's draw, merged in their ids' byte order (each
     * member entered on their home shard only).
     */
    public List<String> entrants(long couponId, int shards) {
        List<String> entrants = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            entrants.addAll(read(couponId, StockShards.draw(StockShards.tag(couponId, shards, shard))));
        }
        return byteOrder(entrants);
    }

    private List<String> read(long couponId, String key) {
        List<String> entrants = new ArrayList<>();
        for (long from = 0; ; from += PAGE) {
            var page = redis.opsForZSet().range(key, from, from + PAGE - 1);
            if (page == null || page.isEmpty()) {
                break;
            }
            entrants.addAll(page);
            if (from % (10L * PAGE) == 0) {
                renew(couponId);
            }
            if (page.size() < PAGE) {
                break;
            }
        }
        return entrants;
    }

    private static boolean inByteOrder(List<String> members) {
        byte[] previous = null;
        for (String member : members) {
            byte[] bytes = member.getBytes(StandardCharsets.UTF_8);
            if (previous != null && Arrays.compareUnsigned(previous, bytes) > 0) {
                return false;
            }
            previous = bytes;
        }
        return true;
    }

    /** Sorted by their UTF-8 bytes, each member's bytes taken once. */
    private static List<String> byteOrder(List<String> members) {
        record Keyed(byte[] bytes, String member) {}
        List<Keyed> keyed = new ArrayList<>(members.size());
        for (String member : members) {
            keyed.add(new Keyed(member.getBytes(StandardCharsets.UTF_8), member));
        }
        keyed.sort((a, b) -> Arrays.compareUnsigned(a.bytes(), b.bytes()));
        return new ArrayList<>(keyed.stream().map(Keyed::member).toList());
    }

    /**
     * Writes the placed members into the queue, place 1 at {@code firstSequence}, page by page, then marks the draw
     * made: members learn their outcome from now on.
     */
    public void place(long couponId, long firstSequence, List<String> placed) {
        for (int from = 0; from < placed.size(); from += PAGE) {
            List<String> args = new ArrayList<>();
            args.add(owner);
            args.add(Long.toString(LEASE_TTL.toMillis()));
            for (int i = from; i < Math.min(placed.size(), from + PAGE); i++) {
                args.add(Long.toString(firstSequence + i));
                args.add(placed.get(i));
            }
            Long added = redis.execute(
                    PLACE,
                    List.of(CouponKeys.meta(couponId), CouponKeys.queue(couponId), CouponKeys.drawLease(couponId)),
                    args.toArray());
            if (added == null || added < 0) {
                throw lost(couponId);
            }
        }
        finish(couponId);
    }

    /** Marks the draw made on the event's meta: the drainer publishes from now on. */
    public void finish(long couponId) {
        Long finished =
                redis.execute(FINISH, List.of(CouponKeys.meta(couponId), CouponKeys.drawLease(couponId)), owner);
        if (finished == null || finished < 0) {
            throw lost(couponId);
        }
    }

    /** The queue's sequence of each entrant (null: not queued), for a draw made by the draw script of old. */
    public List<Double> sequences(long couponId, List<String> entrants) {
        List<Double> sequences = new ArrayList<>(entrants.size());
        for (int from = 0; from < entrants.size(); from += PAGE) {
            List<String> page = entrants.subList(from, Math.min(entrants.size(), from + PAGE));
            List<Double> scores = redis.opsForZSet().score(CouponKeys.queue(couponId), page.toArray());
            for (int i = 0; i < page.size(); i++) {
                sequences.add(scores == null ? null : scores.get(i));
            }
        }
        return sequences;
    }

    private static IllegalStateException lost(long couponId) {
        return new IllegalStateException("lost the lease on the draw of coupon " + couponId);
    }
}
