package com.flashcoupon.api.web;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Refuses a declared body over 16 KiB before anything reads it (docs/http-api.md: 413 PAYLOAD_TOO_LARGE). A body without a
 * declared length is held to the same limit by the codecs ({@code spring.webflux.codecs.max-in-memory-size}).
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class BodySizeLimitFilter implements WebFilter {

    public static final long MAX_BODY_BYTES = 16 * 1024;

    private final ProblemWriter problems;

    BodySizeLimitFilter(ProblemWriter problems) {
        this.problems = problems;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (exchange.getRequest().getHeaders().getContentLength() > MAX_BODY_BYTES
                && !isListUpload(exchange.getRequest())) {
            return problems.write(
                    exchange, Problems.of(ErrorCode.PAYLOAD_TOO_LARGE, "The request body is over 16 KiB."));
        }
        return chain.filter(exchange);
    }

    /**
     * An event's eligibility list (issue 26: {@code PUT /admin/v1/coupons/{id}/eligible-members}, an admin endpoint):
     * streamed to a file as it arrives, never held in memory, so it may be as long as the list is.
     */
    private static boolean isListUpload(org.springframework.http.server.reactive.ServerHttpRequest request) {
        return request.getMethod() == org.springframework.http.HttpMethod.PUT
                && LIST_UPLOAD.matcher(request.getPath().value()).matches();
    }

    private static final java.util.regex.Pattern LIST_UPLOAD =
            java.util.regex.Pattern.compile("/admin/v1/coupons/[1-9][0-9]{0,18}/eligible-members");
}
