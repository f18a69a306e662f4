package com.flashcoupon.api.web;

import io.micrometer.context.ContextRegistry;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.MDC;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SynchronousSink;
import reactor.util.context.Context;

/**
 * Gives every request an id: the caller's {@code X-Request-Id} when it is a sane token, else a new one. The id is
 * echoed in the response header, kept as an exchange attribute and put in the Reactor context under {@value #KEY}.
 * Log lines of a request carry it (plain text: the correlation part of the pattern; JSON: an MDC field) when they are
 * written inside Reactor's {@code handle} or {@code tap} operators, which restore it into the MDC from the context, or
 * inside {@link #logScope}. Automatic propagation on every operator would do it everywhere, at a fifth of the api's
 * CPU under a crowd.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RequestIdFilter implements WebFilter {

    public static final String HEADER = "X-Request-Id";
    static final String KEY = "requestId";

    private static final Pattern SANE = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    static {
        ContextRegistry.getInstance()
                .registerThreadLocalAccessor(KEY, () -> MDC.get(KEY), id -> MDC.put(KEY, id), () -> MDC.remove(KEY));
    }

    /** Initialises the request ids' keystreams now, at start-up: they read a secure generator once. */
    public RequestIdFilter() {
        RequestIds.next();
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String id = idOf(exchange.getRequest().getHeaders().getFirst(HEADER));
        exchange.getResponse().getHeaders().set(HEADER, id);
        exchange.getAttributes().put(KEY, id);
        return chain.filter(exchange).contextWrite(Context.of(KEY, id));
    }

    /**
     * For {@code Mono.handle}/{@code Flux.handle}: logs with the request id (the {@code handle} operator restores it into
     * the MDC from the Reactor context; {@code doOnNext} would not), then passes the value on unchanged.
     */
    public static <T> BiConsumer<T, SynchronousSink<T>> logging(Consumer<T> log) {
        return (value, sink) -> {
            log.accept(value);
            sink.next(value);
        };
    }

    /**
     * Puts the exchange's request id in the logging MDC until closed: for code that logs outside a Reactor operator
     * that restores it (exception handlers).
     */
    static MDC.MDCCloseable logScope(ServerWebExchange exchange) {
        return MDC.putCloseable(KEY, exchange.getAttributeOrDefault(KEY, ""));
    }

    /** The caller's {@code X-Request-Id} when it is a sane token, else a new id. */
    public static String idOf(String given) {
        return given != null && SANE.matcher(given).matches() ? given : newId();
    }

    /**
     * 64 bits in 16 hex digits that reveal nothing about anything else ({@link RequestIds}); HexFormat rather than
     * {@code String.format}, which parsed its pattern on every request.
     */
    static String newId() {
        return RequestIds.next();
    }
}
