package com.flashcoupon.api.ratelimit;

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
 * Rate limits on the member endpoints without a coupon (wallet, devices), after authentication (the member is known),
 * and on the token-free public records ({@code /public/**}, {@code /.well-known/**}), charged to the address alone:
 * 429 RATE_LIMITED with {@code Retry-After} in seconds. A coupon's endpoints are limited by their own scripts, in the
 * coupon's slot ({@link RateLimits#forCoupon}). Redis unreachable, or any other failure of the check, fails closed:
 * 503, nothing let through unchecked.
 */
@Component
class RateLimitFilter implements WebFilter {

    private static final Logger log = LoggerFactory.getLogger(RateLimitFilter.class);

    private final RateLimits limits;
    private final ProblemWriter problems;

    RateLimitFilter(RateLimits limits, ProblemWriter problems) {
        this.limits = limits;
        this.problems = problems;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        var path = exchange.getRequest().getPath().pathWithinApplication();
        if (MemberPaths.isPublicRecord(path)) {
            return limits.addressOn()
                    ? limits.checkAddress(exchange.getRequest())
                            .onErrorResume(error -> {
                                if (!BackendFailures.isBackendDown(error)) {
                                    log.error("the rate limit check failed; answering 503", error);
                                }
                                return Mono.just(UNAVAILABLE);
                            })
                            .flatMap(verdict -> verdict.allowed() ? chain.filter(exchange) : refuse(exchange, verdict))
                    : chain.filter(exchange);
        }
        if (!limits.enabled() || !MemberPaths.isMemberApi(path) || MemberPaths.isCouponApi(path)) {
            return chain.filter(exchange);
        }
        return ReactiveSecurityContextHolder.getContext()
                .map(SecurityContext::getAuthentication)
                .flatMap(authentication -> limits.check(authentication.getName(), exchange.getRequest())
                        .onErrorResume(error -> {
                            // fail closed, whatever went wrong: nothing passes unchecked, nothing becomes a 500
                            if (!BackendFailures.isBackendDown(error)) {
                                log.error("the rate limit check failed; answering 503", error);
                            }
                            return Mono.just(UNAVAILABLE);
                        }))
                .defaultIfEmpty(RateLimits.Verdict.ALLOWED)
                .flatMap(verdict -> verdict.allowed() ? chain.filter(exchange) : refuse(exchange, verdict));
    }

    private static final RateLimits.Verdict UNAVAILABLE = new RateLimits.Verdict("unavailable", 1);

    private Mono<Void> refuse(ServerWebExchange exchange, RateLimits.Verdict verdict) {
        exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(verdict.retryAfterSeconds()));
        if (verdict == UNAVAILABLE) {
            return problems.write(
                    exchange,
                    Problems.of(
                            ErrorCode.UNAVAILABLE,
                            "A backing service is unavailable; nothing was accepted. Try again shortly."));
        }
        return problems.write(
                exchange,
                Problems.of(
                        ErrorCode.RATE_LIMITED,
                        "Too many requests; try again in " + verdict.retryAfterSeconds() + " s."));
    }
}
