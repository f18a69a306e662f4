package com.flashcoupon.api.gate;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.gatestate.GateRepository;
import com.flashcoupon.api.gatestate.GateSettings;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The gate of a retired event, decided from MySQL as gate.lua decided it in Redis (issue 26): a member it would have
 * refused, who holds no place, is still told NOT_ELIGIBLE after the retirement, not SOLD_OUT or CLOSED. A retired
 * event's gate never changes, so its settings are read once per instance (bounded, like the retired events held).
 */
@Component
public class RetiredGate {

    private static final int MAX_HELD = 10_000;

    private final Cache<Long, Optional<GateRepository.Stored>> held =
            Caffeine.newBuilder().maximumSize(MAX_HELD).build();

    private final GateRepository gates;
    private final BlockingIo blocking;

    RetiredGate(GateRepository gates, BlockingIo blocking) {
        this.gates = gates;
        this.blocking = blocking;
    }

    /**
     * gate.lua's refusal of the member by the event's rules (1 the list, 2 the claims), or 0: none, or the event only
     * counts (COUNT_ONLY). Whether the member holds a place is the caller's to ask, only when this is not 0.
     *
     * @param claims the member's claims as admit.lua takes them (ARGV[6], {@link GateClaims#encode})
     */
    public Mono<Long> refusal(long couponId, String memberId, String claims) {
        Optional<GateRepository.Stored> known = held.getIfPresent(couponId);
        Mono<Optional<GateRepository.Stored>> gate = known != null
                ? Mono.just(known)
                : blocking.call(() -> gates.find(couponId)).doOnNext(found -> held.put(couponId, found));
        return gate.flatMap(found -> {
            if (found.isEmpty() || found.get().settings().mode() != GateSettings.Mode.ENFORCE) {
                return Mono.just(0L);
            }
            GateRepository.Stored stored = found.get();
            Mono<Boolean> listed = stored.settings().list()
                    ? blocking.call(() -> gates.isListed(couponId, stored.listGeneration(), memberId))
                    : Mono.just(true);
            return listed.map(
                    onList -> !onList ? 1L : claimsHold(stored.settings().claims(), claims) ? 0L : 2L);
        });
    }

    /** gate.lua's gate_claims_hold: every rule has one of its values among the member's claims. */
    static boolean claimsHold(Map<String, List<String>> rules, String claims) {
        String held = claims == null ? "\n" : claims;
        return rules.entrySet().stream()
                .allMatch(rule -> rule.getValue().stream()
                        .anyMatch(value -> held.contains("\n" + rule.getKey() + "\t" + value + "\n")));
    }
}
