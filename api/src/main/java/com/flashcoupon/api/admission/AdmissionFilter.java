package com.flashcoupon.api.admission;

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
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtException;
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
 * <p>The same checks, by the same beans: the bearer token goes through the application's {@link ReactiveJwtDecoder}
 * (HS256 or the JWK set; signature, {@code exp}, {@code sub}, issuer and audience when configured), and a member
 * endpoint needs no role. Anything this path is not sure of goes down the full chain untouched, which answers it as it
 * always did: another method or path, a coupon id that is not a positive number (400 with the field), no token or
 * more than one, a token the decoder refuses (401 {@code UNAUTHORIZED} with {@code WWW-Authenticate}). The answer
 * carries the headers Spring Security writes on every other member endpoint ({@code AdmissionFilterTest} compares
 * them), and the request is still timed by {@code http.server.requests} under its pattern. The overload guard, the
 * request id and the body limit run before it as before; the member's rate limit is inside the admission script.
 */
@Component
@Order(AdmissionFilter.ORDER)
class AdmissionFilter implements WebFilter {

    /** Before Spring Security's {@code WebFilterChainProxy} (-100), after the request id and the body limit. */
    static final int ORDER = -101;

    static final String PATH = "/api/v1/coupons/{couponId}/issue-requests";

    private static final PathPattern PATTERN = PathPatternParser.defaultInstance.parse(PATH);

    /** What Spring Security's default header writers add to a plain-HTTP answer. */
    private static final List<String[]> SECURITY_HEADERS = List.of(
            new String[] {HttpHeaders.CACHE_CONTROL, "no-cache, no-store, max-age=0, must-revalidate"},
            new String[] {HttpHeaders.PRAGMA, "no-cache"},
            new String[] {HttpHeaders.EXPIRES, "0"},
            new String[] {"X-Content-Type-Options", "nosniff"},
            new String[] {"X-Frame-Options", "DENY"},
            new String[] {"X-XSS-Protection", "0"},
            new String[] {"Referrer-Policy", "no-referrer"});

    private static final String BEARER = "Bearer ";

    private final AdmissionService admissions;
    private final ReactiveJwtDecoder tokens;
    private final JsonMapper json;
    private final ProblemWriter problems;

    AdmissionFilter(AdmissionService admissions, ReactiveJwtDecoder tokens, JsonMapper json, ProblemWriter problems) {
        this.admissions = admissions;
        this.tokens = tokens;
        this.json = json;
        this.problems = problems;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        if (request.getMethod() != HttpMethod.POST) {
            return chain.filter(exchange);
        }
        PathPattern.PathMatchInfo match =
                PATTERN.matchAndExtract(request.getPath().pathWithinApplication());
        long couponId = match == null ? -1 : couponId(match.getUriVariables().get("couponId"));
        String token = couponId > 0 ? bearerToken(request.getHeaders()) : null;
        if (token == null) {
            return chain.filter(exchange);
        }
        return tokens.decode(token)
                .map(Jwt::getSubject)
                .onErrorResume(JwtException.class, refused -> Mono.empty())
                .flatMap(member -> admit(exchange, couponId, member).thenReturn(Boolean.TRUE))
                .switchIfEmpty(Mono.defer(() -> chain.filter(exchange).thenReturn(Boolean.FALSE)))
                .then();
    }

    private Mono<Void> admit(ServerWebExchange exchange, long couponId, String member) {
        // what the dispatcher's handler mapping does for http.server.requests' uri tag
        exchange.getAttributes().put(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE, PATTERN);
        ServerRequestObservationContext.findCurrent(exchange.getAttributes())
                .ifPresent(observation -> observation.setPathPattern(PATH));
        ServerHttpResponse response = exchange.getResponse();
        return admissions
                .admit(couponId, member, exchange.getRequest())
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
                    HttpHeaders headers = response.getHeaders();
                    for (String[] header : SECURITY_HEADERS) {
                        headers.set(header[0], header[1]);
                    }
                    headers.setContentLength(body.length);
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

    /** A positive long: 1 to 19 digits, no sign, no leading zero, no overflow; -1 otherwise. */
    static long couponId(String text) {
        if (text == null || text.isEmpty() || text.length() > 19 || text.charAt(0) == '0') {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
            if (value < 0) {
                return -1; // past Long.MAX_VALUE
            }
        }
        return value;
    }
}
