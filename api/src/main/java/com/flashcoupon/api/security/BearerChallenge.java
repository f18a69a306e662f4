package com.flashcoupon.api.security;

import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.api.web.MemberPaths;
import com.flashcoupon.api.web.ProblemWriter;
import com.flashcoupon.api.web.Problems;
import org.springframework.http.HttpHeaders;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.server.ServerAuthenticationEntryPoint;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * docs/http-api.md, Authentication: no token or a bad one is 401 {@code UNAUTHORIZED} with a bearer challenge. The
 * chain's answer, and the lean admission path's ({@link SecurityShortcut#unauthorized}), which must be the same.
 *
 * <p>Below {@code /api/}, such a request is charged to its address's overall allowance first, the one the member
 * endpoints without a coupon share ({@link RateLimits#chargeUnauthenticated}): over it, the usual 429 {@code
 * RATE_LIMITED} with {@code Retry-After}, so a client sending no token or forged ones is limited like any other.
 */
final class BearerChallenge implements ServerAuthenticationEntryPoint {

    private final ProblemWriter problems;
    private final RateLimits limits;

    /** {@code limits} may be null (a web slice without them): every such request is then answered 401. */
    BearerChallenge(ProblemWriter problems, RateLimits limits) {
        this.problems = problems;
        this.limits = limits;
    }

    @Override
    public Mono<Void> commence(ServerWebExchange exchange, AuthenticationException refused) {
        if (!MemberPaths.isMemberApi(exchange.getRequest().getPath().pathWithinApplication())) {
            return challenge(exchange);
        }
        // no limits in a web slice test's context, or a mock's empty answer: the 401 alone
        Mono<Long> charged = limits == null ? null : limits.chargeUnauthenticated(exchange.getRequest());
        if (charged == null) {
            return challenge(exchange);
        }
        return charged.defaultIfEmpty(0L).flatMap(wait -> wait > 0 ? tooMany(exchange, wait) : challenge(exchange));
    }

    private Mono<Void> challenge(ServerWebExchange exchange) {
        exchange.getResponse().getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        return problems.write(exchange, Problems.of(ErrorCode.UNAUTHORIZED, "A valid bearer token is required."));
    }

    private Mono<Void> tooMany(ServerWebExchange exchange, long wait) {
        exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(wait));
        return problems.write(
                exchange, Problems.of(ErrorCode.RATE_LIMITED, "Too many requests; try again in " + wait + " s."));
    }
}
