package com.flashcoupon.api.security;

import com.flashcoupon.api.web.ErrorCode;
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
 */
final class BearerChallenge implements ServerAuthenticationEntryPoint {

    private final ProblemWriter problems;

    BearerChallenge(ProblemWriter problems) {
        this.problems = problems;
    }

    @Override
    public Mono<Void> commence(ServerWebExchange exchange, AuthenticationException refused) {
        exchange.getResponse().getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        return problems.write(exchange, Problems.of(ErrorCode.UNAUTHORIZED, "A valid bearer token is required."));
    }
}
