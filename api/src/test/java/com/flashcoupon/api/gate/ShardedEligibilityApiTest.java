package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.coupon.CouponMirror;
import com.flashcoupon.api.gatestate.GateCounts;
import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.StockShards;
import com.flashcoupon.db.CouponRepository;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Eligibility with the stock in shards (docs/architecture.md, "Stock shards"), against real Redis, MySQL and Kafka:
 * the list is kept split by the members' home shards, each part where its members' admissions run; exactly the listed
 * members are admitted, on every shard; an upload replaces every part, a part lost alone is loaded again, and a count
 * changed before the event opens deals the list again (the whole list back for one shard). The gate's figures add up
 * over the shards, and a COUNT_ONLY sketch survives a loss of the counts, counted once per member.
 */
@ApiTest
@TestPropertySource(properties = "coupon.shards.max-served=6")
class ShardedEligibilityApiTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @Autowired
    CouponMirror mirror;

    @Autowired
    CouponRepository coupons;

    @Autowired
    GateCounts counts;

    /** An event of {@code shards} shards, announced, opening in an hour, with the given gate. */
    private long scheduled(int shards, Map<String, Object> gate) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Map<String, Object> body = new HashMap<>(Map.of(
                "name",
                "Members only, sharded",
                "totalQuantity",
                100,
                "openAt",
                now.plusSeconds(3600).toString(),
                "announceAt",
                now.minusSeconds(60).toString(),
                "issueRatePerSecond",
                1,
                "validDays",
                30,
                "stockShards",
                shards));
        body.putAll(gate);
        return createCoupon(body);
    }

    /** Opens the event now: its row's openAt moves to the past and the mirror writes it on every shard. */
    private void open(long id) {
        var past = java.sql.Timestamp.from(Instant.now().minusSeconds(60));
        jdbc.sql("UPDATE coupon SET open_at = ?, version = version + 1 WHERE id = ?")
                .params(past, id)
                .update();
        remirror(id);
    }

    private void remirror(long id) {
        mirror.mirror(coupons.findById(id).orElseThrow()).block(Duration.ofSeconds(30));
    }

    private void upload(long id, List<String> members) {
        client().put()
                .uri("/admin/v1/coupons/{id}/eligible-members", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.TEXT_PLAIN)
                .bodyValue(String.join("\n", members) + "\n")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.count")
                .isEqualTo(members.size());
    }

    private WebTestClient.ResponseSpec ask(long id, String member) {
        return client().post()
                .uri("/api/v1/coupons/{id}/issue-requests", id)
                .header("Authorization", "Bearer " + Tokens.member(member))
                .exchange();
    }

    private long figure(long id, String field, String rule) {
        Map<?, ?> view = adminGet("/admin/v1/coupons/{id}/eligibility", id);
        return ((Number) ((Map<?, ?>) view.get(field)).get(rule)).longValue();
    }

    private static List<String> named(String prefix, int count) {
        String run = UUID.randomUUID().toString().substring(0, 8);
        return IntStream.range(0, count)
                .mapToObj(i -> prefix + "-" + run + "-" + i)
                .toList();
    }

    /** {@code perShard} members of each home shard of {@code shards}, not otherwise named. */
    private static List<String> homedOnEvery(int shards, int perShard) {
        List<String> found = new ArrayList<>();
        int[] per = new int[shards];
        while (found.size() < shards * perShard) {
            String member = "s-" + UUID.randomUUID();
            int home = StockShards.home(member, shards);
            if (per[home] < perShard) {
                per[home]++;
                found.add(member);
            }
        }
        return found;
    }

    /** Each shard's part holds exactly its members of {@code list} (and the empty member that marks it loaded). */
    private void assertSplit(long id, int shards, List<String> list) {
        for (int shard = 0; shard < shards; shard++) {
            int at = shard;
            String tag = StockShards.tag(id, shards, shard);
            Set<String> expected = list.stream()
                    .filter(member -> StockShards.home(member, shards) == at)
                    .collect(Collectors.toCollection(HashSet::new));
            expected.add("");
            assertThat(redis.opsForSet().members(StockShards.eligible(tag)))
                    .as("shard %d's part of the list", shard)
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(redis.opsForValue().get(StockShards.eligibleVersion(tag)))
                    .endsWith("/" + shards);
            assertThat(redis.getExpire(StockShards.eligible(tag)))
                    .as("shard %d's part expires", shard)
                    .isEqualTo(-1L);
        }
    }

    @Test
    void shouldAdmitExactlyTheListedMembersOnEveryShardAndCountTheRefusalsOfAll() {
        int shards = 4;
        long id = scheduled(shards, Map.of("eligibility", Map.of("list", true)));
        List<String> listed = named("m", 40);
        upload(id, listed);
        assertSplit(id, shards, listed);

        // refused before the event opens too (the gate answers first): two strangers at home on each shard
        List<String> strangers = homedOnEvery(shards, 2);
        for (String stranger : strangers) {
            expectProblem(ask(id, stranger), 403, "NOT_ELIGIBLE");
        }
        open(id);
        for (String member : listed) {
            ask(id, member).expectStatus().isAccepted();
            assertThat(redis.opsForZSet()
                            .score(
                                    StockShards.queue(StockShards.tag(id, shards, StockShards.home(member, shards))),
                                    member))
                    .as("%s placed on their home shard", member)
                    .isNotNull();
        }
        expectProblem(ask(id, strangers.get(3)), 403, "NOT_ELIGIBLE");

        assertThat(placedOnShards(id, shards)).isEqualTo(listed.size());
        assertThat(figure(id, "refused", "list")).isEqualTo(strangers.size() + 1);
    }

    @Test
    void shouldReplaceEveryPartWithTheNextUploadAndLoadALostPartAgain() {
        int shards = 3;
        long id = scheduled(shards, Map.of("eligibility", Map.of("list", true)));
        List<String> first = named("a", 12);
        upload(id, first);
        List<String> second = named("b", 15);
        upload(id, second);
        assertSplit(id, shards, second);
        open(id);
        expectProblem(ask(id, first.get(0)), 403, "NOT_ELIGIBLE");

        // one shard's part is lost alone: its next admission finds it missing and the mirror loads it again
        String member = second.get(0);
        String tag = StockShards.tag(id, shards, StockShards.home(member, shards));
        redis.delete(StockShards.eligible(tag));
        ask(id, member).expectStatus().isAccepted();
        assertSplit(id, shards, second);
        for (String other : homedOnEvery(shards, 1)) {
            expectProblem(ask(id, other), 403, "NOT_ELIGIBLE");
        }
    }

    @Test
    void shouldDealTheListAgainWhenTheCountChangesAndGiveItWholeToOneShard() {
        long id = scheduled(3, Map.of("eligibility", Map.of("list", true)));
        List<String> listed = named("c", 20);
        upload(id, listed);
        assertSplit(id, 3, listed);

        patchCoupon(id, "{\"stockShards\": 1}").expectStatus().isOk();
        assertThat(redis.opsForSet().members(CouponKeys.eligible(id))).containsExactlyInAnyOrderElementsOf(listed);

        patchCoupon(id, "{\"stockShards\": 4}").expectStatus().isOk();
        assertSplit(id, 4, listed);
        // the parts loaded for 3 went with the old count's stock (but a tag both counts share, loaded for 4)
        for (int shard = 1; shard < 3; shard++) {
            String tag = StockShards.tag(id, 3, shard);
            String version = redis.opsForValue().get(StockShards.eligibleVersion(tag));
            assertThat(version == null || version.endsWith("/4"))
                    .as("shard %d of 3: %s", shard, version)
                    .isTrue();
        }
        open(id);
        for (String member : listed) {
            ask(id, member).expectStatus().isAccepted();
        }
        assertThat(placedOnShards(id, 4)).isEqualTo(listed.size());
    }

    @Test
    void shouldCountWhoWouldBeRefusedOnceOverTheShardsAndThroughALossOfTheCounts() {
        int shards = 4;
        long id = scheduled(shards, Map.of("eligibility", Map.of("list", true), "eligibilityMode", "COUNT_ONLY"));
        upload(id, List.of("in-" + id));
        open(id);
        ask(id, "in-" + id).expectStatus().isAccepted();
        List<String> others = homedOnEvery(shards, 2);
        for (String other : others) {
            ask(id, other).expectStatus().isAccepted();
        }
        ask(id, others.get(0)).expectStatus().isOk();
        assertThat(figure(id, "wouldRefuse", "list")).isEqualTo(others.size());

        // saved in MySQL (as the retire pass does every few passes), merged over the shards
        counts.save(id, shards);
        assertThat(jdbc.sql("SELECT would_refuse_list FROM coupon_gate WHERE coupon_id = ?")
                        .param(id)
                        .query(Long.class)
                        .single())
                .isEqualTo(others.size());

        // every shard's counts lost; the next mirror puts the saved sketch back on shard 0
        for (int shard = 0; shard < shards; shard++) {
            String tag = StockShards.tag(id, shards, shard);
            redis.delete(List.of(
                    StockShards.stats(tag),
                    StockShards.wouldRefuse(tag, "list"),
                    StockShards.wouldRefuse(tag, "claims")));
        }
        remirror(id);
        assertThat(figure(id, "wouldRefuse", "list")).isEqualTo(others.size());
        // a member counted before the loss, counted again on their home shard (as the gate's PFADD does for one
        // refused again): once; a new one: once more
        String again = others.get(5);
        redis.opsForHyperLogLog()
                .add(
                        StockShards.wouldRefuse(StockShards.tag(id, shards, StockShards.home(again, shards)), "list"),
                        again);
        ask(id, "o-new-" + id).expectStatus().isAccepted();
        assertThat(figure(id, "wouldRefuse", "list")).isEqualTo(others.size() + 1);
        // mirrored again with nothing lost: nothing counted twice
        remirror(id);
        assertThat(figure(id, "wouldRefuse", "list")).isEqualTo(others.size() + 1);
    }

    @Test
    void shouldNotCountARefusalTwiceWhenTheCountsAreRestoredWithNothingLost() {
        int shards = 3;
        long id = scheduled(shards, Map.of("eligibility", Map.of("list", true)));
        upload(id, List.of("in-" + id));
        List<String> strangers = homedOnEvery(shards, 2);
        for (String stranger : strangers) {
            expectProblem(ask(id, stranger), 403, "NOT_ELIGIBLE");
        }
        counts.save(id, shards);
        remirror(id);
        remirror(id);
        // what Redis counts (the view shows the higher of it and MySQL's save)
        assertThat(counts.live(id, shards).refusedList()).isEqualTo(strangers.size());

        // shard 1's counts lost alone: the saved total makes up for them on shard 0
        redis.delete(StockShards.stats(StockShards.tag(id, shards, 1)));
        remirror(id);
        assertThat(counts.live(id, shards).refusedList()).isEqualTo(strangers.size());
        assertThat(figure(id, "refused", "list")).isEqualTo(strangers.size());
    }
}
