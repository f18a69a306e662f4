package com.flashcoupon.api.ratelimit;

import com.flashcoupon.api.config.ApiProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Component;

/**
 * Caps on the member requests one member and one client address have in work at once on this instance
 * ({@link InFlightProperties}): the overload guard's permits are shared by everyone, and without these a few callers
 * whose requests take long (a body that does not come, a slow backend) could hold them all.
 *
 * <p>In memory and per instance, unlike the rate limits: a count of requests in work here says nothing about another
 * instance, and checking it must cost no round trip. Only keys with requests in work are kept: the maps shrink back to
 * nothing when the instance is idle. Written by hand: a counter per key that is removed at zero is a few lines of
 * {@link ConcurrentHashMap#compute}, and neither Resilience4j's bulkheads nor Bucket4j count per key without keeping
 * every key ever seen.
 *
 * <p>A cap is off when its rate limit is: {@code coupon.ratelimit.address-per-second=0} says that the address does
 * not tell callers apart (a load test or a demo from one machine, a proxy whose {@code X-Forwarded-For} is not
 * trusted), and the member cap follows the member's rate limit the same way.
 */
@Component
public class InFlightLimits {

    private final int perMember;
    private final int perAddress;
    private final ClientAddresses addresses;
    private final ConcurrentMap<String, Integer> members = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Integer> byAddress = new ConcurrentHashMap<>();
    private final Counter memberRefusals;
    private final Counter addressRefusals;

    InFlightLimits(InFlightProperties settings, ApiProperties properties, MeterRegistry meters) {
        // a rate limit turned off says that its key does not tell callers apart here (a load test from one address)
        this.perMember = properties.ratelimit().memberPerSecond() > 0 ? settings.perMember() : 0;
        this.perAddress = properties.ratelimit().addressPerSecond() > 0 ? settings.perAddress() : 0;
        this.addresses = new ClientAddresses(
                properties.ratelimit().trustedProxies(), properties.ratelimit().ipv6PrefixLength());
        this.memberRefusals = refusals(meters, "member");
        this.addressRefusals = refusals(meters, "address");
    }

    private static Counter refusals(MeterRegistry meters, String scope) {
        return Counter.builder("coupon.inflight.refused")
                .description("Member requests refused with 429 because their member or address had too many in work")
                .tag("scope", scope)
                .register(meters);
    }

    boolean enabled() {
        return perMember > 0 || perAddress > 0;
    }

    /**
     * A place for one of the member's requests from the request's client address, or null (counted) when either has
     * its cap's worth in work already. The caller releases the place when the request ends.
     */
    @Nullable
    Slot tryAcquire(String memberId, ServerHttpRequest request) {
        String address = perAddress > 0 ? addresses.of(request) : null;
        if (perMember > 0 && !take(members, memberId, perMember)) {
            memberRefusals.increment();
            return null;
        }
        if (address != null && !take(byAddress, address, perAddress)) {
            if (perMember > 0) {
                give(members, memberId);
            }
            addressRefusals.increment();
            return null;
        }
        return new Slot(this, perMember > 0 ? memberId : null, address);
    }

    /**
     * A place for a request of the client address whose body is still arriving (the member is not known yet: the
     * token is verified once the body is in), or null (counted) when the address has its cap's worth in work.
     */
    public @Nullable Slot tryAcquireAddress(ServerHttpRequest request) {
        if (perAddress <= 0) {
            return new Slot(this, null, null);
        }
        String address = addresses.of(request);
        if (!take(byAddress, address, perAddress)) {
            addressRefusals.increment();
            return null;
        }
        return new Slot(this, null, address);
    }

    private static boolean take(ConcurrentMap<String, Integer> counts, String key, int cap) {
        boolean[] taken = {false};
        counts.compute(key, (k, count) -> {
            int now = count == null ? 0 : count;
            if (now >= cap) {
                return count;
            }
            taken[0] = true;
            return now + 1;
        });
        return taken[0];
    }

    private static void give(ConcurrentMap<String, Integer> counts, String key) {
        counts.computeIfPresent(key, (k, count) -> count <= 1 ? null : count - 1);
    }

    /** One request's place; released once, whatever calls {@link #release} again. */
    public static final class Slot {

        private final InFlightLimits limits;
        private final @Nullable String member;
        private final @Nullable String address;
        private final AtomicBoolean released = new AtomicBoolean();

        private Slot(InFlightLimits limits, @Nullable String member, @Nullable String address) {
            this.limits = limits;
            this.member = member;
            this.address = address;
        }

        public void release() {
            if (!released.compareAndSet(false, true)) {
                return;
            }
            if (member != null) {
                give(limits.members, member);
            }
            if (address != null) {
                give(limits.byAddress, address);
            }
        }
    }
}
