package com.flashcoupon.worker.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code /actuator/prometheus} behind a role, as on the api (docs/operations.md, {@code COUPON_METRICS_REQUIRE_ROLE}):
 * no token or a bad one is 401 {@code UNAUTHORIZED} with a bearer challenge, a token without the role 403
 * {@code FORBIDDEN}, both as the api's problems. A servlet filter on that one path, since the worker's HTTP is
 * actuator only: Spring Security's whole filter chain would guard nothing else.
 */
final class MetricsRoleFilter extends OncePerRequestFilter {

    /** RFC 6750's token characters, as Spring Security's bearer token resolvers read them. */
    private static final Pattern BEARER =
            Pattern.compile("^Bearer (?<token>[a-zA-Z0-9-._~+/]+=*)$", Pattern.CASE_INSENSITIVE);

    private final String role;
    private final JwtDecoder tokens;
    private final JsonMapper json;

    MetricsRoleFilter(String role, JwtDecoder tokens, JsonMapper json) {
        this.role = role;
        this.tokens = tokens;
        this.json = json;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        List<String> authorization = java.util.Collections.list(request.getHeaders(HttpHeaders.AUTHORIZATION));
        var bearer = authorization.size() == 1 ? BEARER.matcher(authorization.get(0)) : null;
        if (bearer == null || !bearer.matches()) {
            unauthorized(response);
            return;
        }
        Jwt jwt;
        try {
            jwt = tokens.decode(bearer.group("token"));
        } catch (JwtException refused) {
            unauthorized(response);
            return;
        }
        List<String> roles = jwt.getClaimAsStringList(MetricsTokens.ROLES);
        if (roles == null || !roles.contains(role)) {
            problem(response, 403, "FORBIDDEN", "Forbidden", "This needs the " + role + " role.");
            return;
        }
        chain.doFilter(request, response);
    }

    private void unauthorized(HttpServletResponse response) throws IOException {
        response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        problem(response, 401, "UNAUTHORIZED", "Unauthorized", "A valid bearer token is required.");
    }

    /** The api's problem shape (docs/http-api.md, Errors). */
    private void problem(HttpServletResponse response, int status, String code, String title, String detail)
            throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put(
                "type",
                "https://flash-coupon.dev/problems/" + code.toLowerCase().replace('_', '-'));
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        body.put("code", code);
        response.setStatus(status);
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.getOutputStream().write(json.writeValueAsBytes(body));
    }
}
