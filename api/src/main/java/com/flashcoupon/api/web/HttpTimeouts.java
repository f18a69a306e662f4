package com.flashcoupon.api.web;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.validation.annotation.Validated;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Operators;

/**
 * How long the HTTP server waits for a client, under {@code coupon.http} (docs/operations.md, "Slow and idle
 * connections"). Past any of them Reactor Netty closes the connection without an answer: a client that sends nothing,
 * or announces a body and does not send it, holds a connection for that long at most. Before these, nothing timed a
 * connection out: such clients held theirs for as long as they liked (SlowClientsTest).
 *
 * @param idleTimeout the longest a connection waits for a request: before its first, or between two on keep-alive
 *     (what Spring Boot's {@code server.netty.idle-timeout} sets, kept here beside the others)
 * @param readTimeout the longest pause between two reads of a body
 * @param requestTimeout the longest a whole body may take to arrive, however it trickles
 */
@Validated
@ConfigurationProperties("coupon.http")
public record HttpTimeouts(
        @DefaultValue("75s") @NotNull Duration idleTimeout,
        @DefaultValue("5s") @NotNull Duration readTimeout,
        @DefaultValue("10s") @NotNull Duration requestTimeout) {

    /** Hands the time-outs to Reactor Netty (Spring Boot's properties reach the idle one only). */
    @Configuration(proxyBeanMethods = false)
    static class ServerCustomizer {

        private static final Logger log = LoggerFactory.getLogger(HttpTimeouts.class);

        /**
         * A body's time-out reaches its reader twice: once as the read's error, and again when Reactor Netty disposes
         * of the request after the answer, by then to a reader that is done, so Reactor's default logs it as an error
         * with "Operator called default onErrorDropped", once per slow client. Those are logged at debug; any other
         * dropped error as Reactor's default does.
         */
        ServerCustomizer() {
            Hooks.onErrorDropped(error -> {
                if (ClientGone.is(error)) {
                    log.debug("a slow or gone client's error, after its answer: {}", error.toString());
                } else {
                    LoggerFactory.getLogger(Operators.class).error("Operator called default onErrorDropped", error);
                }
            });
        }

        @Bean
        NettyServerCustomizer connectionTimeouts(HttpTimeouts timeouts) {
            return server -> server.idleTimeout(timeouts.idleTimeout())
                    .readTimeout(timeouts.readTimeout())
                    .requestTimeout(timeouts.requestTimeout());
        }
    }
}
