package com.flashcoupon.api.support;

import org.springframework.boot.test.context.TestComponent;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * For {@link WebSliceTest}s of what runs before any controller (security, rate limits): answers the caller's subject
 * at {@code /api/v1/echo} and {@code /admin/v1/echo}. A test component, so the whole-app tests never scan it.
 */
@TestComponent
@RestController
public class EchoController {

    @GetMapping({"/api/v1/echo", "/admin/v1/echo"})
    Mono<String> subject(@AuthenticationPrincipal Jwt jwt) {
        return Mono.just(jwt.getSubject());
    }
}
