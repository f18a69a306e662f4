package com.flashcoupon.api.ratelimit;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.contract.LuaScripts;
import java.util.List;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Charges a request to its member's and its address's limit, both kept in Redis so every api instance shares them,
 * in one round trip ({@code scripts/ratelimit.lua}, GCRA); says how long to wait when either is used up.
 *
 * <p>Written here rather than taken from Bucket4j (which the worker still uses for its local write throttle): Bucket4j's
 * Redis buckets are compare-and-swap, a read and a conditional write per bucket, so two limits cost four Redis
 * commands and their parsing per request; under a crowd that was about an eighth of the api's admissions per second
 * (bin/bench with the member limit on and off). The script is one command for both.
 */
@Component
class RateLimits {

    /** Why and for how long a request is refused; {@code null} scope means allowed. */
    record Verdict(String scope, long retryAfterSeconds) {

        static final Verdict ALLOWED = new Verdict(null, 0);

        boolean allowed() {
            return scope == null;
        }
    }

    @SuppressWarnings("rawtypes")
    static final RedisScript<List> SCRIPT = RedisScript.of(LuaScripts.text("scripts/ratelimit.lua"), List.class);

    private static final String[] SCOPES = {null, "member", "address"};

    /** Key prefixes: not Bucket4j's old {@code rl:m:}/{@code rl:a:}, whose binary values this script cannot read. */
    static final String MEMBER_KEY = "rl:g:m:";

    static final String ADDRESS_KEY = "rl:g:a:";

    private final ReactiveStringRedisTemplate redis;
    private final List<String> limits;

    RateLimits(ReactiveStringRedisTemplate redis, ApiProperties properties) {
        this.redis = redis;
        ApiProperties.RateLimit settings = properties.ratelimit();
        this.limits = List.of(
                Integer.toString(settings.memberPerSecond()),
                Long.toString(burst(settings.memberPerSecond())),
                Integer.toString(settings.addressPerSecond()),
                Long.toString(burst(settings.addressPerSecond())));
    }

    /** A burst of two seconds' worth, at least one request. */
    static long burst(int perSecond) {
        return Math.max(1, 2L * perSecond);
    }

    Mono<Verdict> check(String memberId, String address) {
        return redis.execute(SCRIPT, List.of(MEMBER_KEY + memberId, ADDRESS_KEY + address), limits)
                .next()
                .map(RateLimits::verdict);
    }

    static Verdict verdict(List<?> reply) {
        int scope = (int) number(reply, 0);
        if (scope == 0) {
            return Verdict.ALLOWED;
        }
        long seconds = Math.max(1, (number(reply, 1) + 999) / 1000);
        return new Verdict(SCOPES[scope], seconds);
    }
}
