package com.flashcoupon.api.plane;

import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.api.web.MemberPaths;
import com.flashcoupon.api.web.OpenApiConfig;
import com.flashcoupon.api.web.Problems;
import java.net.URI;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.result.view.ViewResolver;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * With a private port: {@code /internal/**} answers only on it, and so does {@code /admin/**} unless the operators have
 * a port of their own; member paths only on the public port, the actuator only on its management port. Elsewhere a path answers 404 {@code NOT_FOUND}, byte for byte the
 * answer of a path the api does not serve, written by the same encoder: the public port does not tell that the others'
 * paths exist. Before security, so that no token is read, charged or refused there. The paths are read as routing
 * reads them ({@link MemberPaths}): {@code /%61dmin/...} is {@code /admin/...}. The OpenAPI document follows the same
 * line: on the public port {@code /v3/api-docs} is the member's group (no operator or order-service path is listed
 * there) and the other groups are unknown paths; the private port serves the whole document.
 */
final class PlaneFilter implements WebFilter, Ordered {

    /** After the request id (every answer carries it), before security and the rate limits. */
    static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1;

    private final PrivatePlane plane;
    private final ServerResponse.Context codecs;

    PlaneFilter(PrivatePlane plane, ServerCodecConfigurer codecs) {
        this.plane = plane;
        List<HttpMessageWriter<?>> writers = codecs.getWriters();
        this.codecs = new ServerResponse.Context() {
            @Override
            public List<HttpMessageWriter<?>> messageWriters() {
                return writers;
            }

            @Override
            public List<ViewResolver> viewResolvers() {
                return List.of();
            }
        };
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        PrivatePlane.Port port = plane.received(request.getLocalAddress());
        PathContainer path = request.getPath().pathWithinApplication();
        if (port == PrivatePlane.Port.PUBLIC && MemberPaths.isOpenApiDocument(path)) {
            // the public port's document lists the paths it answers: the member's group
            String member = request.getPath().contextPath().value() + "/v3/"
                    + (path.value().endsWith(".yaml") ? "api-docs.yaml/" : "api-docs/") + OpenApiConfig.MEMBER_GROUP;
            return chain.filter(exchange.mutate().request(r -> r.path(member)).build());
        }
        if (answers(port, path)) {
            return chain.filter(exchange);
        }
        // as Spring answers a path no route serves (ProblemHandler, with the path as instance)
        ProblemDetail problem = Problems.of(ErrorCode.NOT_FOUND, ErrorCode.NOT_FOUND.title());
        problem.setInstance(URI.create(request.getPath().value()));
        return ServerResponse.status(HttpStatus.NOT_FOUND)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .bodyValue(problem)
                .flatMap(response -> response.writeTo(exchange, codecs));
    }

    /** Which paths a port answers. */
    private boolean answers(PrivatePlane.Port port, PathContainer path) {
        return switch (port) {
            case MANAGEMENT -> true; // the management server serves the actuator alone
            case ADMIN -> MemberPaths.isAdmin(path) || MemberPaths.isOpenApiDocument(path);
            case PRIVATE ->
                MemberPaths.isInternalApi(path)
                        || (!plane.adminApart() && MemberPaths.isAdmin(path))
                        || MemberPaths.isOpenApiDocument(path);
            case PUBLIC ->
                !MemberPaths.isAdmin(path)
                        && !MemberPaths.isInternalApi(path)
                        && !MemberPaths.isActuator(path)
                        && publicDocumentPart(MemberPaths.openApiPart(path));
        };
    }

    /** Of the document's parts, the public port serves the member's group and the UI's configuration. */
    private static boolean publicDocumentPart(String part) {
        return part == null || part.equals(OpenApiConfig.MEMBER_GROUP) || part.equals("swagger-config");
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
