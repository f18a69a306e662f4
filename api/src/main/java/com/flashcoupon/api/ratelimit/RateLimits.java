package com.flashcoupon.api.ratelimit;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The rate limits of the member endpoints, kept in Redis so every api instance shares them, as GCRA
 * ({@code scripts/limits.lua}): one member's and one address's requests per second, each with a burst of two seconds'
 * worth. A refused request charges nothing.
 *
 * <p>A coupon's endpoints ({@code /api/v1/coupons/{id}/...}) count per coupon: the member's and the address's keys are
 * in the coupon's hash slot, and the admission and status scripts check and charge them in the same step as their own
 * work ({@link #forCoupon}): one round trip, one slot, on a Redis Cluster too. The other member endpoints (wallet,
 * devices) count per member and per address alone, each key its own slot ({@link RateLimitFilter}).
 *
 * <p>Written here rather than taken from Bucket4j (which the worker uses for its write limit): Bucket4j's Redis buckets
 * are compare-and-swap, a read and a conditional write per bucket, and cannot join the admission's own script.
 */
@Component
public class RateLimits {

    /** Why and for how long a request is refused; {@code null} scope means allowed. */
    record Verdict(String scope, long retryAfterSeconds) {

        static final Verdict ALLOWED = new Verdict(null, 0);

        boolean allowed() {
            return scope == null;
        }
    }

    /**
     * The keys and arguments of one request's limits on a coupon's endpoint, in the coupon's slot, for the scripts that
     * charge them: their keys come after the script's own, their arguments after its first; and the address they are
     * charged to ('' when its limit is off), for the keys on an event's stock shards.
     */
    public record CouponLimits(String memberKey, String addressKey, List<String> args, String address) {}

    /** A script that charges limits: {@code limits.lua} put in front of the script at {@code location}. */
    public static String withLimits(String location) {
        return LuaScripts.text("scripts/limits.lua") + LuaScripts.text(location);
    }

    static final ScriptConnection.Script SCRIPT = ScriptConnection.Script.of(withLimits("scripts/ratelimit.lua"));

    private static final String[] SCOPES = {null, "member", "address"};

    /** Key prefixes of the limits of the endpoints without a coupon. */
    static final String MEMBER_KEY = "rl:g:m:";

    static final String ADDRESS_KEY = "rl:g:a:";

    /** Key prefix of a redemption caller's limit (an order service's token {@code sub}). */
    static final String CALLER_KEY = "rl:g:c:";

    private final ScriptConnection redis;
    private final ClientAddresses addresses;
    private final List<String> both;
    private final List<String> memberLimitOnly;
    private final List<String> memberOnly;
    private final List<String> addressOnly;
    private final boolean memberOn;
    private final boolean addressOn;
    private final Counter memberRefusals;
    private final Counter addressRefusals;
    private final Counter callerRefusals;

    RateLimits(ScriptConnection redis, ApiProperties properties, MeterRegistry meters) {
        this.redis = redis;
        ApiProperties.RateLimit settings = properties.ratelimit();
        this.addresses = new ClientAddresses(settings.trustedProxies(), settings.ipv6PrefixLength());
        this.memberOn = settings.memberPerSecond() > 0;
        this.addressOn = settings.addressPerSecond() > 0;
        String memberRate = Integer.toString(settings.memberPerSecond());
        String memberBurst = Long.toString(burst(settings.memberPerSecond()));
        String addressRate = Integer.toString(settings.addressPerSecond());
        String addressBurst = Long.toString(burst(settings.addressPerSecond()));
        this.both = List.of(memberRate, memberBurst, addressRate, addressBurst);
        this.memberLimitOnly = List.of(memberRate, memberBurst, "0", "0");
        this.memberOnly = List.of(memberRate, memberBurst);
        this.addressOnly = List.of(addressRate, addressBurst);
        this.memberRefusals = refusals(meters, "member");
        this.addressRefusals = refusals(meters, "address");
        this.callerRefusals = refusals(meters, "caller");
    }

    private static Counter refusals(MeterRegistry meters, String scope) {
        return Counter.builder("coupon.ratelimit.refused")
                .description("Requests refused by a rate limit")
                .tag("scope", scope)
                .register(meters);
    }

    /**
     * The address the request really comes from (behind a trusted proxy: from {@code X-Forwarded-For}), not grouped
     * into its IPv6 network; null when that is not an address literal. What a human-check service is told as the
     * member's {@code remoteip}.
     */
    public String clientAddress(ServerHttpRequest request) {
        return addresses.address(request);
    }

    /** A burst of two seconds' worth, at least one request. */
    static long burst(int perSecond) {
        return Math.max(1, 2L * perSecond);
    }

    boolean enabled() {
        return memberOn || addressOn;
    }

    boolean addressOn() {
        return addressOn;
    }

    /** A token-free request's charge to its address's overall allowance (the public records). */
    Mono<Verdict> checkAddress(ServerHttpRequest request) {
        return Mono.defer(() -> one(ADDRESS_KEY + addresses.of(request), addressOnly, 2));
    }

    /**
     * This request's limits on the coupon's endpoints; the address is worked out only when its limit is on. The api's
     * own warm-up coupons ({@link CouponKeys#isWarmUp}) has the member limit alone: its requests all come from the api.
     */
    public CouponLimits forCoupon(long couponId, String memberId, ServerHttpRequest request) {
        String address = addressOn ? addresses.of(request) : "";
        return new CouponLimits(
                CouponKeys.memberLimit(couponId, memberId),
                CouponKeys.addressLimit(couponId, address),
                CouponKeys.isWarmUp(couponId) ? memberLimitOnly : both,
                address);
    }

    /**
     * The 429 for a script's refusal: {@code position} 1 is the member's limit, 2 the address's; the wait in ms is
     * answered as {@code Retry-After} in whole seconds, at least one.
     */
    public ApiException refused(long position, long waitMs) {
        (position == 2 ? addressRefusals : memberRefusals).increment();
        return ApiException.rateLimited(Math.max(1, (waitMs + 999) / 1000));
    }

    /** Charges the coupon endpoint's limits alone (for the endpoints whose work is not a script): a 429 when refused. */
    public Mono<Void> charge(CouponLimits limits) {
        if (!enabled()) {
            return Mono.empty();
        }
        String[] args = {"charge", both.get(0), both.get(1), both.get(2), both.get(3)};
        return redis.eval(SCRIPT, new String[] {limits.memberKey(), limits.addressKey()}, args)
                .flatMap(reply -> number(reply, 0) == 0
                        ? Mono.<Void>empty()
                        : Mono.error(refused(number(reply, 0), number(reply, 1))));
    }

    /**
     * Charges a request that names no coupon that exists (an id MySQL may not know, read before MySQL is asked) to the
     * member's and the address's overall allowance, the one the endpoints without a coupon share: a request to a new id
     * gets no fresh allowance of its own. A 429 when refused; any failure of the check fails closed (503).
     */
    public Mono<Void> chargeOverall(String memberId, ServerHttpRequest request) {
        if (!enabled()) {
            return Mono.empty();
        }
        return Mono.defer(() -> check(memberId, request))
                .onErrorMap(
                        error -> !(error instanceof ApiException), error -> ApiException.unavailable("The rate limit"))
                .flatMap(verdict -> verdict.allowed()
                        ? Mono.<Void>empty()
                        : Mono.error(ApiException.rateLimited(verdict.retryAfterSeconds())));
    }

    /**
     * Charges a call of the redemption API to its caller's own allowance ({@code perSecond}, a burst of two seconds'
     * worth; 0: off), shared by every instance: the seconds to wait when it is used up, 0 when the call is within it. A
     * failure of the check is passed on: the caller fails closed.
     */
    public Mono<Long> chargeCaller(String caller, int perSecond) {
        if (perSecond <= 0) {
            return Mono.just(0L);
        }
        String rate = Integer.toString(perSecond);
        String burst = Long.toString(burst(perSecond));
        return redis.eval(SCRIPT, new String[] {CALLER_KEY + caller}, "charge", rate, burst)
                .map(reply -> {
                    if (number(reply, 0) == 0) {
                        return 0L;
                    }
                    callerRefusals.increment();
                    return Math.max(1, (number(reply, 1) + 999) / 1000);
                });
    }

    /**
     * Charges a request below {@code /api/} that has no token, or one the decoder refused, to its address's overall
     * allowance: the seconds to wait when that allowance is used up, 0 when the request is within it (it is then
     * answered 401). Off, or the check failing, counts as within: the request is refused with a 401 either way.
     */
    public Mono<Long> chargeUnauthenticated(ServerHttpRequest request) {
        if (!addressOn) {
            return Mono.just(0L);
        }
        return Mono.defer(() -> one(ADDRESS_KEY + addresses.of(request), addressOnly, 2))
                .map(Verdict::retryAfterSeconds)
                .onErrorReturn(0L);
    }

    /**
     * The limits of a member endpoint without a coupon: the member's key and the address's, in two slots, so two
     * steps; when the second refuses, the first one's charge is given back.
     */
    Mono<Verdict> check(String memberId, ServerHttpRequest request) {
        Mono<Verdict> member = memberOn ? one(MEMBER_KEY + memberId, memberOnly, 1) : Mono.just(Verdict.ALLOWED);
        if (!addressOn) {
            return member;
        }
        String addressKey = ADDRESS_KEY + addresses.of(request);
        return member.flatMap(first -> !first.allowed()
                ? Mono.just(first)
                : one(addressKey, addressOnly, 2)
                        .flatMap(second -> second.allowed() || !memberOn
                                ? Mono.just(second)
                                : refund(MEMBER_KEY + memberId, memberOnly).thenReturn(second)));
    }

    private Mono<Verdict> one(String key, List<String> limit, int scope) {
        return redis.eval(SCRIPT, new String[] {key}, "charge", limit.get(0), limit.get(1))
                .map(reply -> {
                    if (number(reply, 0) == 0) {
                        return Verdict.ALLOWED;
                    }
                    (scope == 2 ? addressRefusals : memberRefusals).increment();
                    return new Verdict(SCOPES[scope], Math.max(1, (number(reply, 1) + 999) / 1000));
                });
    }

    private Mono<Void> refund(String key, List<String> limit) {
        return redis.eval(SCRIPT, new String[] {key}, "refund", limit.get(0), limit.get(1))
                .then();
    }
}
