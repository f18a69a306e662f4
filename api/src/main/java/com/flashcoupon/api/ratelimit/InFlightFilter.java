package com.flashcoupon.api.ratelimit;

import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.api.web.MemberPaths;
import com.flashcoupon.api.web.ProblemWriter;
import com.flashcoupon.api.web.Problems;
import java.util.Optional;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.PathContainer;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The in-flight caps ({@link InFlightLimits}) on the member endpoints, once the token is verified (the member is
 * known) and before any rate limit is charged: over a cap, 429 {@code RATE_LIMITED} with {@code Retry-After: 1},
 * having done and charged nothing. The place is held until the exchange ends, however it ends.
 *
 * <p>Not counted: the live status streams (they are open for minutes by design) and the admission's lean path, which
 * answers before this filter: it reads no body and waits on nothing without a time-out, so its requests are short.
 */
@Component
@Order(InFlightFilter.ORDER)
class InFlightFilter implements WebFilter {

    /** After Spring Security's chain (-100), before the rate limits (the lowest precedence). */
    static final int ORDER = 0;

    static final long RETRY_AFTER_SECONDS = 1;

    private final InFlightLimits limits;
    private final ProblemWriter problems;

    InFlightFilter(InFlightLimits limits, ProblemWriter problems) {
        this.limits = limits;
        this.problems = problems;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        PathContainer path = exchange.getRequest().getPath().pathWithinApplication();
        if (!limits.enabled() || !MemberPaths.isMemberApi(path) || MemberPaths.isEventStream(path)) {
            return chain.filter(exchange);
        }
        return ReactiveSecurityContextHolder.getContext()
                .mapNotNull(SecurityContext::getAuthentication)
                .map(authentication -> Optional.of(authentication.getName()))
                // no member: the security chain refused the request already, or let it through unauthenticated
                .defaultIfEmpty(Optional.empty())
                .flatMap(member -> member.isEmpty() ? chain.filter(exchange) : limited(member.get(), exchange, chain));
    }

    private Mono<Void> limited(String member, ServerWebExchange exchange, WebFilterChain chain) {
        InFlightLimits.Slot slot = limits.tryAcquire(member, exchange.getRequest());
        if (slot == null) {
            return refuse(exchange);
        }
        // deferred, so that a filter that throws instead of returning an error still gives the place back
        return Mono.defer(() -> chain.filter(exchange)).doFinally(signal -> slot.release());
    }

    private Mono<Void> refuse(ServerWebExchange exchange) {
        exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(RETRY_AFTER_SECONDS));
        return problems.write(
                exchange,
                Problems.of(
                        ErrorCode.RATE_LIMITED,
                        "Too many of your requests are in progress at once; nothing was done. Try again in "
                                + RETRY_AFTER_SECONDS + " s."));
    }
}
