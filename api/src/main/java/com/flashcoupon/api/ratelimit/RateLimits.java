package com.flashcoupon.api.ratelimit;

import com.flashcoupon.api.config.ApiProperties;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/** Takes one token from the member's and the address's bucket; says how long to wait when either is empty. */
@Component
class RateLimits {

    /** Why and for how long a request is refused; {@code null} scope means allowed. */
    record Verdict(String scope, long retryAfterSeconds) {

        static final Verdict ALLOWED = new Verdict(null, 0);

        boolean allowed() {
            return scope == null;
        }
    }

    private final AsyncProxyManager<String> buckets;
    private final ApiProperties.RateLimit settings;
    private final Supplier<CompletableFuture<BucketConfiguration>> memberBucket;
    private final Supplier<CompletableFuture<BucketConfiguration>> addressBucket;

    RateLimits(AsyncProxyManager<String> buckets, ApiProperties properties) {
        this.buckets = buckets;
        this.settings = properties.ratelimit();
        this.memberBucket = configuration(settings.memberPerSecond());
        this.addressBucket = configuration(settings.addressPerSecond());
    }

    Mono<Verdict> check(String memberId, String address) {
        Mono<Verdict> member = settings.memberPerSecond() == 0
                ? Mono.just(Verdict.ALLOWED)
                : take("member", "rl:m:" + memberId, memberBucket);
        Mono<Verdict> byAddress = settings.addressPerSecond() == 0
                ? Mono.just(Verdict.ALLOWED)
                : take("address", "rl:a:" + address, addressBucket);
        return Mono.zip(member, byAddress, (m, a) -> m.allowed() ? a : m);
    }

    private Mono<Verdict> take(
            String scope, String key, Supplier<CompletableFuture<BucketConfiguration>> configuration) {
        return Mono.fromFuture(() -> buckets.getProxy(key, configuration).tryConsumeAndReturnRemaining(1))
                .map(probe -> verdict(scope, probe));
    }

    private static Verdict verdict(String scope, ConsumptionProbe probe) {
        if (probe.isConsumed()) {
            return Verdict.ALLOWED;
        }
        long seconds = Math.max(1, (probe.getNanosToWaitForRefill() + 999_999_999L) / 1_000_000_000L);
        return new Verdict(scope, seconds);
    }

    /** {@code perSecond} tokens a second, a burst of two seconds' worth. */
    private static Supplier<CompletableFuture<BucketConfiguration>> configuration(int perSecond) {
        BucketConfiguration configuration = BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(Math.max(1, 2L * perSecond))
                        .refillGreedy(Math.max(1, perSecond), Duration.ofSeconds(1)))
                .build();
        CompletableFuture<BucketConfiguration> ready = CompletableFuture.completedFuture(configuration);
        return () -> ready;
    }
}
