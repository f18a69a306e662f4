package com.flashcoupon.api.console;

import static org.springframework.web.reactive.function.server.RequestPredicates.GET;

import java.net.URI;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The operator console (docs/http-api.md, Operations): static files under {@code static/admin/}, served at {@code /admin/}. The
 * page itself needs no token; its data calls go to {@code /admin/v1/**} with the operator's bearer token.
 */
@Configuration(proxyBeanMethods = false)
class ConsoleRoutes {

    private static final Resource PAGE = new ClassPathResource("static/admin/index.html");

    @Bean
    RouterFunction<ServerResponse> consolePage() {
        return RouterFunctions.route(
                        GET("/admin/"),
                        request -> ServerResponse.ok()
                                .contentType(MediaType.TEXT_HTML)
                                .bodyValue(PAGE))
                .andRoute(
                        GET("/admin"),
                        request -> ServerResponse.permanentRedirect(URI.create("/admin/"))
                                .build());
    }
}
