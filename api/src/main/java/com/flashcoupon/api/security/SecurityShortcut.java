package com.flashcoupon.api.security;

import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.web.ProblemWriter;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.HttpHeaders;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.firewall.StrictServerWebExchangeFirewall;
import org.springframework.security.web.server.header.HttpHeaderWriterWebFilter;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * What a request answered in front of Spring Security's filter chain (the lean admission path) takes from that chain,
 * so that its answers are the chain's: the chain's own header writers (so {@code Strict-Transport-Security} over HTTPS
 * and any header the chain is configured to write, not a copied list), its 401, and its firewall's rules on headers.
 */
@Component
public class SecurityShortcut {

    private final WebFilter headers;
    private final BearerChallenge challenge;

    SecurityShortcut(
            @Qualifier(SecurityConfig.CHAIN) SecurityWebFilterChain chain,
            ProblemWriter problems,
            ObjectProvider<RateLimits> limits) {
        // the chain's filters are a fixed list; reading it here, at start-up, blocks nothing
        List<WebFilter> filters = chain.getWebFilters().collectList().block();
        this.headers = filters == null
                ? (exchange, next) -> next.filter(exchange)
                : filters.stream()
                        .filter(HttpHeaderWriterWebFilter.class::isInstance)
                        .findFirst()
                        .orElse((exchange, next) -> next.filter(exchange));
        this.challenge = new BearerChallenge(problems, limits.getIfAvailable());
    }

    /** Runs {@code answer}, whose response gets the headers the chain writes on every answer. */
    public Mono<Void> withSecurityHeaders(ServerWebExchange exchange, WebFilterChain answer) {
        return headers.filter(exchange, answer);
    }

    /** The chain's answer to a token its decoder refused: 401 with the bearer challenge and the problem. */
    public Mono<Void> unauthorized(ServerWebExchange exchange) {
        return challenge.commence(exchange, new InvalidBearerTokenException("refused by the token decoder"));
    }

    /**
     * Whether the chain's firewall ({@link StrictServerWebExchangeFirewall}, Spring Security's default) accepts every
     * header name and value. Printable ASCII always passes; anything else is asked of the firewall's own rules. The
     * chain checks a header only when something reads it, so a request refused here may still be served by the chain:
     * refused here means "leave it to the chain", which answers as it always does.
     */
    public boolean firewallAccepts(HttpHeaders requestHeaders) {
        for (Map.Entry<String, List<String>> header : requestHeaders.headerSet()) {
            if (!printable(header.getKey())
                    && !StrictServerWebExchangeFirewall.ALLOWED_HEADER_NAMES.test(header.getKey())) {
                return false;
            }
            for (String value : header.getValue()) {
                if (!printable(value) && !StrictServerWebExchangeFirewall.ALLOWED_HEADER_VALUES.test(value)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean printable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }
}
