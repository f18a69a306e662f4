package com.flashcoupon.api.admission;

import com.flashcoupon.api.security.SecurityShortcut;
import com.flashcoupon.api.web.CanonicalIds;
import com.flashcoupon.api.web.ProblemAnswers;
import com.flashcoupon.api.web.ProblemWriter;
import java.util.List;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * The admission, the one request a flash crowd sends, answered by a lean path in front of Spring Security's filter
 * chain and WebFlux's dispatcher, which cost more per admission than the admission itself (security's firewall, a
 * dozen reactive filters, the authorization manager's matchers, then handler mapping and result handling).
 *
 * <p>It answers exactly as the chain would, by the same beans: the bearer token goes through the application's
 * {@link ReactiveJwtDecoder} (HS256 or the JWK set; signature, {@code exp}, {@code sub}, {@code roles}' type, issuer
 * and audience when configured), and a member endpoint needs no role. A token the decoder refuses is decoded once, here,
 * and answered with the chain's 401 ({@link SecurityShortcut#unauthorized}); every answer goes through the chain's own
 * header writers ({@link SecurityShortcut#withSecurityHeaders}: {@code Strict-Transport-Security} over HTTPS too).
 * {@code AdmissionWebTest} compares the two paths header by header over HTTP and HTTPS, {@code LeanPathParityTest}
 * request by request.
 *
 * <p>It takes only the plainest request and leaves anything else to the full chain untouched, which answers it as it
 * always did: another method; a raw path that is not exactly {@code /api/v1/coupons/<plain decimal id>/issue-requests}
 * (path parameters such as {@code ;x=y}, percent escapes, a coupon id that is not canonical, which the chain's firewall
 * or the controller refuse); a header value the chain's firewall would refuse; no token or more than one; a decoder
 * failure that is not the token's fault. The request is still timed by {@code http.server.requests} under its pattern.
 * The overload guard, the request id and the body limit run before it as before; the member's rate limit is inside
 * the admission script.
 */
@Component
@Order(AdmissionFilter.ORDER)
class AdmissionFilter implements WebFilter {

    /** Before Spring Security's {@code WebFilterChainProxy} (-100), after the request id and the body limit. */
    static final int ORDER = -101;

    static final String PATH = "/api/v1/coupons/{couponId}/issue-requests";

    private static final PathPattern PATTERN = PathPatternParser.defaultInstance.parse(PATH);

    private static final String PREFIX = "/api/v1/coupons/";
    private static final String SUFFIX = "/issue-requests";

    private static final String BEARER = "Bearer ";

    private final AdmissionService admissions;
    private final ReactiveJwtDecoder tokens;
    private final JsonMapper json;
    private final ProblemWriter problems;
    private final SecurityShortcut security;

    AdmissionFilter(
            AdmissionService admissions,
            ReactiveJwtDecoder tokens,
            JsonMapper json,
            ProblemWriter problems,
            SecurityShortcut security) {
        this.admissions = admissions;
        this.tokens = tokens;
        this.json = json;
        this.problems = problems;
        this.security = security;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        if (request.getMethod() != HttpMethod.POST) {
            return chain.filter(exchange);
        }
        long couponId = couponId(request.getPath().value());
        String token = couponId > 0 ? bearerToken(request.getHeaders()) : null;
        if (token == null || !security.firewallAccepts(request.getHeaders())) {
            return chain.filter(exchange);
        }
        return tokens.decode(token)
                .map(jwt -> security.withSecurityHeaders(exchange, admitted -> admit(admitted, couponId, jwt)))
                .onErrorResume(
                        BadJwtException.class,
                        refused -> Mono.just(security.withSecurityHeaders(exchange, security::unauthorized)))
                // a decoder failure that is not the token's (the JWK set cannot be fetched): the chain's answer
                .onErrorResume(failed -> Mono.just(chain.filter(exchange)))
                .switchIfEmpty(Mono.fromSupplier(() -> chain.filter(exchange)))
                .flatMap(answer -> answer);
    }

    private Mono<Void> admit(ServerWebExchange exchange, long couponId, Jwt jwt) {
        // what the dispatcher's handler mapping does for http.server.requests' uri tag
        exchange.getAttributes().put(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE, PATTERN);
        ServerRequestObservationContext.findCurrent(exchange.getAttributes())
                .ifPresent(observation -> observation.setPathPattern(PATH));
        ServerHttpResponse response = exchange.getResponse();
        return admissions
                .admit(couponId, jwt.getSubject(), jwt.getClaims(), exchange.getRequest())
                .map(answer -> {
                    response.setStatusCode(answer.newlyAdmitted() ? HttpStatus.ACCEPTED : HttpStatus.OK);
                    response.getHeaders()
                            .set(HttpHeaders.LOCATION, "/api/v1/coupons/" + couponId + "/issue-requests/me");
                    response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
                    return json.writeValueAsBytes(answer.status());
                })
                .onErrorResume(error -> {
                    var problem = ProblemAnswers.of(error, exchange);
                    response.setStatusCode(problem.getStatusCode());
                    response.getHeaders().addAll(problem.getHeaders());
                    response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
                    return Mono.just(problems.bytes(problem.getBody()));
                })
                .flatMap(body -> {
                    response.getHeaders().setContentLength(body.length);
                    return response.writeWith(Mono.just(response.bufferFactory().wrap(body)));
                });
    }

    /**
     * The token of the one {@code Authorization: Bearer} header, in the form Spring Security's converter accepts
     * (RFC 6750's characters); null for anything else, which the full chain then answers.
     */
    static String bearerToken(HttpHeaders headers) {
        List<String> values = headers.get(HttpHeaders.AUTHORIZATION);
        if (values == null || values.size() != 1) {
            return null;
        }
        String value = values.get(0);
        if (value.length() <= BEARER.length() || !value.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        int end = value.length();
        while (end > BEARER.length() && value.charAt(end - 1) == '=') {
            end--;
        }
        if (end == BEARER.length()) {
            return null;
        }
        for (int i = BEARER.length(); i < end; i++) {
            char c = value.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~'
                    || c == '+'
                    || c == '/';
            if (!allowed) {
                return null;
            }
        }
        return value.substring(BEARER.length());
    }

    /**
     * The coupon id of a raw path that is exactly {@code /api/v1/coupons/<id>/issue-requests} with the id in plain
     * decimal ({@link CanonicalIds}); -1 for any other path, however routing would read it.
     */
    static long couponId(String rawPath) {
        if (!rawPath.startsWith(PREFIX)
                || !rawPath.endsWith(SUFFIX)
                || rawPath.length() <= PREFIX.length() + SUFFIX.length()) {
            return -1;
        }
        long id = CanonicalIds.parse(rawPath.substring(PREFIX.length(), rawPath.length() - SUFFIX.length()));
        return id > 0 ? id : -1;
    }
}
