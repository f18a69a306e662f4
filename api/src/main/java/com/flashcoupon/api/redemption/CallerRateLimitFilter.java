package com.flashcoupon.api.redemption;

import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.web.BackendFailures;
import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.api.web.MemberPaths;
import com.flashcoupon.api.web.ProblemWriter;
import com.flashcoupon.api.web.Problems;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The redemption API's rate limit: each caller (the {@code sub} of an order service's token) has its own allowance,
 * in Redis, shared by every instance ({@code COUPON_REDEMPTION_CALLER_PER_SECOND}). It runs after Spring Security, so
 * only a caller with {@code coupon-redeemer} is ever charged. Over it: 429 RATE_LIMITED with {@code Retry-After};
 * the check failing (Redis unreachable): 503, nothing let through unchecked.
 */
@Component
class CallerRateLimitFilter implements WebFilter {

    private static final Logger log = LoggerFactory.getLogger(CallerRateLimitFilter.class);
    private static final long UNAVAILABLE = -1;

    private final RateLimits limits;
    private final ProblemWriter problems;
    private final int perSecond;

    CallerRateLimitFilter(RateLimits limits, ProblemWriter problems, RedemptionProperties properties) {
        this.limits = limits;
        this.problems = problems;
        this.perSecond = properties.callerPerSecond();
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (perSecond <= 0
                || !MemberPaths.isInternalApi(exchange.getRequest().getPath().pathWithinApplication())) {
            return chain.filter(exchange);
        }
        return ReactiveSecurityContextHolder.getContext()
                .map(SecurityContext::getAuthentication)
                .flatMap(caller -> limits.chargeCaller(caller.getName(), perSecond)
                        .onErrorResume(error -> {
                            if (!BackendFailures.isBackendDown(error)) {
                                log.error("the redemption caller's rate limit check failed; answering 503", error);
                            }
                            return Mono.just(UNAVAILABLE);
                        }))
                .defaultIfEmpty(0L)
                .flatMap(wait -> wait == 0 ? chain.filter(exchange) : refuse(exchange, wait));
    }

    private Mono<Void> refuse(ServerWebExchange exchange, long wait) {
        exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, wait)));
        return problems.write(
                exchange,
                wait == UNAVAILABLE
                        ? Problems.of(
                                ErrorCode.UNAVAILABLE,
                                "A backing service is unavailable; nothing was accepted. Try again shortly.")
                        : Problems.of(
                                ErrorCode.RATE_LIMITED,
                                "Too many calls from this caller; try again in " + wait + " s. Nothing was done."));
    }
}
