package com.flashcoupon.api.gatestate;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The gate's counts (issue 26) as figures of the event: what it refused, by rule, and in COUNT_ONLY mode the distinct
 * members each rule would have refused. Redis counts them inside admit.lua; they are saved in MySQL ({@code
 * coupon_gate}, V11) every few seconds while the event has state in Redis and once more just before its keys go at
 * retirement ({@link #save}, from the retire pass), and put back into Redis whenever the gate is mirrored ({@link
 * #restore}, from {@link GateMirror}): so they read the same after retirement and after a Redis loss (less what was
 * counted since the last save). COUNT_ONLY's HyperLogLogs travel in Redis' own encoding, read and written as bytes.
 */
@Component
public class GateCounts {

    private static final byte[] READ =
            LuaScripts.text("scripts/gate_counts_read.lua").getBytes(StandardCharsets.UTF_8);
    private static final byte[] MERGE =
            LuaScripts.text("scripts/gate_counts_merge.lua").getBytes(StandardCharsets.UTF_8);
    private static final ByteBuffer RESTORE = ByteBuffer.wrap(
                    LuaScripts.text("scripts/gate_counts_restore.lua").getBytes(StandardCharsets.UTF_8))
            .asReadOnlyBuffer();

    /**
     * The counts, as Redis or MySQL holds them.
     *
     * @param listSketch COUNT_ONLY's HyperLogLog of the list rule in Redis' encoding ({@code null}: none)
     */
    public record Counts(
            long refusedList,
            long refusedClaims,
            long refusedProof,
            long wouldRefuseList,
            long wouldRefuseClaims,
            byte[] listSketch,
            byte[] claimsSketch) {

        public static final Counts NONE = new Counts(0, 0, 0, 0, 0, null, null);

        boolean isNone() {
            return refusedList == 0
                    && refusedClaims == 0
                    && refusedProof == 0
                    && wouldRefuseList == 0
                    && wouldRefuseClaims == 0
                    && listSketch == null
                    && claimsSketch == null;
        }

        /** What a save would write, to skip the writes that would change nothing. */
        long fingerprint() {
            return Objects.hash(
                    refusedList,
                    refusedClaims,
                    refusedProof,
                    wouldRefuseList,
                    wouldRefuseClaims,
                    Arrays.hashCode(listSketch),
                    Arrays.hashCode(claimsSketch));
        }

        /** These refusal counts and another shard's, added up (the sketches are merged apart). */
        Counts plus(Counts other) {
            return new Counts(
                    refusedList + other.refusedList,
                    refusedClaims + other.refusedClaims,
                    refusedProof + other.refusedProof,
                    wouldRefuseList,
                    wouldRefuseClaims,
                    listSketch,
                    claimsSketch);
        }

        /** The refusal counts less those given (never below 0), the would-be refusals and sketches as they are. */
        Counts less(long list, long claims, long proof) {
            return new Counts(
                    Math.max(0, refusedList - list),
                    Math.max(0, refusedClaims - claims),
                    Math.max(0, refusedProof - proof),
                    wouldRefuseList,
                    wouldRefuseClaims,
                    listSketch,
                    claimsSketch);
        }

        /** The higher of each count (what the view shows: MySQL's after a loss or retirement, Redis' while live). */
        public Counts max(Counts other) {
            return new Counts(
                    Math.max(refusedList, other.refusedList),
                    Math.max(refusedClaims, other.refusedClaims),
                    Math.max(refusedProof, other.refusedProof),
                    Math.max(wouldRefuseList, other.wouldRefuseList),
                    Math.max(wouldRefuseClaims, other.wouldRefuseClaims),
                    null,
                    null);
        }
    }

    private final StringRedisTemplate redis;
    private final ReactiveStringRedisTemplate reactive;
    private final GateRepository gates;

    /** What this instance saved last, per event (the retire thread's), so that an unchanged count is not written. */
    private final Map<Long, Long> saved = new ConcurrentHashMap<>();

    GateCounts(StringRedisTemplate redis, ReactiveStringRedisTemplate reactive, GateRepository gates) {
        this.redis = redis;
        this.reactive = reactive;
        this.gates = gates;
    }

    /**
     * Saves what Redis counted of the event (of {@code shards} stock shards: on all of them) in MySQL (blocking: the
     * retire pass's thread), unless nothing changed since this instance saved last. Nothing when Redis does not hold
     * the event (lost and not restored: MySQL keeps the last save) or counted nothing.
     */
    public void save(long couponId, int shards) {
        Counts counts = read(couponId, shards);
        if (counts == null || counts.isNone()) {
            return;
        }
        long fingerprint = counts.fingerprint();
        Long before = saved.get(couponId);
        if (before != null && before == fingerprint) {
            return;
        }
        gates.saveCounts(couponId, counts);
        saved.put(couponId, fingerprint);
    }

    /** What Redis counted of the event as it stands (blocking); {@link Counts#NONE} when Redis does not hold it. */
    public Counts live(long couponId, int shards) {
        Counts counts = read(couponId, shards);
        return counts == null ? Counts.NONE : counts;
    }

    /** The event retired: its counts are final in MySQL, nothing more to remember of them here. */
    public void forget(long couponId) {
        saved.remove(couponId);
    }

    /**
     * Redis' counts; {@code null} when Redis does not hold the event. Of an event of more than one shard, the refusals
     * are added up over the shards (each member is refused on their home shard only) and each rule's sketches merged,
     * a shard Redis lost counting nothing.
     */
    private Counts read(long couponId, int shards) {
        Counts first = readOne(
                CouponKeys.meta(couponId),
                CouponKeys.stats(couponId),
                CouponKeys.wouldRefuse(couponId, "list"),
                CouponKeys.wouldRefuse(couponId, "claims"));
        if (shards <= 1 || first == null) {
            return first;
        }
        Counts sum = first;
        List<byte[]> lists = new ArrayList<>(List.of(sketchBytes(first.listSketch())));
        List<byte[]> claims = new ArrayList<>(List.of(sketchBytes(first.claimsSketch())));
        for (int shard = 1; shard < shards; shard++) {
            String tag = StockShards.tag(couponId, shards, shard);
            Counts counts = readOne(
                    StockShards.stock(tag),
                    StockShards.stats(tag),
                    StockShards.wouldRefuse(tag, "list"),
                    StockShards.wouldRefuse(tag, "claims"));
            if (counts != null) {
                sum = sum.plus(counts);
                lists.add(sketchBytes(counts.listSketch()));
                claims.add(sketchBytes(counts.claimsSketch()));
            }
        }
        List<?> list = merge(couponId, lists);
        List<?> claim = merge(couponId, claims);
        return new Counts(
                sum.refusedList(),
                sum.refusedClaims(),
                sum.refusedProof(),
                number(list.get(0)),
                number(claim.get(0)),
                sketch(list.get(1)),
                sketch(claim.get(1)));
    }

    /** One rule's sketches merged, in shard 0's slot: {count, sketch}. */
    private List<?> merge(long couponId, List<byte[]> sketches) {
        byte[][] keysAndArgs = new byte[2 + sketches.size()][];
        keysAndArgs[0] = bytes(CouponKeys.wouldRefuse(couponId, "merged"));
        keysAndArgs[1] = bytes(CouponKeys.wouldRefuse(couponId, "saved"));
        for (int i = 0; i < sketches.size(); i++) {
            keysAndArgs[2 + i] = sketches.get(i);
        }
        return redis.execute((RedisCallback<List<?>>)
                connection -> connection.scriptingCommands().eval(MERGE, ReturnType.MULTI, 2, keysAndArgs));
    }

    /** One slot's counts (the event's, or one shard's); {@code null} when its hash ({@code present}) is missing. */
    private Counts readOne(String present, String stats, String list, String claims) {
        byte[][] keys = {bytes(present), bytes(stats), bytes(list), bytes(claims)};
        List<?> reply = redis.execute((RedisCallback<List<?>>)
                connection -> connection.scriptingCommands().eval(READ, ReturnType.MULTI, 4, keys));
        if (reply == null || reply.isEmpty()) {
            return null;
        }
        if (reply.size() == 1) {
            return Counts.NONE;
        }
        return new Counts(
                number(reply.get(0)),
                number(reply.get(1)),
                number(reply.get(2)),
                number(reply.get(3)),
                number(reply.get(4)),
                sketch(reply.get(5)),
                sketch(reply.get(6)));
    }

    private static byte[] sketchBytes(byte[] sketch) {
        return sketch == null ? new byte[0] : sketch;
    }

    /**
     * Puts the saved counts back into Redis (raised to them, the sketches merged), unless the event is retired in
     * Redis (its mark): run before the meta is written, so a restored event counts on from what was saved. Of an event
     * of more than one shard, into shard 0's keys (the event's own); what the view and a save read adds the shards up.
     */
    Mono<Void> restore(long couponId, int shards, Counts counts) {
        if (counts.isNone()) {
            return Mono.empty();
        }
        if (shards <= 1) {
            return restoreInto(couponId, counts);
        }
        // the saved refusals are all shards' together, put back on shard 0: raised only to what the other shards do
        // not hold now (after their loss, everything; with nothing lost, no more than shard 0 has)
        return Flux.range(1, shards - 1)
                .concatMap(shard -> reactive.<String, String>opsForHash()
                        .multiGet(
                                StockShards.stats(StockShards.tag(couponId, shards, shard)),
                                List.of("refusedList", "refusedClaims", "refusedProof")))
                .reduce(new long[3], (sums, values) -> {
                    for (int i = 0; i < 3; i++) {
                        sums[i] += values.get(i) == null ? 0 : Long.parseLong(values.get(i));
                    }
                    return sums;
                })
                .flatMap(others -> restoreInto(couponId, counts.less(others[0], others[1], others[2])));
    }

    private Mono<Void> restoreInto(long couponId, Counts counts) {
        ByteBuffer[] keysAndArgs = {
            buffer(CouponKeys.retired(couponId)),
            buffer(CouponKeys.stats(couponId)),
            buffer(CouponKeys.wouldRefuse(couponId, "list")),
            buffer(CouponKeys.wouldRefuse(couponId, "claims")),
            // a key of the event's slot that lives only inside the script
            buffer(CouponKeys.wouldRefuse(couponId, "saved")),
            buffer(Long.toString(counts.refusedList())),
            buffer(Long.toString(counts.refusedClaims())),
            buffer(Long.toString(counts.refusedProof())),
            counts.listSketch() == null ? ByteBuffer.allocate(0) : ByteBuffer.wrap(counts.listSketch()),
            counts.claimsSketch() == null ? ByteBuffer.allocate(0) : ByteBuffer.wrap(counts.claimsSketch())
        };
        return reactive.execute(connection -> connection
                        .scriptingCommands()
                        .<Long>eval(RESTORE.duplicate(), ReturnType.INTEGER, 5, keysAndArgs))
                .then();
    }

    private static long number(Object value) {
        return Long.parseLong(new String((byte[]) value, StandardCharsets.US_ASCII));
    }

    private static byte[] sketch(Object value) {
        byte[] bytes = (byte[]) value;
        return bytes.length == 0 ? null : bytes;
    }

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private static ByteBuffer buffer(String value) {
        return ByteBuffer.wrap(bytes(value));
    }
}
