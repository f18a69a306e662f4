package com.flashcoupon.api.overload;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.springframework.boot.test.context.TestComponent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * For {@link OverloadGuardTest}: member endpoints that hold their permit as long as a test wants. {@code GET
 * /api/v1/held/{name}} answers 200 only once {@link #release} is called with its name; {@code GET /api/v1/failing}
 * fails (500). A test component, so no other test's context scans it.
 */
@TestComponent
@RestController
class HeldController {

    private final ConcurrentMap<String, Sinks.Empty<Void>> held = new ConcurrentHashMap<>();

    @GetMapping("/api/v1/held/{name}")
    Mono<String> held(@PathVariable String name) {
        return sink(name).asMono().thenReturn(name);
    }

    @GetMapping("/api/v1/failing")
    Mono<String> failing() {
        return Mono.error(new IllegalStateException("a defect of the test endpoint"));
    }

    void release(String name) {
        sink(name).tryEmitEmpty();
    }

    private Sinks.Empty<Void> sink(String name) {
        return held.computeIfAbsent(name, n -> Sinks.empty());
    }
}
