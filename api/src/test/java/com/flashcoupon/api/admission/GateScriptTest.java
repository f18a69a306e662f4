package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The gate (issue 26) inside {@code scripts/admit.lua} ({@code gate.lua} in front), run directly against the real
 * Redis: the list, the claim rules, COUNT_ONLY, and the human check's readings, each refusal writing nothing but its
 * counter.
 */
class GateScriptTest {

    private static final AtomicLong IDS =
            new AtomicLong(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 50));
    private static StringRedisTemplate redis;

    @BeforeAll
    static void connect() {
        redis = TestEnvironment.redis();
    }

    /** An open coupon with the gate's meta fields as mirror.lua writes them. */
    private static long coupon(int total, Map<String, String> gate) {
        long id = IDS.incrementAndGet();
        Map<String, String> meta = new HashMap<>(Map.of(
                "name", "c",
                "total", Integer.toString(total),
                "openAt", Long.toString(System.currentTimeMillis() - 60_000),
                "closeAt", "0",
                "closed", "0",
                "rate", "100",
                "base", "0"));
        meta.putAll(gate);
        redis.opsForHash().putAll(CouponKeys.meta(id), meta);
        return id;
    }

    private static Admission admit(long id, String member, String claims, String proof) {
        return AdmitScript.read(redis.execute(
                AdmitScript.TEMPLATE_SCRIPT, AdmitScript.keys(id), member, "0", "0", "0", "0", claims, proof));
    }

    private static long queued(long id) {
        return redis.opsForZSet().zCard(CouponKeys.queue(id));
    }

    private static Object stat(long id, String field) {
        return redis.opsForHash().get(CouponKeys.stats(id), field);
    }

    @Test
    void shouldAdmitOnlyListedMembersAndWriteNothingForTheOthers() {
        long id = coupon(10, Map.of("elig", "1", "eligN", "2", "eligMode", "E"));
        redis.opsForSet().add(CouponKeys.eligible(id), "a", "b");

        assertThat(admit(id, "a", "\n", "").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        Admission refused = admit(id, "z", "\n", "");

        assertThat(refused.outcome()).isEqualTo(Admission.Outcome.GATE_REFUSED);
        assertThat(refused.sequence()).isEqualTo(1);
        assertThat(queued(id)).isEqualTo(1);
        assertThat(redis.opsForValue().get(CouponKeys.seq(id))).isEqualTo("1");
        assertThat(stat(id, "refusedList")).isEqualTo("1");
        assertThat(admit(id, "b", "\n", "").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
    }

    @Test
    void shouldAnswerMirrorMissingWhenTheListIsGoneButTheMetaStayed() {
        long id = coupon(10, Map.of("elig", "1", "eligN", "2", "eligMode", "E"));

        assertThat(admit(id, "a", "\n", "").outcome()).isEqualTo(Admission.Outcome.MIRROR_MISSING);
    }

    @Test
    void shouldRefuseEveryoneWhenTheListIsRequiredAndEmpty() {
        long id = coupon(10, Map.of("elig", "1", "eligN", "0", "eligMode", "E"));

        assertThat(admit(id, "a", "\n", "").outcome()).isEqualTo(Admission.Outcome.GATE_REFUSED);
    }

    @Test
    void shouldHoldEveryClaimRuleWithOneOfItsValues() {
        long id = coupon(10, Map.of("claims", "tier\tGOLD\tVIP\nregion\tKR\n", "eligMode", "E"));

        assertThat(admit(id, "gold", "\ntier\tGOLD\nregion\tKR\n", "").outcome())
                .isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(admit(id, "vip", "\nregion\tKR\ntier\tVIP\n", "").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        Admission silver = admit(id, "silver", "\ntier\tSILVER\nregion\tKR\n", "");
        assertThat(silver.outcome()).isEqualTo(Admission.Outcome.GATE_REFUSED);
        assertThat(silver.sequence()).isEqualTo(2);
        assertThat(admit(id, "abroad", "\ntier\tGOLD\nregion\tJP\n", "").outcome())
                .isEqualTo(Admission.Outcome.GATE_REFUSED);
        assertThat(admit(id, "prefix", "\ntier\tGOLDEN\nregion\tKR\n", "").outcome())
                .isEqualTo(Admission.Outcome.GATE_REFUSED);
        assertThat(admit(id, "none", "\n", "").outcome()).isEqualTo(Admission.Outcome.GATE_REFUSED);
        assertThat(queued(id)).isEqualTo(2);
        assertThat(stat(id, "refusedClaims")).isEqualTo("4");
    }

    @Test
    void shouldAdmitInCountOnlyModeAndCountEachRuleOncePerMember() {
        long id = coupon(10, Map.of("elig", "1", "eligN", "1", "claims", "tier\tGOLD\n", "eligMode", "C"));
        redis.opsForSet().add(CouponKeys.eligible(id), "listed");

        Admission listed = admit(id, "listed", "\ntier\tGOLD\n", "");
        Admission x = admit(id, "x", "\ntier\tGOLD\n", "");
        assertThat(listed.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(listed.places()).as("no rule would have refused").isZero();
        assertThat(x.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(x.places()).as("the list would have refused").isEqualTo(1);
        assertThat(admit(id, "x", "\ntier\tGOLD\n", "").outcome()).isEqualTo(Admission.Outcome.ALREADY_ASKED);
        assertThat(admit(id, "y", "\n", "").places())
                .as("both rules would have refused")
                .isEqualTo(3);

        assertThat(redis.opsForHyperLogLog().size(CouponKeys.wouldRefuse(id, "list")))
                .isEqualTo(2);
        assertThat(redis.opsForHyperLogLog().size(CouponKeys.wouldRefuse(id, "claims")))
                .isEqualTo(1);
        assertThat(stat(id, "refusedList")).isNull();
    }

    /**
     * The gate decides who may take a place, not who keeps one: a queued member whose claims changed, or who is no
     * longer on the list, is answered with their place (and counted by no rule); a member without one is refused.
     */
    @Test
    void shouldAnswerAMemberWhoHoldsAPlaceWhateverTheGateSaysNow() {
        long id = coupon(10, Map.of("elig", "1", "eligN", "2", "claims", "tier\tGOLD\n", "eligMode", "E"));
        redis.opsForSet().add(CouponKeys.eligible(id), "a", "b");
        assertThat(admit(id, "a", "\ntier\tGOLD\n", "").outcome()).isEqualTo(Admission.Outcome.ADMITTED);

        assertThat(admit(id, "a", "\ntier\tSILVER\n", ""))
                .extracting(Admission::outcome, Admission::sequence)
                .containsExactly(Admission.Outcome.ALREADY_ASKED, 1L);
        redis.opsForSet().remove(CouponKeys.eligible(id), "a");
        assertThat(admit(id, "a", "\ntier\tGOLD\n", "").outcome()).isEqualTo(Admission.Outcome.ALREADY_ASKED);
        assertThat(admit(id, "b", "\ntier\tSILVER\n", ""))
                .extracting(Admission::outcome, Admission::sequence)
                .containsExactly(Admission.Outcome.GATE_REFUSED, 2L);
        assertThat(stat(id, "refusedList")).isNull();
        assertThat(stat(id, "refusedClaims")).isEqualTo("1");
    }

    @Test
    void shouldAskForAProofOfWorkOfEnoughBitsFromMembersWithoutAPlace() {
        long id = coupon(10, Map.of("human", "POW", "bits", "12"));

        assertThat(admit(id, "a", "\n", ""))
                .extracting(Admission::outcome, Admission::sequence)
                .containsExactly(Admission.Outcome.GATE_REFUSED, 3L);
        assertThat(admit(id, "a", "\n", "P11"))
                .extracting(Admission::outcome, Admission::sequence)
                .containsExactly(Admission.Outcome.GATE_REFUSED, 4L);
        assertThat(admit(id, "a", "\n", "X").sequence()).isEqualTo(4);
        assertThat(admit(id, "a", "\n", "?").sequence()).isEqualTo(4);
        assertThat(admit(id, "a", "\n", "P12").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        // asking again needs no new proof
        assertThat(admit(id, "a", "\n", "").outcome()).isEqualTo(Admission.Outcome.ALREADY_ASKED);
        assertThat(queued(id)).isEqualTo(1);
        assertThat(stat(id, "refusedProof")).isEqualTo("4");
    }

    @Test
    void shouldTakeOnlyAnArgon2idProofForAnArgon2idEvent() {
        long id = coupon(10, Map.of("human", "A2", "bits", "6"));

        // a SHA-256 proof of many bits is not an Argon2id one
        assertThat(admit(id, "a", "\n", "P20"))
                .extracting(Admission::outcome, Admission::sequence)
                .containsExactly(Admission.Outcome.GATE_REFUSED, 4L);
        assertThat(admit(id, "a", "\n", "A5").sequence()).isEqualTo(4);
        assertThat(admit(id, "a", "\n", "A6").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(stat(id, "refusedProof")).isEqualTo("2");
    }

    @Test
    void shouldTakeOnlyACheckedTokenForASiteverifyEvent() {
        long id = coupon(10, Map.of("human", "SV", "bits", "0"));

        assertThat(admit(id, "a", "\n", "?").sequence()).isEqualTo(6); // the api checks it first
        assertThat(admit(id, "a", "\n", "U").sequence()).isEqualTo(5);
        assertThat(admit(id, "a", "\n", "X").sequence()).isEqualTo(4);
        assertThat(admit(id, "a", "\n", "P20").sequence()).isEqualTo(4);
        assertThat(admit(id, "a", "\n", "S").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(queued(id)).isEqualTo(1);
    }

    @Test
    void shouldAdmitAsBeforeWithoutGateFields() {
        long id = coupon(10, Map.of());

        assertThat(admit(id, "a", "\n", "").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(AdmitScript.read(redis.execute(AdmitScript.TEMPLATE_SCRIPT, AdmitScript.keys(id), "b"))
                        .outcome())
                .isEqualTo(Admission.Outcome.ADMITTED);
    }

    @Test
    void shouldRemoveTheGatesKeysWithTheEventsState() {
        assertThat(CouponKeys.state(7))
                .contains(
                        CouponKeys.eligible(7),
                        CouponKeys.eligibleVersion(7),
                        CouponKeys.wouldRefuse(7, "list"),
                        CouponKeys.wouldRefuse(7, "claims"));
    }

    /**
     * What the gate adds to one admission script, printed (GATE-COST-FIGURE), never asserted: admissions of distinct
     * members on an event without a gate and on one with a list and a claim rule, interleaved so that the machine's
     * load falls on both alike (each call is a round trip through the template).
     */
    @Test
    void printWhatTheGateCosts() {
        int members = 5_000;
        long plain = coupon(members * 2, Map.of());
        long gated = coupon(members * 2, Map.of("elig", "1", "eligN", "1", "claims", "tier\tGOLD\n", "eligMode", "E"));
        String[] listed = new String[members];
        for (int i = 0; i < members; i++) {
            listed[i] = "m-" + i;
        }
        redis.opsForSet().add(CouponKeys.eligible(gated), listed);
        long plainNanos = 0;
        long gatedNanos = 0;
        for (int i = 0; i < members; i++) {
            long started = System.nanoTime();
            admit(plain, listed[i], "\n", "");
            plainNanos += System.nanoTime() - started;
            started = System.nanoTime();
            admit(gated, listed[i], "\ntier\tGOLD\n", "");
            gatedNanos += System.nanoTime() - started;
        }
        System.out.printf(
                "GATE-COST-FIGURE %d admissions each: %.1f µs per call without a gate, %.1f µs with a list and a claim"
                        + " rule%n",
                members, plainNanos / 1e3 / members, gatedNanos / 1e3 / members);
        assertThat(queued(gated)).isEqualTo(members);
    }
}
