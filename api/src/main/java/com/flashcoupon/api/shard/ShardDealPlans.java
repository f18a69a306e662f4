package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.CouponKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What a deal writes on each shard (docs/architecture.md, "Stock shards"), from what the mirror found on the shards
 * ({@code shard_restored.lua}'s replies) and, for a shard lost alone, from the stock the others hold and the shard's
 * publication mark in the event's meta.
 *
 * <p>A shard lost alone (its primary and replicas lost while the others kept theirs) held what the stock less every
 * other shard's cap and escrow comes to. Of that, the admissions it had published (its mark) stay taken: the members
 * MySQL decided come back into its queue, the others (in Kafka, undecided) are counted in its negative {@code back}
 * until the worker puts each back. The rest is free again. Without a mark (an event Redis once lost whole, whose
 * marks went with its meta; shard 0, whose slot holds the meta; or an event dealt before marks were kept), or without
 * two reads of the other shards that agree, it gets no free stock: never more than N.
 */
final class ShardDealPlans {

    static final ScriptConnection.Script MARKS_READ = ShardStock.script("shard_marks_read.lua");

    /** Reads of the other shards tried for two that agree (no transfer moved between them). */
    private static final int READS = 6;

    /**
     * One deal's writes: each shard's share (kept where a shard holds one already), each shard's starting {@code back}
     * ('' for none), the publications MySQL knew for the worker's second-place check ('' for none), whether the meta
     * starts keeping publication marks (the first deal of the count), the meta's base after a whole loss, and the
     * members found in the queue of each shard without a share ('' for the others: shard_init.lua gives a member put
     * back since its place).
     */
    record Plan(long[] shares, String[] back, String restored, boolean startMarks, long base, String[] found) {}

    private final ShardStock.Redis redis;

    ShardDealPlans(ShardStock.Redis redis) {
        this.redis = redis;
    }

    Mono<Plan> plan(
            long couponId,
            String[] tags,
            int shards,
            int total,
            long floor,
            List<List<Object>> found,
            boolean metaRestored) {
        Set<Integer> lost = ShardDeal.lostAlone(found, shards);
        boolean dealtBefore = ShardDeal.dealtBefore(found, shards);
        long base = Math.max(0, floor - ShardDeal.back(found));
        String[] none = new String[shards];
        Arrays.fill(none, "");
        String[] foundMembers = new String[shards];
        for (int shard = 0; shard < shards; shard++) {
            foundMembers[shard] = number(found.get(shard), 0) == 0 ? Long.toString(number(found.get(shard), 1)) : "";
        }
        // as it was dealt: fresh, after a whole loss (what MySQL knew published, for the second-place check), or a
        // shard lost alone with nothing to deal it from (no free stock, and its sequences may fall back)
        Plan plain = new Plan(
                ShardDeal.shares(found, shards, total, floor),
                none,
                floor > 0 && !dealtBefore ? Long.toString(floor) : "",
                floor == 0 && !dealtBefore,
                base,
                foundMembers);
        if (lost.isEmpty() || lost.contains(0) || metaRestored) {
            return Mono.just(plain);
        }
        List<Integer> lostShards = new ArrayList<>(lost);
        List<String> args = new ArrayList<>();
        args.add(Integer.toString(shards));
        lostShards.forEach(shard -> args.add(Integer.toString(shard)));
        return redis.eval(MARKS_READ, new String[] {CouponKeys.meta(couponId)}, args.toArray(String[]::new))
                .flatMap(marks -> {
                    for (int i = 0; i < lostShards.size(); i++) {
                        if (number(marks, i) < 0) {
                            return Mono.just(plain);
                        }
                    }
                    return keptStock(tags, shards, lost, READS).map(kept -> {
                        if (kept < 0) {
                            return plain;
                        }
                        long[] shares = plain.shares().clone();
                        String[] back = none.clone();
                        long published = 0;
                        for (int i = 0; i < lostShards.size(); i++) {
                            int shard = lostShards.get(i);
                            long members = number(found.get(shard), 1);
                            long mark = Math.max(number(marks, i), members);
                            published += mark;
                            back[shard] = Long.toString(members - mark);
                        }
                        long free = Math.max(0, total - kept - published);
                        for (int i = 0; i < lostShards.size(); i++) {
                            int shard = lostShards.get(i);
                            shares[shard] = number(found.get(shard), 1)
                                    + free / lostShards.size()
                                    + (i < free % lostShards.size() ? 1 : 0);
                        }
                        return new Plan(shares, back, floor > 0 ? Long.toString(floor) : "", false, base, foundMembers);
                    });
                });
    }

    /**
     * The caps and escrow of every shard not lost, summed, from two consecutive reads that agree on each shard's
     * transfers and escrow (a transfer completing between the reads of two shards could hide its amount from both);
     * -1 when none agree.
     */
    private Mono<Long> keptStock(String[] tags, int shards, Set<Integer> lost, int reads) {
        Mono<List<List<Object>>> read = Flux.range(0, shards)
                .filter(shard -> !lost.contains(shard))
                .concatMap(shard -> redis.eval(ShardDeal.RESTORED, ShardDeal.restoredKeys(tags[shard]), "0"))
                .collectList();
        return read.flatMap(first -> agreeing(read, first, reads - 1));
    }

    private static Mono<Long> agreeing(Mono<List<List<Object>>> read, List<List<Object>> before, int reads) {
        if (reads <= 0) {
            return Mono.just(-1L);
        }
        return read.flatMap(now -> {
            if (!Objects.equals(transfers(before), transfers(now))) {
                return agreeing(read, now, reads - 1);
            }
            long held = 0;
            for (List<Object> shard : now) {
                if (shard.size() < 8) {
                    return Mono.just(-1L); // lost too, or retired, since it was found: what it holds is not known
                }
                // its cap, its escrow, and the places it holds in no cap for admissions published before a loss of
                // its own (a negative back, less the second places given back since)
                held += number(shard, 3) + number(shard, 4) + Math.max(0, -number(shard, 6) - number(shard, 7));
            }
            return Mono.just(held);
        });
    }

    /** Each shard's transfers made and escrow, as read. */
    private static List<Long> transfers(List<List<Object>> read) {
        List<Long> seen = new ArrayList<>();
        for (List<Object> shard : read) {
            seen.add(shard.size() < 8 ? -1 : number(shard, 4));
            seen.add(shard.size() < 8 ? -1 : number(shard, 5));
            seen.add(shard.size() < 8 ? -1 : number(shard, 6));
        }
        return seen;
    }
}
